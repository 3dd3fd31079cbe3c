"""``validate`` and ``convert``: suite files checked, and converted between formats."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import TextIO

from ..errors import SuiteError
from ..formats import load_suite
from ..formats.convert import convert_suite
from ..suite.code import suite_code
from ..suite.model import suite_warnings

__all__ = ["cmd_validate", "cmd_convert"]


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    """Load every path; list each problem and warning; 1 when any path has a problem."""
    failed = 0
    for path in args.paths:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                loaded = load_suite(path)
            except SuiteError as exc:
                failed += 1
                out.write(f"{path}: {len(exc.problems)} problem(s)\n")
                out.write("".join(f"  - {p}\n" for p in exc.problems))
                continue
        suites = loaded if isinstance(loaded, list) else [loaded]
        notes = list(
            dict.fromkeys(
                [str(w.message) for w in caught] + [w for s in suites for w in suite_warnings(s)]
            )
        )
        cases = sum(len(s.cases) for s in suites)
        out.write(
            f"{path}: ok ({len(suites)} suite(s), {cases} case(s)"
            + (f", {len(notes)} warning(s)" if notes else "")
            + ")\n"
        )
        out.write("".join(f"  warning: {n}\n" for n in notes))
        code = [c for s in suites for c in suite_code(s)]
        if code:
            out.write(f"  code it runs ({len(code)} code grader(s)):\n")
            out.write("".join(f"    {c.line()}\n" for c in code))
    if failed:
        err.write(f"tooleval-nb validate: {failed} of {len(args.paths)} path(s) have problems\n")
        return 1
    return 0


def cmd_convert(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    """Convert one suite file; list what the target format could not hold."""
    if not Path(args.source).exists():
        raise SuiteError(
            f"{args.source}: no such file; give the suite file to convert", path=args.source
        )
    done = convert_suite(args.source, args.target, args.to, overwrite=args.force)
    out.write(f"wrote {done.n_cases} case(s) as {done.format}: {', '.join(done.files)}\n")
    if done.lost:
        out.write(f"{done.format} cannot hold {len(done.lost)} thing(s) of {args.source}:\n")
        out.write("".join(f"  - {line}\n" for line in done.lost))
    else:
        out.write("nothing was lost\n")
    return 0
