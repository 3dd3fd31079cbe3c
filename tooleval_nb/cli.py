"""The console script ``tooleval-nb``.

    tooleval-nb run    --suite data --model local/smollm2-135m            # print result tables
    tooleval-nb report --suite data --model local/smollm2-135m --output reports/latest

``--suite`` takes suite files or folders (every suite in a folder) and may be repeated, as may
``--model`` and ``--mode``. Without ``--suite`` the bundled suites run; without ``--model`` the
embedded model. Exit status: 0 when the command ran (whatever the scores), 2 for a usage or
configuration error (the message says what to fix), 1 for a failure while running, 130 when
interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .errors import ToolEvalError

__all__ = ["main", "build_parser", "format_summary"]

_MODES = ("native", "hermes", "pythonic")
_TOOL_CHOICES = ("required", "auto", "none")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", dest="suites", action="extend", nargs="+", metavar="PATH",
                        default=[], help="a suite file (.json, .yaml) or a folder of them; "
                        "repeatable (default: the bundled suites)")
    parser.add_argument("--model", dest="models", action="extend", nargs="+", metavar="NAME",
                        default=[], help="a litellm model name; repeatable (default: the "
                        "embedded local/smollm2-135m)")
    parser.add_argument("--api-base", default=None, metavar="URL",
                        help="an OpenAI-compatible endpoint for every model but the embedded "
                        "one (a local server); keys come from the usual environment variables")
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="sampling temperature (default 0.0)")
    parser.add_argument("--tool-choice", choices=_TOOL_CHOICES, default="required",
                        help="required (falls back to auto where unsupported), auto or none "
                        "(default required)")
    parser.add_argument("--mode", dest="modes", action="append", choices=_MODES, default=None,
                        help="how tools are offered: native tools or a raw-text format; "
                        "repeat to run every model in each mode (default native)")
    parser.add_argument("--max-cases", type=int, default=None, metavar="N",
                        help="run at most N cases of each suite (after --tags)")
    parser.add_argument("--tags", default=None, metavar="TAG[,TAG]",
                        help="run only the cases having any of these comma-separated tags")
    parser.add_argument("--store", default=None, metavar="PATH",
                        help="the SQLite run store (default: TOOLEVAL_STORE or the user data "
                        "directory)")
    parser.add_argument("--max-rounds", type=int, default=None, metavar="N",
                        help="bound the rounds of multi-turn chains and agent loops")
    parser.add_argument("--no-cache", dest="cache", action="store_false",
                        help="always call the models (default: reuse cached replies at "
                        "temperature 0)")
    parser.add_argument("--system-prompt", default=None, metavar="TEXT",
                        help="one system prompt for every model (default: each suite's own)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``tooleval-nb`` (subcommands ``run`` and ``report``)."""
    parser = argparse.ArgumentParser(
        prog="tooleval-nb", description="Measure how well LLMs call tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{run,report}")
    run = sub.add_parser("run", help="run suites and print the per-suite results table",
                         description="Run suites against models and print one results table "
                         "per suite.")
    _common(run)
    run.add_argument("--format", choices=("table", "csv", "json"), default="table",
                     help="how to print the results (default table)")
    report = sub.add_parser("report", help="run suites and write an HTML report",
                            description="Run suites against models with the report notebook "
                            "(papermill) and write the executed notebook and a standalone HTML "
                            "page to --output.")
    _common(report)
    report.add_argument("--output", required=True, metavar="DIR",
                        help="folder for report.ipynb and report.html (created)")
    report.add_argument("--title", default=None, help="the report's title")
    report.add_argument("--worst", type=int, default=None, metavar="N",
                        help="how many worst cases to list (default 10)")
    report.add_argument("--experiment", default=None, metavar="NAME",
                        help="add a section on this experiment of the store (its timeline, "
                        "baseline and best config)")
    report.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="time limit per report cell (default none)")
    return parser


def _params(args: argparse.Namespace) -> dict[str, Any]:
    tags = [t.strip() for t in args.tags.split(",") if t.strip()] if args.tags else None
    values: dict[str, Any] = {"suites": args.suites, "models": args.models or None,
                              "temperature": args.temperature, "tool_choice": args.tool_choice,
                              "mode": args.modes, "max_cases": args.max_cases, "tags": tags,
                              "store": args.store, "system_prompt": args.system_prompt,
                              "api_base": args.api_base, "cache": args.cache,
                              "max_rounds": args.max_rounds}
    for name in ("title", "worst", "experiment"):
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    return values


_SUMMARY_COLUMNS = ["model", "mode", "n_cases", "n_passed", "n_errored", "pass_rate",
                    "tool_score", "param_score", "overall", "latency_p50_ms", "cost"]


def format_summary(summary: Any, suite_name: str, n_cases: int) -> str:
    """One suite's results table as text (the ``run`` command's output)."""
    df = summary[[c for c in _SUMMARY_COLUMNS if c in summary.columns]].copy()
    formats = {"pass_rate": "{:.1%}", "tool_score": "{:.3f}", "param_score": "{:.3f}",
               "overall": "{:.3f}", "latency_p50_ms": "{:.0f}", "cost": "${:.4f}"}
    for col, fmt in formats.items():
        if col in df.columns:
            df[col] = [fmt.format(v) if v is not None and v == v else "-" for v in df[col]]
    table = df.to_string(index=False)
    return f"suite: {suite_name} ({n_cases} cases)\n{table}\n"


def _cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    from . import report

    params = report.validate_params(**_params(args))
    suites = report.load_report_suites(params)
    runs = report.run_suites(params, suites, progress="text")
    if args.format == "csv":
        runs.results.to_csv(out, index=False)
    elif args.format == "json":
        out.write(runs.results.to_json(orient="records", force_ascii=False) + "\n")
    else:
        for suite, run in zip(runs.suites, runs.runs, strict=True):
            out.write(format_summary(run.summary_df(), suite.name, len(suite.cases)) + "\n")
    return 0


def _cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    from . import report

    files = report.build_report(args.output, timeout=args.timeout, **_params(args))
    out.write(f"report: {files.html}\nnotebook: {files.notebook}\n")
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the ``tooleval-nb`` command line; returns the exit status."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        if args.command == "run":
            return _cmd_run(args, out)
        return _cmd_report(args, out)
    except ToolEvalError as exc:
        sys.stderr.write(f"tooleval-nb {args.command}: error: {exc}\n")
        return _exit_code(exc)
    except KeyboardInterrupt:
        sys.stderr.write(f"tooleval-nb {args.command}: interrupted\n")
        return 130


def _exit_code(exc: ToolEvalError) -> int:
    """1 for a failure while running, 2 for a usage or configuration problem."""
    from .errors import EmbeddedModelError, JobError, ModelConfigError, ModelError, StoreError

    if isinstance(exc, ModelConfigError):
        return 2
    return 1 if isinstance(exc, (JobError, ModelError, EmbeddedModelError, StoreError)) else 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
