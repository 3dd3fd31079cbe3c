"""``tooleval-nb bfcl``: a model on BFCL's single-turn categories, files for the official checker.

    tooleval-nb bfcl --model local/smollm2-135m --category simple_python --category irrelevance \\
        --mode fc --limit 50 --output bfcl_out

The model's key comes from the environment: the provider's variable (``OPENAI_API_KEY`` ...) or
the one named by ``--api-key-env NAME``; ``--api-key KEY`` is refused (exit 2), since a key given
as a flag value stays in the shell history and the process list.

Writes BFCL's result files under ``DIR/result/`` and our score files under
``DIR/score_tooleval/``, and prints the leaderboard table (per-category accuracy, overalls,
errored and decoder-failed counts). Exit status as every command: 0, 1 a failure while running,
2 a usage or configuration problem (an unknown category, no data, a model that rejects native
tools in fc mode).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from ..bfcl.run import run_bfcl
from ..bfcl_rules.categories import CATEGORIES, GROUPS
from ..bfcl_rules.prompt import PROMPT_FORMATS
from ..runner.export import write_frame
from .flags import add_flags, add_model_flags, models_from_flags

__all__ = ["add_bfcl_parser", "cmd_bfcl", "format_scores"]


def add_bfcl_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``bfcl`` subcommand to the ``tooleval-nb`` parser's subparsers."""
    p = subparsers.add_parser(
        "bfcl",
        help="run a model on BFCL and write result files the official checker reads",
        description="Run a model on BFCL's single-turn categories (V4), write BFCL result files "
        "(DIR/result/<model>/...) and our score files (DIR/score_tooleval/), and print the "
        "leaderboard. Data: --data-dir, TOOLEVAL_BFCL_DATA, or an installed bfcl-eval "
        "(pip install 'tooleval_nb[bfcl]' && pip install --no-deps bfcl-eval==2026.3.23).",
    )
    add_model_flags(p, "a litellm model string (repeatable; default the embedded model)")
    p.add_argument(
        "--category",
        action="append",
        default=None,
        metavar="NAME",
        help=f"a category or group (repeatable; default all). Groups: "
        f"{', '.join(GROUPS)}; categories: {', '.join(CATEGORIES)}",
    )
    p.add_argument(
        "--mode",
        choices=("fc", "prompt"),
        default="fc",
        help="fc: native tools (default); prompt: BFCL's system prompt, calls read "
        "from the reply text",
    )
    p.add_argument(
        "--prompt-format",
        choices=PROMPT_FORMATS,
        default="python",
        help="in prompt mode, the call format asked for (default python)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="the first N entries of each category (default all)",
    )
    p.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="folder for result/ and score_tooleval/ (created)",
    )
    p.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help="BFCL's data folder (BFCL_v4_<category>.json, possible_answer/)",
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
    )
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="how to print the leaderboard (default table)",
    )
    add_flags(p, "progress", "keep-formulas")
    return p


def format_scores(df: Any) -> str:
    """The leaderboard as text: one block per model, percentages, counts."""
    lines = []
    for row in df.to_dict("records"):
        lines.append(
            f"{row['model']} ({row['mode']}): {row['n_entries']} entries, "
            f"{row['n_passed']} passed, {row['n_errored']} errored, "
            f"{row['n_decoder_failed']} decoder failed"
        )
        for key in df.columns[2:-7]:
            value = row[key]
            if value == value:  # not NaN: the category (or aggregate) was run
                lines.append(f"  {key:<24}{100 * value:6.2f}%")
    return "\n".join(lines) + "\n"


def cmd_bfcl(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    """Run ``tooleval-nb bfcl``; returns the exit status (errors are raised to ``main``)."""
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
        }.items()
        if v is not None
    }
    progress = "none" if args.progress == "none" else "text"
    job = run_bfcl(
        models_from_flags(args),
        args.category or "all",
        mode=args.mode,
        limit=args.limit,
        store=args.store,
        data_dir=args.data_dir,
        output=args.output,
        prompt_format=args.prompt_format,
        progress=progress,
        **options,
    )
    run = job.result()
    scores = run.bfcl_scores()
    if args.format == "csv":
        write_frame(scores, out, "csv", formulas=args.keep_formulas)
    elif args.format == "json":
        out.write(scores.to_json(orient="records") + "\n")
    else:
        out.write(format_scores(scores))
        out.write(f"run: {run.id}\nresult files: {args.output}/result/\n")
    return 0
