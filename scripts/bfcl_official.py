#!/usr/bin/env python
"""Proof that our BFCL verdicts equal the official checker's on result files we write.

1. ``te.run_bfcl`` runs a model (default the embedded one) on the first ``--limit`` entries
   (default 100) of ``--categories`` in both modes, writing BFCL result files.
2. The official checker (``bfcl-eval``, installed in a *separate* venv, ``--venv``: see
   ``scripts/bfcl_official.sh``) rescores those files unchanged: ``bfcl_eval``'s own
   ``eval_runner.main`` with ``--partial-eval``, the model registered in its model table the way
   BFCL's docs add a model (an OpenAI-compatible handler; ``-FC`` with ``underscore_to_dot``).
3. Per category and mode: the failed ids and error types of the official score files against
   ours, and the two accuracies. Exit status 1 on any difference.

    .venv/bin/python scripts/bfcl_official.py --venv /tmp/bfcl_official_venv --out /tmp/bfcl_proof

With ``--files DIR`` nothing is run: every model folder of ``DIR/result`` (written by our run,
by ``scripts/bfcl_multiturn_results.py`` or by any other tool; a folder ending in ``-FC`` is
read in ``fc`` mode, any other in ``prompt`` mode) is scored by the official checker and by
``score_result_files``, multi-turn and memory included, and every verdict and error type is
compared. ``--fixtures OUT`` then writes the result entries with the official verdicts beside
them (``<model>.jsonl.gz``), the test fixtures that compare without the official venv.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_CATEGORIES = "simple_python,multiple,parallel,parallel_multiple,irrelevance"

#: run inside the official venv: register the model, then BFCL's own evaluation
_OFFICIAL = r"""
import sys
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.eval_checker import eval_runner
name, fc, result_dir, score_dir, cats = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4], sys.argv[5]
MODEL_CONFIG_MAPPING[name] = ModelConfig(
    model_name=name, display_name=name, url="https://example.invalid", org="tooleval_nb",
    license="n/a", model_handler=OpenAICompletionsHandler, input_price=None, output_price=None,
    is_fc_model=fc, underscore_to_dot=fc)
import statistics
try:
    eval_runner.main([name], cats.split(","), result_dir, score_dir, partial_eval=True)
except statistics.StatisticsError:  # the summary's latency stdev wants two entries; the score
    pass                            # files, written per category before it, are complete
"""


def official_scores(
    venv: Path, model_dir: str, fc: bool, result_dir: Path, score_dir: Path, categories: list[str]
) -> float:
    """Run the official checker; returns its wall time."""
    name = model_dir.replace("_", "/")
    env = {
        **os.environ,
        "OPENAI_API_KEY": "unused-no-request-is-made",
        "BFCL_PROJECT_ROOT": str(score_dir.parent),
    }
    t0 = time.perf_counter()
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            _OFFICIAL,
            name,
            "1" if fc else "0",
            str(result_dir),
            str(score_dir),
            ",".join(categories),
        ],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def read_official(score_file: Path) -> tuple[dict, dict[str, str]]:
    """(header, {failed id: error_type}); multi-turn and agentic entries nest the type in
    ``error``."""
    lines = [json.loads(x) for x in score_file.read_text().splitlines() if x.strip()]
    return lines[0], {
        e["id"]: e.get("error_type") or (e.get("error") or {}).get("error_type") for e in lines[1:]
    }


def compare_files(venv: Path, files: Path, fixtures: Path | None = None) -> bool:
    """The official checker and ours on every model folder under ``files/result``; prints one
    line per model and category, every difference; True when all agree."""
    import gzip

    from tooleval_nb.bfcl.rescore import find_result_files, score_result_files
    from tooleval_nb.bfcl.results import read_result_file
    from tooleval_nb.bfcl_rules.data import BfclData

    data_dir = next((venv / "lib").glob("python3*/site-packages/bfcl_eval/data"))
    data = BfclData(data_dir)
    result_dir = files / "result"
    score_dir = files / "score_official"
    ok = True
    totals = [0, 0, 0, 0]  # entries, verdicts equal, failed by both, error types equal
    times = [0.0, 0.0]
    print(
        f"{'model':<22}{'category':<26}{'n':>5}{'official':>10}{'ours':>7}"
        f"{'verdicts agree':>17}{'error types agree':>20}"
    )
    for model_path in sorted(p for p in result_dir.iterdir() if p.is_dir()):
        model_dir = model_path.name
        mode = "fc" if model_dir.endswith("-FC") else "prompt"
        found = find_result_files(model_path)
        t0 = time.perf_counter()
        ours = score_result_files(model_path, mode, data=data, credit=False)
        times[0] += time.perf_counter() - t0
        # a score folder per model: BFCL's summary reads every model's score files it finds
        model_scores = score_dir / model_dir
        times[1] += official_scores(
            venv, model_dir, mode == "fc", result_dir, model_scores, list(found)
        )
        fixture_lines = []
        for category, path in found.items():
            score_file = next(model_scores.rglob(f"BFCL_v4_{category}_score.json"))
            header, failed = read_official(score_file)
            part = ours[ours["category"] == category]
            mine = {r.id: r.error_type for r in part.itertuples() if not r.passed}
            ids = list(part["id"])
            verdict_diff = [i for i in ids if (i in failed) != (i in mine)]
            both = [i for i in ids if i in failed and i in mine]
            type_diff = [i for i in both if failed[i] != mine[i]]
            acc = (len(ids) - len(mine)) / len(ids)
            totals[0] += len(ids)
            totals[1] += len(ids) - len(verdict_diff)
            totals[2] += len(both)
            totals[3] += len(both) - len(type_diff)
            print(
                f"{model_dir:<22}{category:<26}{len(ids):>5}{header['accuracy']:>10.4f}"
                f"{acc:>7.4f}{len(ids) - len(verdict_diff):>11}/{len(ids):<5}"
                f"{len(both) - len(type_diff):>13}/{len(both):<5}"
            )
            for i in verdict_diff:
                print(
                    f"VERDICT DIFFERS: {model_dir} {category} {i}: official "
                    f"{failed.get(i, 'passed')}, ours {mine.get(i, 'passed')}"
                )
                ok = False
            for i in type_diff:
                print(
                    f"ERROR TYPE DIFFERS: {model_dir} {category} {i}: official {failed[i]}, "
                    f"ours {mine[i]}"
                )
                ok = False
            for entry in read_result_file(path):
                fixture_lines.append(
                    {
                        "category": category,
                        "id": entry["id"],
                        "result": entry["result"],
                        "official": {
                            "valid": entry["id"] not in failed,
                            "error_type": failed.get(entry["id"]),
                        },
                    }
                )
        if fixtures is not None:
            fixtures.mkdir(parents=True, exist_ok=True)
            with gzip.open(fixtures / f"{model_dir}.jsonl.gz", "wt", compresslevel=9) as f:
                for line in fixture_lines:
                    f.write(json.dumps(line) + "\n")
    n, agree, both, types = totals
    print(
        f"ALL: {n} entries compared, verdicts equal {agree}/{n}, error types equal "
        f"{types}/{both} (entries both failed); ours {times[0]:.1f} s, the official checker "
        f"{times[1]:.1f} s (its process start and imports included)"
    )
    return ok


def snapshot(
    store_path: Path, mode: str, categories: list[str], limit: int, data_dir: Path, out: Path
) -> str:
    """Write the finished entries of the newest run of this mode; returns the model label."""
    import shutil
    import sqlite3

    from tooleval_nb.bfcl.run import BfclRun, _spec
    from tooleval_nb.bfcl.suite import build_suite
    from tooleval_nb.runner import Run, Store

    with sqlite3.connect(f"file:{store_path}?mode=ro", uri=True) as db:
        run_id = db.execute(
            "SELECT id FROM runs WHERE suite_name = ? ORDER BY created_at DESC LIMIT 1",
            (f"bfcl_{mode}",),
        ).fetchone()[0]
    spec = _spec(categories, mode, "python", data_dir, limit, None)
    suite = build_suite(list(spec.category_data.values()), spec.mode, limit=limit)
    run = BfclRun.of(Run.load(Store(store_path), run_id), spec, suite)
    shutil.rmtree(out, ignore_errors=True)
    run.write_bfcl(out)
    print(f"# {mode}: snapshot of {len(run)} finished entries (run {run_id})", file=sys.stderr)
    return run.models[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/bfcl_official_venv"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/bfcl_proof"))
    parser.add_argument("--model", default=None, help="default: the embedded model")
    parser.add_argument("--categories", default=DEFAULT_CATEGORIES)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--modes", default="fc,prompt")
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=900.0,
        help="per model request, seconds (the embedded model is slow on a busy "
        "machine; an errored entry would not be a fair comparison)",
    )
    parser.add_argument(
        "--skip-run", action="store_true", help="rescore the files already written under --out"
    )
    parser.add_argument(
        "--snapshot",
        action="store_true",
        help="do not run: write the entries "
        "finished so far by a run still going (same --out) and rescore those",
    )
    parser.add_argument(
        "--files",
        type=Path,
        default=None,
        help="do not run: compare the "
        "official checker and ours on every model folder of FILES/result",
    )
    parser.add_argument(
        "--fixtures",
        type=Path,
        default=None,
        help="with --files: write the entries and the official verdicts here as test fixtures",
    )
    args = parser.parse_args(argv)
    if args.files is not None:
        return 0 if compare_files(args.venv, args.files, args.fixtures) else 1

    import tooleval_nb as te  # noqa: F401  (the facade; the run goes through it below)
    from tooleval_nb.bfcl import run_bfcl
    from tooleval_nb.bfcl.rescore import score_result_files
    from tooleval_nb.bfcl.results import model_dir_name
    from tooleval_nb.bfcl_rules.data import BfclData

    data_dir = next((args.venv / "lib").glob("python3*/site-packages/bfcl_eval/data"))
    categories = args.categories.split(",")
    bad = False
    print(
        f"{'mode':<7}{'category':<20}{'n':>5}{'official':>10}{'ours':>7}"
        f"{'verdicts agree':>17}{'error types agree':>20}"
    )
    for mode in args.modes.split(","):
        out = args.out / mode
        if args.snapshot:
            out = args.out / f"{mode}_snapshot"
            label = snapshot(args.out / "store.db", mode, categories, args.limit, data_dir, out)
        elif not args.skip_run:
            t0 = time.perf_counter()
            job = run_bfcl(
                args.model,
                categories,
                mode=mode,
                limit=args.limit,  # type: ignore[arg-type]
                data_dir=data_dir,
                output=out,
                store=args.out / "store.db",
                progress="text",
                timeout=args.request_timeout,
            )
            run = job.result()
            print(
                f"# {mode}: {len(run)} entries generated in {time.perf_counter() - t0:.0f} s",
                file=sys.stderr,
            )
            label = run.models[0]
        else:
            label = args.model or "local/smollm2-135m"
        model_dir = model_dir_name(label, mode)
        ours = score_result_files(
            out / "result" / model_dir, mode, data=BfclData(data_dir), credit=False
        )
        score_dir = out / "score_official"
        present = [c for c in categories if c in set(ours["category"])]
        official_scores(args.venv, model_dir, mode == "fc", out / "result", score_dir, present)
        for category in present:
            files = list((score_dir / model_dir).rglob(f"BFCL_v4_{category}_score.json"))
            header, failed = read_official(files[0])
            part = ours[ours["category"] == category]
            mine = {r.id: r.error_type for r in part.itertuples() if not r.passed}
            ids = list(part["id"])
            verdict_diff = [i for i in ids if (i in failed) != (i in mine)]
            both = [i for i in ids if i in failed and i in mine]
            type_diff = [i for i in both if failed[i] != mine[i]]
            acc = (len(ids) - len(mine)) / len(ids)
            print(
                f"{mode:<7}{category:<20}{len(ids):>5}{header['accuracy']:>10.4f}{acc:>7.4f}"
                f"{len(ids) - len(verdict_diff):>11}/{len(ids):<5}"
                f"{len(both) - len(type_diff):>13}/{len(both):<5}"
            )
            if header["total_count"] != len(ids) or abs(header["accuracy"] - acc) > 1e-12:
                print(f"ACCURACY DIFFERS: {mode} {category}")
                bad = True
            for i in verdict_diff:
                print(f"VERDICT DIFFERS: {mode} {category} {i}")
                bad = True
            for i in type_diff:
                print(
                    f"ERROR TYPE DIFFERS: {mode} {category} {i}: official {failed[i]}, "
                    f"ours {mine[i]}"
                )
                bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
