#!/usr/bin/env python
"""The embedded model on multi-turn and memory entries, round-robin, for the official proof.

Runs ``te.run_bfcl`` with the embedded model (``te.DEFAULT_MODEL``) one entry at a time,
round-robin over the categories and modes (round 1: one entry of each category in each mode,
then round 2, ...), each entry in a folder of its own (``<out>/entries/<mode>/<id>/``), so that
the run can be stopped at any time (``kill`` the process) and started again: an entry whose
folder holds its result file is never asked again. Memory entries bring their scenario's
prerequisite conversation; the response cache (``<out>/cache``) answers a prerequisite already
run without asking the model again. Multi-turn entries are taken in order of their number of
turns (fewest first: more entries finish in the time given), then BFCL's order.

    nice -n 19 .venv/bin/python scripts/bfcl_embedded_proof.py --out /tmp/bfcl_embedded_proof &
    .venv/bin/python scripts/bfcl_embedded_proof.py --out /tmp/bfcl_embedded_proof --merge
    scripts/bfcl_official.sh --files /tmp/bfcl_embedded_proof/merged

``--merge`` writes the finished entries as one BFCL result tree (``<out>/merged/result/``), the
input of ``bfcl_official.sh --files`` (the official checker and ours on every entry).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

MULTI_TURN = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
MEMORY = ("memory_kv", "memory_rec_sum")
#: the memory scenario asked (its prerequisite conversation is one of the two shortest)
MEMORY_SCENARIO = "healthcare"


def plan(
    data_dir: Path, categories: list[str], modes: list[str], rounds: int
) -> list[tuple[str, str, str]]:
    """(mode, category, entry id) in round-robin order."""
    chosen: dict[str, list[str]] = {}
    for category in categories:
        if category.startswith("memory"):
            lines = [
                json.loads(x)
                for x in (data_dir / "BFCL_v4_memory.json").read_text().splitlines()
                if x
            ]
            backend = category.removeprefix("memory_")
            chosen[category] = [
                e["id"].replace("memory", f"memory_{backend}", 1)
                for e in lines
                if e.get("scenario") == MEMORY_SCENARIO
            ][:rounds]
        else:
            lines = [
                json.loads(x)
                for x in (data_dir / f"BFCL_v4_{category}.json").read_text().splitlines()
                if x
            ]
            order = sorted(range(len(lines)), key=lambda i: (len(lines[i]["question"]), i))
            chosen[category] = [lines[i]["id"] for i in order[:rounds]]
    return [
        (mode, category, chosen[category][r])
        for r in range(rounds)
        for category in categories
        for mode in modes
        if r < len(chosen[category])
    ]


def finished(folder: Path) -> bool:
    return (folder / "done.json").exists()


def run_one(folder: Path, mode: str, category: str, entry: str, timeout: float) -> None:
    from tooleval_nb.bfcl import run_bfcl

    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    run = run_bfcl(
        None,
        [category],
        mode=mode,
        entries=[entry],
        output=folder,
        store=folder.parent.parent.parent / f"store_{mode}.db",
        progress="none",
        timeout=timeout,
    ).result()
    df = run.bfcl_results_df()
    row = df[df["id"] == entry]
    took = time.perf_counter() - started
    (folder / "done.json").write_text(
        json.dumps(
            {
                "mode": mode,
                "category": category,
                "id": entry,
                "seconds": round(took, 1),
                "passed": bool(row["passed"].iloc[0]) if len(row) else None,
                "error_type": None if not len(row) else row["error_type"].iloc[0],
            }
        )
    )
    print(
        f"{time.strftime('%H:%M:%S')} {mode:<6} {category:<26} {entry:<34} "
        f"{took:7.1f} s  passed={bool(row['passed'].iloc[0]) if len(row) else None}",
        flush=True,
    )


def merge(out: Path) -> int:
    """Every finished entry's result lines in one BFCL result tree under ``out/merged``;
    returns the entries merged (prerequisites not counted)."""
    merged = out / "merged" / "result"
    lines: dict[Path, dict[str, str]] = {}
    n = 0
    for done in sorted((out / "entries").glob("*/*/done.json")):
        for path in sorted((done.parent / "result").rglob("BFCL_v4_*_result.json")):
            target = merged / path.relative_to(done.parent / "result")
            bucket = lines.setdefault(target, {})
            for line in path.read_text().splitlines():
                if line.strip():
                    bucket.setdefault(json.loads(line)["id"], line)
        n += 1
    for target, bucket in lines.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(f"{line}\n" for line in bucket.values()))
    print(f"{n} entries merged under {merged}", file=sys.stderr)
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=20, help="entries per category and mode")
    parser.add_argument("--categories", default=",".join(MULTI_TURN + MEMORY))
    parser.add_argument("--modes", default="fc,prompt")
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="BFCL's data folder (default: the installed bfcl-eval's)",
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="per model request, s")
    parser.add_argument("--merge", action="store_true", help="do not run: merge what finished")
    args = parser.parse_args(argv)
    if args.merge:
        merge(args.out)
        return 0
    os.environ.setdefault("TOOLEVAL_CACHE_DIR", str(args.out / "cache"))
    from tooleval_nb.bfcl_rules.data import locate_data

    data_dir = locate_data(args.data)
    todo = plan(Path(data_dir), args.categories.split(","), args.modes.split(","), args.rounds)
    print(f"{len(todo)} entries planned; data {data_dir}", flush=True)
    for mode, category, entry in todo:
        folder = args.out / "entries" / mode / entry
        if finished(folder):
            continue
        try:
            run_one(folder, mode, category, entry, args.timeout)
        except Exception as exc:  # one entry's failure is reported; the others still run
            print(f"FAILED {mode} {category} {entry}: {type(exc).__name__}: {exc}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
