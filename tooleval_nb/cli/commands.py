"""``run``, ``report``, ``history`` and ``export``: what each subcommand does with its options.

Results go to stdout; progress, notes and the reason a gate failed go to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ..errors import ToolEvalError
from ..report import (
    build_report,
    find_runs,
    load_report_suites,
    render_notebook,
    run_suites,
    validate_params,
)
from ..runner import history
from ..runner.export import frame_of, require_parquet, write_frame
from ..runner.history import resume
from ..runner.store import resolve_store
from .gate import error_notes, gate_failures

__all__ = [
    "params_of",
    "cmd_run",
    "cmd_report",
    "cmd_history",
    "cmd_export",
    "cmd_resume",
    "format_summary",
    "EXIT_GATE",
]

#: the exit status of a failed gate (--fail-under, --fail-on-errors)
EXIT_GATE = 3

#: the columns ``run`` prints: a selection of the runner's SUMMARY_COLUMNS
_PRINTED_COLUMNS = [
    "model",
    "mode",
    "n_cases",
    "n_passed",
    "n_errored",
    "pass_rate",
    "tool_score",
    "param_score",
    "overall",
    "latency_p50_ms",
    "cost",
]
#: option dest -> ReportParams field, where the names differ
_RENAMED = {"modes": "mode"}
_PARAM_OPTIONS = (
    "runs",
    "suites",
    "models",
    "store",
    "api_base",
    "api_key_env",
    "ssl_verify",
    "ssl_cert",
    "max_response_bytes",
    "temperature",
    "tool_choice",
    "modes",
    "max_cases",
    "tags",
    "ids",
    "system_prompt",
    "max_rounds",
    "cache",
    "max_concurrency",
    "repeats",
    "sample_seeds",
    "sampling_params",
    "rpm",
    "tpm",
    "request_timeout",
    "case_timeout",
    "retries",
    "name",
    "resume",
    "include_drafts",
    "code_graders",
    "parser_compat",
    "live_tools",
    "live_tool_timeout",
    "agent",
    "title",
    "worst",
    "experiment",
)


def params_of(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`~tooleval_nb.report.ReportParams` values the options give (None: default)."""
    values: dict[str, Any] = {}
    for dest in _PARAM_OPTIONS:
        value = getattr(args, dest, None)
        if value is None or value == []:
            continue
        if dest in ("tags", "ids"):
            value = [t.strip() for t in value.split(",") if t.strip()]
        elif dest == "sampling_params":
            value = dict(value)
        values[_RENAMED.get(dest, dest)] = value
    return values


def format_summary(summary: Any, suite_name: str, n_cases: int) -> str:
    """One suite's results table as text (the ``run`` command's output)."""
    df = summary[[c for c in _PRINTED_COLUMNS if c in summary.columns]].copy()
    formats = {
        "pass_rate": "{:.1%}",
        "tool_score": "{:.3f}",
        "param_score": "{:.3f}",
        "overall": "{:.3f}",
        "latency_p50_ms": "{:.0f}",
        "cost": "${:.4f}",
    }
    for col, fmt in formats.items():
        if col in df.columns:
            df[col] = [fmt.format(v) if v is not None and v == v else "-" for v in df[col]]
    table = df.to_string(index=False)
    return f"suite: {suite_name} ({n_cases} cases)\n{table}\n"


def _progress(args: argparse.Namespace) -> str:
    return "none" if getattr(args, "progress", "auto") == "none" else "text"


def _gate(args: argparse.Namespace, results: Any, command: str, err: TextIO) -> int:
    reasons = gate_failures(results, args.fail_under, args.fail_on_errors)
    if reasons:
        err.write(f"tooleval-nb {command}: gate failed: {'; '.join(reasons)}\n")
        return EXIT_GATE
    return 0


def cmd_run(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    params = validate_params(command="run", **params_of(args))
    suites = load_report_suites(params)
    runs = run_suites(params, suites, progress=_progress(args))
    if args.format == "csv":
        write_frame(runs.results, out, "csv", formulas=args.keep_formulas)
    elif args.format == "json":
        out.write(runs.results.to_json(orient="records", force_ascii=False) + "\n")
    else:
        for suite, run in zip(runs.suites, runs.runs, strict=True):
            out.write(format_summary(run.summary_df(), suite.name, len(suite.cases)) + "\n")
        out.write("runs: " + " ".join(runs.run_ids) + "\n")
    for note in error_notes(runs.results):
        err.write(f"tooleval-nb run: errors: {note}\n")
    return _gate(args, runs.results, "run", err)


def cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    if args.notebook is not None or args.notebook_params:
        return _notebook_report(args, out, err)
    shown: list[Any] = []
    started = time.monotonic()

    def on_runs(runs: Any) -> None:
        shown.append(runs)
        err.write(
            f"rendering the report of {len(runs.runs)} stored run(s) "
            f"({', '.join(runs.run_ids)}) into {args.output} ...\n"
        )
        err.flush()

    files = build_report(
        args.output,
        latest=args.latest,
        timeout=args.timeout,
        progress=_progress(args),
        on_runs=on_runs,
        **params_of(args),
    )
    err.write(f"report written in {time.monotonic() - started:.0f} s\n")
    out.write(f"report: {files.html}\nnotebook: {files.notebook}\nindex: {files.index}\n")
    return _gate(args, shown[0].results, "report", err)


def _notebook_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``report --notebook NAME -p KEY VALUE ...``: any notebook rendered as a report."""
    if args.notebook is None:
        raise ToolEvalError(
            "-p/--parameter sets a parameter of the notebook given with "
            "--notebook NAME; the report template's parameters are options "
            "(--model, --max-cases, ...: tooleval-nb report --help)"
        )
    clashing = [k for k in params_of(args) if k != "store"]
    if clashing or args.latest or args.fail_under is not None or args.fail_on_errors:
        given = clashing + [
            k
            for k in ("latest", "fail_under", "fail_on_errors")
            if getattr(args, k) not in (None, False)
        ]
        raise ToolEvalError(
            f"--notebook takes its values with -p KEY VALUE, not the report "
            f"template's options ({', '.join(given)}); e.g. tooleval-nb report "
            f"--notebook {args.notebook} -p max_cases 1 --output DIR"
        )
    values = dict(args.notebook_params or [])
    if args.store is not None:
        values.setdefault("store", args.store)
    started = time.monotonic()
    err.write(f"rendering the notebook {args.notebook} into {args.output} ...\n")
    err.flush()
    files = render_notebook(
        args.notebook, args.output, values, timeout=args.timeout, progress=_progress(args)
    )
    err.write(f"report written in {time.monotonic() - started:.0f} s\n")
    out.write(f"report: {files.html}\nnotebook: {files.notebook}\nindex: {files.index}\n")
    return 0


_HISTORY_COLUMNS = [
    "run_id",
    "created_at",
    "status",
    "suite",
    "models",
    "n_results",
    "n_total",
    "pass_rate",
    "overall",
    "n_errored",
    "name",
]


def cmd_history(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    store = resolve_store(args.store)
    df = history(store)
    if args.suite:
        df = df[df["suite"] == args.suite]
    if args.limit:
        df = df.head(args.limit)
    df = df[_HISTORY_COLUMNS].copy()
    df["models"] = [", ".join(m) for m in df["models"]]
    if args.format == "json":
        out.write(df.to_json(orient="records", force_ascii=False, date_format="iso") + "\n")
        return 0
    if args.format == "csv":
        write_frame(df, out, "csv", formulas=args.keep_formulas)
        return 0
    if not len(df):
        out.write(
            f"no runs in {store.path}" + (f" of suite {args.suite!r}" if args.suite else "") + "\n"
        )
        return 0
    df["created_at"] = df["created_at"].dt.strftime("%Y-%m-%d %H:%M:%S")
    df["pass_rate"] = [f"{v:.1%}" if v == v else "-" for v in df["pass_rate"]]
    df["overall"] = [f"{v:.3f}" if v == v else "-" for v in df["overall"]]
    df["name"] = df["name"].fillna("")
    out.write(f"store: {store.path}\n{df.to_string(index=False)}\n")
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    if args.format == "parquet":  # say so before reading anything
        require_parquet()
    (run,) = find_runs([args.run_id], args.store)
    df = frame_of(run, args.table)
    if args.output == "-":
        if args.format == "parquet":
            raise ToolEvalError("Parquet is binary: give a file with --output, not '-'")
        write_frame(df, out, args.format, formulas=args.keep_formulas)
        return 0
    suffix = "" if args.table == "results" else f"-{args.table}"
    target = Path(args.output or f"{run.id}{suffix}.{args.format}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_frame(df, target, args.format, formulas=args.keep_formulas)
    except OSError as exc:
        raise ToolEvalError(
            f"cannot write {target}: {exc.strerror or exc}; choose another --output"
        ) from None
    err.write(f"wrote {len(df)} row(s) of run {run.id} ({args.table}) to {target}\n")
    out.write(f"{target}\n")
    return 0


def cmd_resume(args: argparse.Namespace, out: TextIO, err: TextIO = sys.stderr) -> int:
    """``resume JOB_ID [--trust]``: finish a stored job; print its summary and run id."""
    job = resume(args.job_id, args.store, trust=args.trust, progress=_progress(args))
    run = job.result()
    cases = run.results_df()["case_id"].nunique()
    out.write(format_summary(run.summary_df(), run.suite_name or "?", cases) + "\n")
    out.write(f"runs: {run.id}\n")
    return 0
