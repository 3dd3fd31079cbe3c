#!/usr/bin/env python
"""BFCL speed: our end-to-end run against the fake server, scoring alone, and import time.

In one run, on this machine (the load average is printed at the start and the end: on a shared
machine compare the ratios, not the seconds):

1. **end to end**: ``te.run_bfcl`` on ``--per-category`` entries of every single-turn category
   against the fake OpenAI-compatible server (in its own process, answering after ``--latency``
   seconds with the ground-truth call for 4 entries in 5 and a wrong value for the fifth), no
   reply cache, result and score files written. Printed: entries/s, and the fake server's own
   bound (``max_concurrency / latency``); then the same requests from a bare aiohttp loop on
   the same server, the rate any client gets here. ``--rounds`` pairs (ours, then the bare
   loop), and the median of their ratios, ours / bare: the run is limited by the server, not
   by us, when it is close to 1 (target >= 0.9). Our run is also split into phases: before
   the first request (data, suite, job), the requests, and after the last case is stored.
2. **scoring alone** (per CPU second: steadier than wall time on a shared machine; best of 5
   passes, and with ``--venv`` each of ours followed by one of the official loop's, so the
   ratio compares passes taken side by side): our verdicts for the result files that run wrote, read into memory
   (``verdict_rows``, as the official checker's in-memory loop), repeated to ``--entries``
   entries; with our partial credit too; and from the files to the frame
   (``score_result_files``). With ``--venv`` (a venv with bfcl-eval, see
   ``scripts/bfcl_official.sh``), the official checker's loop on the same entries
   (``handler.decode_ast`` then ``ast_checker``, as ``eval_runner`` does it).
3. **import**: a fresh interpreter importing what scoring needs (ours:
   ``tooleval_nb.bfcl.rescore``; the official: ``bfcl_eval.eval_checker.eval_runner``), best of 3.

4. **multi-turn scoring** (``--multi-turn-files DIR``, or result files made here by
   ``scripts/bfcl_multiturn_results.py``: the ground truth and its perturbations, every entry of
   the four multi-turn categories, both modes; needs bfcl-eval's environment classes): our
   verdicts (``verdict_rows``) against the official checker's per-entry evaluation
   (``eval_runner._evaluate_single_multi_turn_entry``: the handler's decoding, then
   ``multi_turn_checker``) on the same entries, per CPU second, passes alternating, best of
   ``--mt-rounds``; and ours with the per-turn credit and replay. ``--multi-turn-only`` skips
   sections 1-3.

Targets: scoring >= 100,000 entries/s (the official checker: ~88,000/s here), an import of
0.5 s or less (the official: ~5.8 s), end to end limited by the fake server (ours / bare loop
>= 0.9).

    .venv/bin/python benchmarks/bench_bfcl.py [--per-category 40] [--rounds 3] \
        [--venv /tmp/bfcl_official_venv]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "reference" / "bfcl" / "data"
HANDLER = "benchmarks.bench_bfcl:planted_answer"
#: the end-to-end target: our run's rate over the bare loop's, on the same requests and server
TARGET_RATIO = 0.9

_ANSWERS: dict[str, list] | None = None


def _answers() -> dict[str, list]:
    """The user text of every entry -> its first ground-truth call (for the fake server)."""
    global _ANSWERS
    if _ANSWERS is None:
        from tooleval_nb.bfcl_rules.categories import SINGLE_TURN as CATEGORIES
        from tooleval_nb.bfcl_rules.categories import is_relevance
        from tooleval_nb.bfcl_rules.data import BfclData

        data = BfclData(os.environ.get("BENCH_BFCL_DATA", str(DATA)))
        _ANSWERS = {}
        for category in CATEGORIES:
            cat = data.category(category)
            for q in cat.questions:
                text = q["question"][0][-1]["content"]
                truth = None if is_relevance(category) else cat.answers[q["id"]]
                _ANSWERS[text] = [truth, len(_ANSWERS)]
    return _ANSWERS


def planted_answer(body: dict) -> dict:
    """The fake server's answer: the ground truth (first acceptable values, dots as ``_``),
    a wrong value for one entry in five, no call for the (ir)relevance categories."""
    text = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")
    truth, n = _answers().get(text, [None, 0])
    if not truth:
        return {"content": "None of the functions can be used."}
    calls = []
    for call in truth:
        for name, params in call.items():
            args = {k: v[0] for k, v in params.items() if v and v[0] != ""}
            if n % 5 == 4 and args:
                first = next(iter(args))
                args[first] = "wrong"
            calls.append({"function": {"name": name.replace(".", "_"), "arguments": args}})
    return {"tool_calls": calls}


def load_average() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def end_to_end(per_category: int, latency: float, concurrency: int, out: Path) -> tuple:
    from tooleval_nb.bfcl import run_bfcl
    from tooleval_nb.testing.fake_openai import FakeOpenAIServer

    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env_path}" if env_path else str(ROOT)
    with FakeOpenAIServer(latency=latency, process=True, handler=HANDLER) as server:
        model = {"model": "openai/fake", "api_base": server.url, "api_key": "k"}
        run_bfcl(
            model,
            "all",
            mode="fc",
            limit=1,
            store=out / "warm.db",
            data_dir=DATA,
            progress="none",
            cache=False,
        ).result()  # imports and first connections
        marks: dict[str, float] = {}

        def mark(event: Any) -> None:  # when the requests began and when the last case was in
            now = time.perf_counter()
            if event.type == "tool_eval_init":
                marks.setdefault("init", now)
            elif event.type == "job_progress":
                marks["last"] = now

        t0 = time.perf_counter()
        run = run_bfcl(
            model,
            "all",
            mode="fc",
            limit=per_category,
            store=out / "store.db",
            data_dir=DATA,
            output=out,
            progress="none",
            cache=False,
            max_concurrency=concurrency,
            callbacks=mark,
        ).result()
        wall = time.perf_counter() - t0
    phases = (
        marks.get("init", t0) - t0,
        marks.get("last", t0 + wall) - marks.get("init", t0),
        t0 + wall - marks.get("last", t0 + wall),
    )
    return run, wall, phases


def bare_loop(per_category: int, latency: float, concurrency: int) -> tuple[int, float]:
    """The same entries' requests from a bare aiohttp loop (one session, ``concurrency``
    workers, the reply's JSON decoded, nothing else) against the same fake server: the rate the
    server and this machine allow any client, which is the bound our run is compared with
    (benchmarks/_bare.py: each entry a group of one request)."""
    from _bare import bare_loop as send_bare  # this script's folder comes first on the path

    from tooleval_nb.bfcl.suite import build_suite
    from tooleval_nb.bfcl_rules.categories import SINGLE_TURN as CATEGORIES
    from tooleval_nb.bfcl_rules.data import BfclData

    data = BfclData(DATA)
    suite = build_suite([data.category(c) for c in CATEGORIES], "fc", limit=per_category)
    bodies = []
    for case in suite.cases:
        body: dict = {
            "model": "fake",
            "temperature": 0.0,
            "messages": [dict(m) for m in case.messages],
        }
        tools = [t.to_openai() for t in suite.tools_for(case)]
        if tools:
            body.update(tools=tools, tool_choice="auto")
        bodies.append(body)

    wall, _ = send_bare(
        [[body] for body in bodies],
        handler=HANDLER,
        latency=latency,
        concurrency=concurrency,
        warm=True,  # connections, the handler's answer table
    )
    return len(bodies), wall


def scoring(
    out: Path, n_target: int, official: OfficialLoop | None = None, rounds: int = 5
) -> dict[str, float]:
    """Entries per CPU second, best of ``rounds`` passes; with ``official``, its passes
    alternate with ours (ours, theirs, ours, theirs...), so that both see the same machine."""
    from tooleval_nb.bfcl.rescore import find_result_files, score_result_files
    from tooleval_nb.bfcl.results import read_result_file
    from tooleval_nb.bfcl.verdicts import verdict_rows
    from tooleval_nb.bfcl_rules.data import BfclData

    folder = out / "result" / "openai_fake-FC"
    data = BfclData(DATA)
    files = {c: read_result_file(p) for c, p in find_result_files(folder).items()}
    n_once = sum(len(v) for v in files.values())
    reps = max(1, n_target // n_once)
    rates: dict[str, float] = {}
    for label, credit in (("verdicts", False), ("verdicts + partial credit", True)):
        passes = reps if not credit else max(1, reps // 20)
        ours, theirs = [], []
        for _ in range(rounds if not credit else 3):
            t0 = time.process_time()
            for _ in range(passes):
                for category, entries in files.items():
                    verdict_rows(
                        entries, data.category(category), model="m", mode="fc", credit=credit
                    )
            ours.append(n_once * passes / (time.process_time() - t0))
            if official is not None and not credit:
                theirs.append(official.rate())
        rates[label] = max(ours)
        if theirs:
            rates["_official"] = max(theirs)
            rates["_pairs"] = sorted(o / t for o, t in zip(ours, theirs, strict=True))[
                len(ours) // 2
            ]
    t0 = time.process_time()
    score_result_files(folder, "fc", data=data, credit=False)
    rates["files -> frame (read, check ids, verdicts)"] = n_once / (time.process_time() - t0)
    rates["_n"] = n_once * reps
    return rates


_OFFICIAL_LOOP = r"""
import json, sys, time, glob, os
from bfcl_eval.constants.enums import Language, ReturnFormat
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
from bfcl_eval.eval_checker.eval_runner import get_handler
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.utils import is_empty_output, is_function_calling_format_output
folder, data, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
name = "bench/fake-FC"
MODEL_CONFIG_MAPPING[name] = ModelConfig(model_name=name, display_name=name, url="", org="",
    license="", model_handler=OpenAICompletionsHandler, input_price=None, output_price=None,
    is_fc_model=True, underscore_to_dot=True)
handler = get_handler(name)
work = []
for path in glob.glob(os.path.join(folder, "*", "BFCL_v4_*_result.json")):
    cat = os.path.basename(path)[len("BFCL_v4_"):-len("_result.json")]
    qs = {json.loads(l)["id"]: json.loads(l) for l in open(os.path.join(data, f"BFCL_v4_{cat}.json"))}
    ans = {}
    if "relevance" not in cat:
        ans = {json.loads(l)["id"]: json.loads(l)["ground_truth"] for l in open(os.path.join(data, "possible_answer", f"BFCL_v4_{cat}.json"))}
    lang = Language.JAVA if cat == "simple_java" else Language.JAVASCRIPT if cat == "simple_javascript" else Language.PYTHON
    fmt = ReturnFormat.JAVA if cat == "simple_java" else ReturnFormat.JAVASCRIPT if cat == "simple_javascript" else ReturnFormat.PYTHON
    for line in open(path):
        e = json.loads(line)
        work.append((cat, e["result"], qs[e["id"]]["function"], ans.get(e["id"]), lang, fmt))
def one_pass():
    t0 = time.process_time()
    for _ in range(reps):
        for cat, result, funcs, truth, lang, fmt in work:
            try:
                decoded = handler.decode_ast(result, ReturnFormat.PYTHON if "relevance" in cat else fmt, False)
            except Exception:
                continue
            if "relevance" in cat:
                is_empty_output(decoded)
            elif is_function_calling_format_output(decoded):
                ast_checker(funcs, decoded, truth, lang, cat, name)
    return time.process_time() - t0
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:  # one timed pass per line: the caller interleaves them with its own
    print(json.dumps({"rate": len(work) * reps / one_pass(), "n": len(work) * reps}), flush=True)
"""


class OfficialLoop:
    """The official checker's loop in the bfcl-eval venv, imported once; :meth:`rate` runs one
    timed pass (entries per CPU second), so that its passes interleave with ours."""

    def __init__(self, venv: Path, out: Path, n_target: int, n_once: int) -> None:
        data = next((venv / "lib").glob("python3*/site-packages/bfcl_eval/data"))
        reps = max(1, n_target // n_once)
        env = {**os.environ, "OPENAI_API_KEY": "unused"}
        self.proc = subprocess.Popen(
            [
                str(venv / "bin" / "python"),
                "-c",
                _OFFICIAL_LOOP,
                str(out / "result" / "openai_fake-FC"),
                str(data),
                str(reps),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._read()  # imported, entries loaded

    def _read(self) -> dict:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the official loop exited ({self.proc.wait()})")
        return json.loads(line)

    def rate(self) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        return float(self._read()["rate"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


_OFFICIAL_MT = r"""
import json, sys, time, os, glob
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
from bfcl_eval.eval_checker import eval_runner
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry
folder = sys.argv[1]
work = []
for model_dir in sorted(os.listdir(folder)):
    fc = model_dir.endswith("-FC")
    MODEL_CONFIG_MAPPING[model_dir] = ModelConfig(model_name=model_dir, display_name=model_dir,
        url="", org="", license="", model_handler=OpenAICompletionsHandler, input_price=None,
        output_price=None, is_fc_model=fc, underscore_to_dot=fc)
    handler = eval_runner.get_handler(model_dir)
    for path in glob.glob(os.path.join(folder, model_dir, "multi_turn", "*_result.json")):
        cat = os.path.basename(path)[len("BFCL_v4_"):-len("_result.json")]
        qs = {e["id"]: e for e in load_dataset_entry(cat, include_prereq=False,
                                                      include_language_specific_hint=False)}
        gt = {e["id"]: e["ground_truth"] for e in load_ground_truth_entry(cat)}
        for line in open(path):
            e = json.loads(line)
            work.append((handler, e["id"], e["result"], gt[e["id"]], qs[e["id"]], model_dir, cat))
print(json.dumps({"ready": True, "n": len(work)}), flush=True)
rounds = 0
for line in sys.stdin:  # one timed pass per line; a fresh model name each pass (BFCL keeps
    rounds += 1         # each entry's instances in globals() under it)
    t0 = time.process_time()
    for handler, i, result, truth, entry, model_dir, cat in work:
        eval_runner._evaluate_single_multi_turn_entry(handler, i, result, truth, dict(entry),
                                                      f"{model_dir}_pass{rounds}", cat)
    print(json.dumps({"rate": len(work) / (time.process_time() - t0)}), flush=True)
"""


def multi_turn_scoring(venv: Path | None, files: Path | None, rounds: int) -> None:
    """Section 4: multi-turn scoring, ours against the official checker's, same entries."""
    import contextlib
    import io

    from tooleval_nb.bfcl import environments
    from tooleval_nb.bfcl.results import read_result_file
    from tooleval_nb.bfcl.verdicts import verdict_rows
    from tooleval_nb.bfcl_rules.data import BfclData, _installed_data

    data_dir = _installed_data()
    if data_dir is None or not (data_dir / "BFCL_v4_multi_turn_base.json").is_file():
        print("multi-turn scoring: skipped (bfcl-eval, the bfcl extra, is not installed)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        if files is None:
            sys.path.insert(0, str(ROOT / "scripts"))
            import bfcl_multiturn_results as gen

            with contextlib.redirect_stderr(io.StringIO()):
                gen.main(["--data", str(data_dir), "--out", tmp, "--models", "1"])
            files = Path(tmp)
        data = BfclData(data_dir)
        work = []  # (category data, entries, model dir, mode)
        for model_path in sorted((files / "result").iterdir()):
            mode = "fc" if model_path.name.endswith("-FC") else "prompt"
            for path in sorted((model_path / "multi_turn").glob("*_result.json")):
                category = path.name[len("BFCL_v4_") : -len("_result.json")]
                work.append(
                    (data.category(category), read_result_file(path), model_path.name, mode)
                )
        n = sum(len(w[1]) for w in work)

        def ours(credit: bool) -> float:
            environments._parse.cache_clear()  # each pass cold: no call text read before
            t0 = time.process_time()
            for cat, entries, model_dir, mode in work:
                verdict_rows(
                    entries, cat, model=model_dir, mode=mode, credit=credit, bfcl_model=model_dir
                )
            return n / (time.process_time() - t0)

        official = None
        if venv is not None:
            env = {**os.environ, "OPENAI_API_KEY": "unused", "BFCL_PROJECT_ROOT": tmp}
            official = subprocess.Popen(
                [str(venv / "bin" / "python"), "-c", _OFFICIAL_MT, str(files / "result")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=env,
            )
            assert official.stdout is not None and official.stdin is not None
            ready = json.loads(official.stdout.readline())
            assert ready["n"] == n, (ready, n)
        mine, theirs = [], []
        for _ in range(rounds):
            mine.append(ours(False))
            if official is not None:
                assert official.stdin is not None and official.stdout is not None
                official.stdin.write("go\n")
                official.stdin.flush()
                # the official checker prints nothing per entry; its rate is one line
                theirs.append(float(json.loads(official.stdout.readline())["rate"]))
        credit_rate = ours(True)
        if official is not None:
            assert official.stdin is not None
            official.stdin.close()
            official.wait(timeout=60)
    print(
        f"multi-turn scoring, ours (verdicts): {max(mine):,.0f} entries per CPU second "
        f"({n:,} entries: the four categories, {len(work) // 4} model folder(s))"
    )
    print(
        f"multi-turn scoring, ours with per-turn credit and replay: {credit_rate:,.0f} "
        "entries per CPU second"
    )
    if theirs:
        pairs = sorted(o / t for o, t in zip(mine, theirs, strict=True))
        print(
            f"multi-turn scoring, the official checker on the same entries: {max(theirs):,.0f}"
            f" entries per CPU second; ours / official = {max(mine) / max(theirs):.2f} (best "
            f"against best), {statistics.median(pairs):.2f} (median of {len(pairs)} "
            "alternating pairs); target > 1"
        )


def import_time(python: str, statement: str, env: dict[str, str] | None = None) -> float:
    code = f"import time; t=time.perf_counter(); {statement}; print(time.perf_counter()-t)"
    times = []
    for _ in range(3):
        proc = subprocess.run(
            [python, "-c", code],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=ROOT,
        )
        times.append(float(proc.stdout.strip().splitlines()[-1]))
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--per-category",
        type=int,
        default=40,
        help="entries per category for the end-to-end run (13 categories)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="end-to-end rounds, ours and the bare loop alternately",
    )
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--entries", type=int, default=200_000, help="entries scored in the scoring-alone loop"
    )
    parser.add_argument(
        "--venv",
        type=Path,
        default=None,
        help="a venv with bfcl-eval, to measure the official checker too",
    )
    parser.add_argument(
        "--multi-turn-files",
        type=Path,
        default=None,
        help="multi-turn result files (DIR/result/<model>/multi_turn/...) for "
        "section 4; default: made here from the ground truth",
    )
    parser.add_argument(
        "--mt-rounds",
        type=int,
        default=3,
        help="multi-turn scoring passes, ours and the official alternately",
    )
    parser.add_argument(
        "--multi-turn-only", action="store_true", help="only section 4 (multi-turn scoring)"
    )
    args = parser.parse_args(argv)
    print(f"load average at start: {load_average()}")
    if args.multi_turn_only:
        multi_turn_scoring(args.venv, args.multi_turn_files, args.mt_rounds)
        print(f"load average at end: {load_average()}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("TOOLEVAL_CACHE_DIR", str(Path(tmp) / "cache"))
        ratios, first = [], None
        for i in range(args.rounds):  # ours, bare, ours, bare...: each pair sees one machine
            folder = Path(tmp) / f"round{i}"
            folder.mkdir()
            run, wall, (before, requests, after) = end_to_end(
                args.per_category, args.latency, args.concurrency, folder
            )
            n = len(run)
            n_bare, bare_wall = bare_loop(args.per_category, args.latency, args.concurrency)
            ratios.append(n / wall / (n_bare / bare_wall))
            first = first or (run, folder, n)
            print(
                f"round {i + 1}: ours {n} entries in {wall:.2f} s = {n / wall:,.1f} "
                f"entries/s (the fake server's bound {args.concurrency / args.latency:,.0f}/s: "
                f"concurrency {args.concurrency} / latency {args.latency} s); a bare aiohttp "
                f"loop, the same requests and server: {n_bare / bare_wall:,.1f} entries/s; "
                f"ours / bare = {ratios[-1]:.2f}"
            )
            print(
                f"  ours by phase: {before:.2f} s before the requests (data, suite, job), "
                f"{requests:.2f} s of requests ({n / requests:,.1f} entries/s, against the "
                f"bare loop's {bare_wall:.2f} s: {bare_wall / requests:.2f}), {after:.2f} s "
                "after the last case (verdicts, partial credit, files)"
            )
        median = statistics.median(ratios)
        print(
            f"END TO END: ours / bare loop = {median:.2f} (median of {len(ratios)} "
            f"alternating rounds: {', '.join(f'{r:.2f}' for r in ratios)}); target >= "
            f"{TARGET_RATIO:.2f}: {'met' if median >= TARGET_RATIO else 'NOT met'}"
        )
        assert first is not None
        run, out, n = first
        board = run.bfcl_scores().iloc[0]
        print(
            f"  (planted answers: non-live {board['non_live_overall']:.3f}, live "
            f"{board['live_overall']:.3f}, errored {board['n_errored']})"
        )
        official = OfficialLoop(args.venv, out, args.entries, n) if args.venv is not None else None
        try:
            rates = scoring(out, args.entries, official)
        finally:
            if official is not None:
                official.close()
        n_scored = rates.pop("_n")
        theirs, pairs = rates.pop("_official", None), rates.pop("_pairs", None)
        for label, rate in rates.items():
            print(f"scoring, {label}: {rate:,.0f} entries per CPU second")
        if theirs is not None:
            print(
                f"scoring, the official checker's loop on the same entries: {theirs:,.0f} "
                f"entries per CPU second; ours / official = {rates['verdicts'] / theirs:.2f} "
                f"(best against best), {pairs:.2f} (median of the pairs of alternating passes;"
                f" {n_scored:,} entries a pass)"
            )
    ours = import_time(sys.executable, "import tooleval_nb.bfcl.rescore")
    print(f"import for scoring, ours (tooleval_nb.bfcl.rescore): {ours:.2f} s")
    if args.venv is not None:
        theirs = import_time(
            str(args.venv / "bin" / "python"),
            "import bfcl_eval.eval_checker.eval_runner",
            {"OPENAI_API_KEY": "unused"},
        )
        print(
            f"import for scoring, official (bfcl_eval.eval_checker.eval_runner): "
            f"{theirs:.2f} s; ratio {ours / theirs:.2f}"
        )
    multi_turn_scoring(args.venv, args.multi_turn_files, args.mt_rounds)
    print(f"load average at end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
