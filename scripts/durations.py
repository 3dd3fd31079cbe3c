"""Per-test durations from pytest's JUnit XML files: totals, the slowest tests, and two runs compared.

``scripts/test.sh`` writes ``artifacts/junit-<tier>.xml`` on every run (and
``artifacts/junit-nbval.xml`` for the notebooks). The baseline measured before the tiers were cut
is committed as ``benchmarks/test_durations/baseline.csv``.

    python scripts/durations.py artifacts/junit-full.xml            # totals and the 10 slowest
    python scripts/durations.py artifacts/junit-*.xml --top 25
    python scripts/durations.py NEW.xml --compare benchmarks/test_durations/baseline.csv
    python scripts/durations.py RUN.xml --csv OUT.csv                # write a run as CSV
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

_GROUP = re.compile(r"@(model|browser|ray)\]?$")


def read(path: Path) -> dict[str, tuple[float, str]]:
    """``{test id: (seconds, outcome)}`` of a JUnit XML file or a CSV written by ``--csv``."""
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as fh:
            return {r["test"]: (float(r["seconds"]), r["outcome"]) for r in csv.DictReader(fh)}
    tests: dict[str, tuple[float, str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        # an xdist group's suffix (test@model) is not part of the test's id
        name = _GROUP.sub("", f"{case.get('classname', '')}::{case.get('name', '')}")
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
        tests[name] = (float(case.get("time") or 0.0), outcome)
    return tests


def read_all(paths: list[Path]) -> dict[str, tuple[float, str]]:
    """Every file's tests, later files winning; a file that cannot be read ends the script
    naming it and why."""
    merged: dict[str, tuple[float, str]] = {}
    for path in paths:
        try:
            merged.update(read(path))
        except (OSError, ET.ParseError, KeyError, ValueError) as exc:
            kind = "not a durations CSV" if isinstance(exc, KeyError) else type(exc).__name__
            raise SystemExit(f"durations: {path}: cannot be read ({kind}: {exc})") from None
    return merged


def summary(tests: dict[str, tuple[float, str]], top: int) -> str:
    outcomes: dict[str, int] = defaultdict(int)
    for _, outcome in tests.values():
        outcomes[outcome] += 1
    total = sum(t for t, _ in tests.values())
    lines = [
        f"{len(tests)} tests, {total / 60:.1f} min of test time "
        f"({', '.join(f'{n} {o}' for o, n in sorted(outcomes.items()))})",
        f"the {top} slowest:",
    ]
    for name, (secs, outcome) in sorted(tests.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f"  {secs:8.1f} s  {name}{'' if outcome == 'passed' else f'  [{outcome}]'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="JUnit XML files (or a --csv file)")
    parser.add_argument("--top", type=int, default=10, help="how many of the slowest to list")
    parser.add_argument("--compare", type=Path, nargs="+", help="an earlier run to compare with")
    parser.add_argument("--csv", type=Path, help="write the run's durations as CSV")
    args = parser.parse_args(argv)
    tests = read_all(args.runs)
    if not tests:
        print(f"no test case in {', '.join(map(str, args.runs))}", file=sys.stderr)
        return 1
    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh)
            out.writerow(["test", "seconds", "outcome"])
            for name, (secs, outcome) in sorted(tests.items()):
                out.writerow([name, f"{secs:.3f}", outcome])
    if args.compare:
        before = read_all(args.compare)
        print("before:", summary(before, args.top), sep="\n")
        print()
        print("after:", summary(tests, args.top), sep="\n")
        gone = sorted(set(before) - set(tests))
        print(f"\n{len(gone)} test ids of before are not in after (renamed, moved or removed)")
        for name in gone[:20]:
            print(f"  {name}")
    else:
        print(summary(tests, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
