#!/usr/bin/env python
"""Agreement of our BFCL verdicts with BFCL's official score files, per category.

For every category in ``shared/reference/bfcl/results/<model>/result/`` this scores the result
file with ``tooleval_nb.bfcl_check`` and compares, id by id, the passed/failed verdict and the
error type with the official ``score/BFCL_v4_<category>_score.json`` (which lists every failed id).

    .venv/bin/python scripts/bfcl_agreement.py [--reference DIR] [--model glyphh-ada-1.1]

Exit status 1 when any verdict or error type differs (the differing ids are printed).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference" / "bfcl"


def official(score_file: Path) -> tuple[dict, dict[str, str]]:
    """(header, {failed id: error_type}) from a BFCL score file."""
    lines = [json.loads(x) for x in score_file.read_text().splitlines() if x.strip()]
    return lines[0], {e["id"]: e.get("error_type") for e in lines[1:]}


def agreement(reference: Path, model: str) -> list[dict]:
    from tooleval_nb.scoring import bfcl_check

    rows = []
    result_dir = reference / "results" / model / "result"
    score_dir = reference / "results" / model / "score"
    for result_file in sorted(result_dir.glob("BFCL_v4_*_result.json")):
        category = result_file.name[len("BFCL_v4_") : -len("_result.json")]
        questions = reference / "data" / f"BFCL_v4_{category}.json"
        header, failed = official(score_dir / f"BFCL_v4_{category}_score.json")
        df = bfcl_check(result_file, questions)
        ours_failed = {r.id: r.error_type for r in df.itertuples() if not r.passed}
        ids = list(df["id"])
        verdict_diff = [i for i in ids if (i in failed) != (i in ours_failed)]
        both = [i for i in ids if i in failed and i in ours_failed]
        type_diff = [i for i in both if failed[i] != ours_failed[i]]
        rows.append(
            {
                "category": category,
                "n": len(ids),
                "official_correct": header["correct_count"],
                "ours_correct": len(ids) - len(ours_failed),
                "verdict_agree": len(ids) - len(verdict_diff),
                "error_type_agree": len(both) - len(type_diff),
                "n_failed_both": len(both),
                "verdict_diff": verdict_diff,
                "type_diff": type_diff,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--model", default="glyphh-ada-1.1")
    args = parser.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    rows = agreement(args.reference, args.model)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    head = (
        f"{'category':<24}{'n':>6}{'official':>10}{'ours':>7}{'verdicts agree':>22}"
        f"{'error types agree':>22}"
    )
    print(head)
    print("-" * len(head))
    total = agree = failed_both = type_agree = 0
    for r in rows:
        pct = 100.0 * r["verdict_agree"] / r["n"] if r["n"] else 100.0
        tpct = 100.0 * r["error_type_agree"] / r["n_failed_both"] if r["n_failed_both"] else 100.0
        print(
            f"{r['category']:<24}{r['n']:>6}{r['official_correct']:>10}{r['ours_correct']:>7}"
            f"{r['verdict_agree']:>11}/{r['n']:<5}{pct:>5.1f}%"
            f"{r['error_type_agree']:>11}/{r['n_failed_both']:<5}{tpct:>5.1f}%"
        )
        total += r["n"]
        agree += r["verdict_agree"]
        failed_both += r["n_failed_both"]
        type_agree += r["error_type_agree"]
    print("-" * len(head))
    print(
        f"{'all':<24}{total:>6}{'':>17}{agree:>11}/{total:<5}{100.0 * agree / total:>5.1f}%"
        f"{type_agree:>11}/{failed_both:<5}{100.0 * type_agree / max(failed_both, 1):>5.1f}%"
    )
    print(
        f"\n{total} entries in {wall:.2f} s wall, {cpu:.2f} s CPU "
        f"({1000 * cpu / total:.2f} CPU s per 1,000 entries, file reading included)"
    )
    bad = False
    for r in rows:
        for i in r["verdict_diff"]:
            print(f"VERDICT DIFFERS: {r['category']} {i}")
            bad = True
        for i in r["type_diff"]:
            print(f"ERROR TYPE DIFFERS: {r['category']} {i}")
            bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
