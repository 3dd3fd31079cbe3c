"""The argument parser of ``tooleval-nb``: its subcommands and their options.

Option defaults are None where :class:`~tooleval_nb.report.ReportParams` has the default, so that
a default lives in one place (a test checks the CLI's and the template's defaults are its own).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..formats.bundled import BUNDLED_PREFIX, bundled_suite_names
from ..models.spec import MODES
from ..runner.settings import TOOL_CHOICES
from .bfcl import add_bfcl_parser
from .flags import add_flags, credential_problem
from .tau2 import add_tau2_parser

__all__ = ["build_parser", "version_text", "COMMANDS", "EXIT_CODES"]

#: the subcommands, in the order ``--help`` lists them
COMMANDS = ("run", "report", "bfcl", "tau2", "history", "export", "resume", "validate", "convert")

#: exit status -> meaning (README and docs/cli.md list the same)
EXIT_CODES = {
    0: "success: the command ran and every gate (--fail-under, --fail-on-errors) passed",
    1: "a failure while running (a model, the store, a report cell), or validate found problems",
    2: "a usage or configuration problem (the message says what to fix); nothing ran",
    3: "a gate failed: the mean overall score is under --fail-under, or --fail-on-errors "
    "found errored cases",
    130: "interrupted (Ctrl-C)",
}

_MODES = MODES
_TOOL_CHOICES = TOOL_CHOICES
_EPILOG = "exit status: " + "; ".join(
    f"{k} {v.split(':')[0].split(' (')[0]}" for k, v in EXIT_CODES.items()
)


class _Parser(argparse.ArgumentParser):
    """The parser of ``tooleval-nb`` and its commands: a credential among the options (see
    :func:`.flags.credential_problem`) is a usage error, exit status 2, before anything runs."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, rest = super().parse_known_args(args, namespace)
        problem = credential_problem(parsed)
        if problem:
            self.error(problem)
        return parsed, rest


def version_text() -> str:
    import importlib.metadata

    try:
        version = importlib.metadata.version("tooleval_nb")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a source tree
        version = "unknown"
    return f"tooleval-nb {version}"


def _suites_models(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("what to run")
    g.add_argument(
        "--suite",
        dest="suites",
        action="extend",
        nargs="+",
        metavar="PATH",
        default=[],
        help="a suite file (.json, .yaml), a folder of them, or a "
        "suite shipped with tooleval_nb: "
        + ", ".join(f"{BUNDLED_PREFIX}:{n}" for n in bundled_suite_names())
        + f" ({BUNDLED_PREFIX} alone: all of them); repeatable "
        "(default: all the bundled suites)",
    )
    g.add_argument(
        "--model",
        dest="models",
        action="extend",
        nargs="+",
        metavar="NAME",
        default=[],
        help="a litellm model name; repeatable (default: the embedded local/smollm2-135m)",
    )
    g.add_argument(
        "--max-cases",
        type=int,
        default=None,
        metavar="N",
        help="run at most N cases of each suite (after --tags)",
    )
    g.add_argument(
        "--tags",
        default=None,
        metavar="TAG[,TAG]",
        help="run only the cases having any of these comma-separated tags",
    )
    g.add_argument(
        "--ids",
        default=None,
        metavar="ID[,ID]",
        help="run only the cases with these comma-separated ids",
    )
    g.add_argument(
        "--include-drafts",
        action="store_true",
        default=None,
        help="run draft cases too (skipped by default)",
    )
    g.add_argument(
        "--no-code-graders",
        dest="code_graders",
        action="store_false",
        default=None,
        help="run none of the Python the suites' code graders name (those grades fail as "
        "refused); validate lists that code",
    )
    add_flags(g, "store")


def _run_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("how the models are called (run_eval's options)")
    g.add_argument(
        "--api-base",
        default=None,
        metavar="URL",
        help="an OpenAI-compatible endpoint for every model but the embedded "
        "one (a local server); keys come from the usual environment variables "
        "or --api-key-env",
    )
    g.add_argument(
        "--ssl-verify",
        default=None,
        metavar="true|false|CA_BUNDLE",
        help="TLS verification for --api-base: true, false (stored with the run), or the path "
        "of the endpoint's CA bundle (default: SSL_VERIFY / SSL_CERT_FILE, else the system's)",
    )
    g.add_argument(
        "--ssl-cert",
        default=None,
        metavar="PEM",
        help="a client certificate for --api-base: one PEM file holding it and its key",
    )
    g.add_argument(
        "--max-response-bytes",
        type=int,
        default=None,
        metavar="N",
        help="refuse answers larger than N bytes (default 64 MiB)",
    )
    g.add_argument(
        "--tool-choice",
        choices=_TOOL_CHOICES,
        default=None,
        help="required (falls back to auto where unsupported), auto or none (default required)",
    )
    g.add_argument(
        "--parser-compat",
        choices=("default", "vllm"),
        default=None,
        help="how raw-text replies are read: our parsers (default) or exactly as vLLM serves "
        "that --tool-call-parser (vllm)",
    )
    g.add_argument(
        "--mode",
        dest="modes",
        action="append",
        choices=_MODES,
        default=None,
        help="how tools are offered: native tools or a raw-text format; "
        "repeat to run every model in each mode (default native)",
    )
    add_flags(
        g,
        "api-key-env",
        "temperature",
        "no-cache",
        "max-concurrency",
        "param",
        "request-timeout",
        "name",
        "no-resume",
        "progress",
    )
    g.add_argument(
        "--system-prompt",
        default=None,
        metavar="TEXT",
        help="one system prompt for every model (default: each suite's own)",
    )
    g.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        metavar="N",
        help="bound the rounds of multi-turn chains and agent loops",
    )
    g.add_argument(
        "--repeats", type=int, default=None, metavar="N", help="samples per case (default 1)"
    )
    g.add_argument(
        "--seed",
        dest="sample_seeds",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="sampling seed sent with each request: one (samples get "
        "N, N+1, ...) or one per repeat (default: none)",
    )
    g.add_argument(
        "--rpm",
        type=float,
        default=None,
        metavar="N",
        help="requests per minute per provider (default: no limit)",
    )
    g.add_argument(
        "--tpm",
        type=float,
        default=None,
        metavar="N",
        help="tokens per minute per provider (default: no limit)",
    )
    g.add_argument(
        "--case-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="time limit per case, for cases that set none",
    )
    g.add_argument(
        "--retries",
        type=int,
        default=None,
        metavar="N",
        help="re-runs of a case whose model call failed (default 0)",
    )
    g.add_argument(
        "--live-tools",
        default=None,
        metavar="TARGET",
        help="answer the tool calls of chains with an MCP server's tools (a URL or "
        "a command line) instead of the cases' mock responses",
    )
    g.add_argument(
        "--live-tool-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="time limit per live tool call (default 30)",
    )
    g.add_argument(
        "--agent",
        default=None,
        metavar="MODULE:CALLABLE",
        help="an agent callable that runs every case instead of the built-in loop",
    )


def _gates(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("gates for CI (exit status 3 when one fails)")
    g.add_argument(
        "--fail-under",
        type=float,
        default=None,
        metavar="SCORE",
        help="fail when a model's mean overall score (0 to 1, over every case of "
        "every suite) is under SCORE",
    )
    g.add_argument(
        "--fail-on-errors",
        action="store_true",
        help="fail when any case errored (its model call failed after retries)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``tooleval-nb`` (subcommands: :data:`COMMANDS`)."""
    parser = _Parser(
        prog="tooleval-nb", description="Measure how well LLMs call tools.", epilog=_EPILOG
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}"
    )
    run = sub.add_parser(
        "run",
        help="run suites and print the per-suite results table",
        description="Run suites against models, store the runs, and print one "
        "results table per suite.",
        epilog=_EPILOG,
    )
    _suites_models(run)
    _run_options(run)
    run.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="how to print the results (default table)",
    )
    add_flags(run, "keep-formulas")
    _gates(run)

    report = sub.add_parser(
        "report",
        help="write an HTML report (of stored runs, or of suites run first)",
        description="Write a report to --output: the executed report notebook, a standalone "
        "HTML page that opens offline, and index.html listing every report of the folder. "
        "With --run or --latest it renders runs already stored, without one model call; "
        "otherwise it runs the suites here first (progress on stderr) and stores them.",
        epilog=_EPILOG,
    )
    source = report.add_mutually_exclusive_group()
    source.add_argument(
        "--run",
        dest="runs",
        nargs="+",
        default=None,
        metavar="RUN_ID",
        help="report on these stored runs (run or job ids; see `tooleval-nb "
        "history`); no model is called",
    )
    source.add_argument(
        "--latest",
        action="store_true",
        help="report on the newest stored run of each suite of --suite (the "
        "bundled suites by default); no model is called",
    )
    _suites_models(report)
    report.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="folder for report.html, report.ipynb and index.html (created; "
        "earlier reports there are kept and listed)",
    )
    report.add_argument("--title", default=None, help="the report's title")
    report.add_argument(
        "--worst",
        type=int,
        default=None,
        metavar="N",
        help="how many worst cases to list (default 10)",
    )
    report.add_argument(
        "--experiment",
        default=None,
        metavar="NAME",
        help="add a section on this experiment of the store (its timeline, "
        "baseline and best config)",
    )
    report.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="time limit per report cell (default none)",
    )
    notebook = report.add_argument_group(
        "any notebook as a report (instead of the report template)"
    )
    notebook.add_argument(
        "--notebook",
        default=None,
        metavar="NAME",
        help="execute this notebook (a name of notebooks/, such as "
        "02_compare_models, or a path) and write NAME.html to --output",
    )
    notebook.add_argument(
        "-p",
        "--parameter",
        dest="notebook_params",
        nargs=2,
        action="append",
        default=None,
        metavar=("KEY", "VALUE"),
        help="a value for the notebook's parameters cell, as JSON or text "
        "(a list may be comma-separated); repeatable",
    )
    _run_options(report)
    _gates(report)

    add_bfcl_parser(sub)
    add_tau2_parser(sub)
    history = sub.add_parser(
        "history",
        help="list the runs in the store",
        description="The run store as a table, newest first.",
    )
    add_flags(history, "store")
    history.add_argument(
        "--limit",
        type=int,
        default=20,
        metavar="N",
        help="show the newest N runs (default 20; 0: all)",
    )
    history.add_argument(
        "--suite", default=None, metavar="NAME", help="only the runs of this suite"
    )
    history.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="how to print it (default table)",
    )
    add_flags(history, "keep-formulas")

    export = sub.add_parser(
        "export",
        help="write a stored run's results to a file",
        description="Write a stored run's results (or its calls, its "
        "arguments, its summary) as CSV, JSON lines or Parquet.",
    )
    export.add_argument("run_id", metavar="RUN_ID", help="a run id or job id")
    export.add_argument(
        "--format",
        choices=("csv", "jsonl", "parquet"),
        default="csv",
        help="file format (default csv; parquet needs pyarrow)",
    )
    export.add_argument(
        "--table",
        choices=("results", "calls", "arguments", "summary"),
        default="results",
        help="results: one row per case x model x sample "
        "(default); calls: one per tool call made; arguments: one per argument; "
        "summary: one per model",
    )
    export.add_argument(
        "--output",
        "-o",
        default=None,
        metavar="PATH",
        help="the file to write (default RUN_ID[-TABLE].FORMAT here; '-' "
        "writes csv or jsonl to stdout)",
    )
    add_flags(export, "store", "keep-formulas")

    resume = sub.add_parser(
        "resume",
        help="finish an interrupted, cancelled or failed job",
        description="Run a stored job's missing cases (te.resume). A job that is not yours "
        "(recorded by another user or on another host, or in a store file another user owns) "
        "is refused with what resuming it would run or contact, until --trust.",
    )
    resume.add_argument("job_id", metavar="JOB_ID", help="the job's id (history lists them)")
    resume.add_argument(
        "--trust",
        action="store_true",
        help="resume a job that is not yours: spawn its MCP command, run its code graders, "
        "import its agent and send your keys to its endpoints",
    )
    add_flags(resume, "store", "progress")

    validate = sub.add_parser(
        "validate",
        help="load and cross-check suite files",
        description="Load every suite file given (folders: every suite in them) and "
        "cross-check cases against their tools. Every problem is listed, each naming the file, "
        "the case and the field; warnings too. Exit status 1 when any file has a problem.",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="suite files or folders")

    convert = sub.add_parser(
        "convert",
        help="convert a suite between seed JSON, seed-002 YAML and BFCL",
        description="Convert a suite file: seed-001 JSON (.json), seed-002 YAML (.yaml) or "
        "BFCL (a folder: BFCL_v4_<category>.json and possible_answer/). What the target format "
        "cannot hold is listed, case by case, by reading the written file back.",
    )
    convert.add_argument("source", metavar="IN", help="the suite file to read (any format)")
    convert.add_argument(
        "target", metavar="OUT", help="the file (.json, .yaml) or, for BFCL, the folder to write"
    )
    convert.add_argument(
        "--to",
        choices=("seed_json", "seed_yaml", "bfcl"),
        default=None,
        help="the target format (default: by OUT's ending; a folder or no ending: bfcl)",
    )
    convert.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    return parser
