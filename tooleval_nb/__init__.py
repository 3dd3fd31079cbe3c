"""tooleval_nb: measure how well LLMs call tools, from a notebook.

The public API is re-exported here and loaded lazily (PEP 562 ``__getattr__``), so that
``import tooleval_nb`` stays light: pandas, altair and litellm load only when first needed.

    >>> import tooleval_nb as te
    >>> suite = te.load_suite("bundled:weather")
    >>> job = te.run_eval(suite, [te.DEFAULT_MODEL])
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import TYPE_CHECKING, Any

from .errors import (  # the exception tree is tiny and always needed
    ClusterError,
    EmbeddedModelError,
    ExperimentError,
    JobCancelled,
    JobError,
    MCPImportError,
    ModelAuthError,
    ModelBadRequestError,
    ModelConfigError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
    ModelServerError,
    ModelTimeoutError,
    ParserError,
    RegexTimeoutError,
    ScoringError,
    StoreError,
    SuiteError,
    ToolEvalError,
)

if TYPE_CHECKING:  # the real types for IDEs and mypy; at runtime __getattr__ loads lazily
    from .bfcl.run import BfclJob, BfclRun, run_bfcl, run_bfcl_async
    from .cluster import RayExecutor, shutdown_cluster
    from .experiments import (
        DEFAULT_SPACE,
        DEFAULT_SYSTEM_PROMPT,
        TOOL_RULES,
        BestRecord,
        Budget,
        Config,
        Experiment,
        FewShot,
        JudgeReport,
        PromptTune,
        Space,
        Split,
        Sweep,
        estimate_async,
        judge_report,
        judge_report_async,
        space,
        sweep_async,
        tune_prompt,
        tune_prompt_async,
        uniform,
    )

    # names that are also a submodule's name: from their defining module (else mypy sees the module)
    from .experiments.compare import compare
    from .experiments.estimate import estimate
    from .experiments.experiment import experiment
    from .experiments.split import split
    from .experiments.sweep.run import sweep
    from .formats import example_suite, load_bfcl, load_suite, load_suites, save_bfcl, save_suite
    from .mcp import (
        LiveToolResult,
        MCPImportWarning,
        MCPTarget,
        MCPToolRunner,
        ToolExecutor,
        accept_drafts,
        discard_drafts,
        draft_cases,
        draft_cases_async,
        import_mcp,
        import_mcp_async,
        list_tools_async,
    )
    from .models import (
        DEFAULT_MODEL,
        EmbeddedServer,
        ModelReply,
        ModelSpec,
        ResponseCache,
        RetryPolicy,
        build_messages,
        call_model,
        call_model_async,
        embed,
        embed_async,
        embedded_server,
        system_prompt_for,
    )
    from .parsers import (
        PARSER_FORMATS,
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        ParserCase,
        ParserCorpus,
        ParserFormat,
        StreamingToolReconstructor,
        ToolParser,
        check_parser,
        example_exchange,
        get_parser,
        load_corpus,
        parse_tool_calls,
        render_tool_calls,
        render_tools_prompt,
        repair_tool_call,
        repair_tool_calls,
        with_tools_prompt,
    )
    from .report import ReportFiles, ReportParams, build_report
    from .runner import (
        TOOL_CHOICES,
        Job,
        Run,
        RunSettings,
        Store,
        ToolChoice,
        delete_run,
        load_run,
        resume,
        run_eval,
        run_eval_async,
        subscribe,
    )
    from .runner.history import history
    from .scoring import (
        FAILURE_MODES,
        SCORE_COLUMNS,
        BfclVerdict,
        CaseScore,
        GradeResult,
        Trace,
        bfcl_check,
        check_expectations,
        compute_overall,
        match_value,
        score_case,
        score_case_async,
        score_cases,
        score_cases_async,
        score_params,
        score_tool_selection,
        scores_df,
        trajectory_match,
    )
    from .suite import (
        EvalCase,
        Expectations,
        ExpectedCall,
        FunctionDef,
        GraderSpec,
        ReferenceTool,
        ScoringConfig,
        Suite,
        Tool,
        case_problems,
    )
    from .tau2.outcome import Tau2Run
    from .tau2.replay import replay_tau2
    from .tau2.rescore import rescore_tau2
    from .tau2.run import Tau2Job, run_tau2, run_tau2_async
    from .toolcall import FunctionCall, ToolCall, to_tool_calls
    from .widgets import ResultsExplorer, RunPanel, SuiteEditor, SweepForm, sweep_form

#: the version, written here only (pyproject.toml reads it: `dynamic = ["version"]`)
__version__ = "0.1.0"

# public name -> module that defines it
_LAZY: dict[str, str] = {}


def _export(module: str, *names: str) -> None:
    for name in names:
        _LAZY[name] = module


_export("tooleval_nb.toolcall", "ToolCall", "FunctionCall", "to_tool_calls")
_export(
    "tooleval_nb.suite",
    "Tool",
    "FunctionDef",
    "EvalCase",
    "Suite",
    "ExpectedCall",
    "Expectations",
    "GraderSpec",
    "ScoringConfig",
    "ReferenceTool",
    "case_problems",
)
_export(
    "tooleval_nb.formats",
    "load_suite",
    "load_suites",
    "load_bfcl",
    "example_suite",
    "save_suite",
    "save_bfcl",
)
_export(
    "tooleval_nb.scoring",
    "score_case",
    "score_cases",
    "CaseScore",
    "bfcl_check",
    "GradeResult",
    "Trace",
    "score_case_async",
    "score_cases_async",
    "scores_df",
    "BfclVerdict",
    "FAILURE_MODES",
    "SCORE_COLUMNS",
    "match_value",
    "score_params",
    "score_tool_selection",
    "compute_overall",
    "check_expectations",
    "trajectory_match",
)
_export(
    "tooleval_nb.parsers",
    "parse_tool_calls",
    "get_parser",
    "ExtractedToolCallInformation",
    "DeltaMessage",
    "DeltaToolCall",
    "DeltaFunctionCall",
    "StreamingToolReconstructor",
    "check_parser",
    "load_corpus",
    "PARSER_FORMATS",
    "repair_tool_call",
    "render_tools_prompt",
    "render_tool_calls",
    "example_exchange",
    "with_tools_prompt",
    "repair_tool_calls",
    "ToolParser",
    "ParserCase",
    "ParserCorpus",
    "ParserFormat",
)
_export(
    "tooleval_nb.models",
    "DEFAULT_MODEL",
    "call_model",
    "call_model_async",
    "ModelReply",
    "ModelSpec",
    "EmbeddedServer",
    "embedded_server",
    "embed",
    "embed_async",
    "RetryPolicy",
    "ResponseCache",
    "build_messages",
    "system_prompt_for",
)
_export(
    "tooleval_nb.runner",
    "run_eval",
    "run_eval_async",
    "resume",
    "history",
    "load_run",
    "delete_run",
    "Job",
    "Run",
    "Store",
    "RunSettings",
    "ToolChoice",
    "TOOL_CHOICES",
)
_export("tooleval_nb.runner", "subscribe")
_export("tooleval_nb.cluster", "RayExecutor", "shutdown_cluster")
_export("tooleval_nb.bfcl.run", "run_bfcl", "run_bfcl_async", "BfclJob", "BfclRun")
_export("tooleval_nb.tau2.run", "run_tau2", "run_tau2_async", "Tau2Job")
_export("tooleval_nb.tau2.replay", "replay_tau2")
_export("tooleval_nb.tau2.rescore", "rescore_tau2")
_export("tooleval_nb.tau2.outcome", "Tau2Run")
_export(
    "tooleval_nb.widgets", "SuiteEditor", "RunPanel", "ResultsExplorer", "SweepForm", "sweep_form"
)
_export("tooleval_nb.report", "build_report", "ReportParams", "ReportFiles")
_export(
    "tooleval_nb.experiments",
    "Config",
    "FewShot",
    "split",
    "Split",
    "Budget",
    "space",
    "uniform",
    "Space",
    "DEFAULT_SPACE",
    "compare",
    "estimate",
    "estimate_async",
    "experiment",
    "Experiment",
    "BestRecord",
    "sweep",
    "sweep_async",
    "Sweep",
    "tune_prompt",
    "tune_prompt_async",
    "PromptTune",
    "judge_report",
    "judge_report_async",
    "JudgeReport",
    "TOOL_RULES",
    "DEFAULT_SYSTEM_PROMPT",
)
_export(
    "tooleval_nb.mcp",
    "import_mcp",
    "import_mcp_async",
    "draft_cases",
    "draft_cases_async",
    "accept_drafts",
    "discard_drafts",
    "MCPToolRunner",
    "LiveToolResult",
    "ToolExecutor",
    "MCPTarget",
    "MCPImportWarning",
    "list_tools_async",
)

#: the public names, sorted (tests/test_public_api.py checks them against the lazy table)
__all__ = [
    "BestRecord",
    "BfclJob",
    "BfclRun",
    "BfclVerdict",
    "Budget",
    "CaseScore",
    "ClusterError",
    "Config",
    "DEFAULT_MODEL",
    "DEFAULT_SPACE",
    "DEFAULT_SYSTEM_PROMPT",
    "DeltaFunctionCall",
    "DeltaMessage",
    "DeltaToolCall",
    "EmbeddedModelError",
    "EmbeddedServer",
    "EvalCase",
    "Expectations",
    "ExpectedCall",
    "Experiment",
    "ExperimentError",
    "ExtractedToolCallInformation",
    "FAILURE_MODES",
    "FewShot",
    "FunctionCall",
    "FunctionDef",
    "GradeResult",
    "GraderSpec",
    "Job",
    "JobCancelled",
    "JobError",
    "JudgeReport",
    "LiveToolResult",
    "MCPImportError",
    "MCPImportWarning",
    "MCPTarget",
    "MCPToolRunner",
    "ModelAuthError",
    "ModelBadRequestError",
    "ModelConfigError",
    "ModelConnectionError",
    "ModelError",
    "ModelNotFoundError",
    "ModelRateLimitError",
    "ModelReply",
    "ModelResponseError",
    "ModelServerError",
    "ModelSpec",
    "ModelTimeoutError",
    "PARSER_FORMATS",
    "ParserCase",
    "ParserCorpus",
    "ParserError",
    "ParserFormat",
    "PromptTune",
    "RayExecutor",
    "ReferenceTool",
    "RegexTimeoutError",
    "ReportFiles",
    "ReportParams",
    "ResponseCache",
    "ResultsExplorer",
    "RetryPolicy",
    "Run",
    "RunPanel",
    "RunSettings",
    "SCORE_COLUMNS",
    "ScoringConfig",
    "ScoringError",
    "Space",
    "Split",
    "Store",
    "StoreError",
    "StreamingToolReconstructor",
    "Suite",
    "SuiteEditor",
    "SuiteError",
    "Sweep",
    "SweepForm",
    "TOOL_CHOICES",
    "TOOL_RULES",
    "Tau2Job",
    "Tau2Run",
    "Tool",
    "ToolCall",
    "ToolChoice",
    "ToolEvalError",
    "ToolExecutor",
    "ToolParser",
    "Trace",
    "__version__",
    "accept_drafts",
    "bfcl_check",
    "build_messages",
    "build_report",
    "call_model",
    "call_model_async",
    "case_problems",
    "check_expectations",
    "check_parser",
    "compare",
    "compute_overall",
    "delete_run",
    "discard_drafts",
    "draft_cases",
    "draft_cases_async",
    "embed",
    "embed_async",
    "embedded_server",
    "estimate",
    "estimate_async",
    "example_exchange",
    "example_suite",
    "experiment",
    "get_parser",
    "history",
    "import_mcp",
    "import_mcp_async",
    "judge_report",
    "judge_report_async",
    "list_tools_async",
    "load_bfcl",
    "load_corpus",
    "load_run",
    "load_suite",
    "load_suites",
    "match_value",
    "parse_tool_calls",
    "render_tool_calls",
    "render_tools_prompt",
    "repair_tool_call",
    "repair_tool_calls",
    "replay_tau2",
    "rescore_tau2",
    "resume",
    "run_bfcl",
    "run_bfcl_async",
    "run_eval",
    "run_eval_async",
    "run_tau2",
    "run_tau2_async",
    "save_bfcl",
    "save_suite",
    "score_case",
    "score_case_async",
    "score_cases",
    "score_cases_async",
    "score_params",
    "score_tool_selection",
    "scores_df",
    "shutdown_cluster",
    "space",
    "split",
    "subscribe",
    "sweep",
    "sweep_async",
    "sweep_form",
    "system_prompt_for",
    "to_tool_calls",
    "trajectory_match",
    "tune_prompt",
    "tune_prompt_async",
    "uniform",
    "with_tools_prompt",
]


_SUBPACKAGES = {
    "charts",
    "formats",
    "widgets",
    "report",
    "scoring",
    "parsers",
    "models",
    "runner",
    "experiments",
    "mcp",
    "testing",
    "suite",
}


class _AfterAltair(importlib.abc.MetaPathFinder):
    """Imports ``tooleval_nb.charts`` right after ``altair``: importing it enables the one
    offline renderer (``tooleval_nb.charts.embed``), so a chart made with Altair directly in a
    notebook that imported tooleval_nb draws with no network too."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "altair":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        loader = spec.loader if spec is not None else None
        if loader is not None and hasattr(loader, "exec_module"):
            run = loader.exec_module

            def exec_module(module: Any) -> None:
                run(module)
                importlib.import_module("tooleval_nb.charts")

            loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "altair" in sys.modules:
    importlib.import_module("tooleval_nb.charts")
elif not any(isinstance(f, _AfterAltair) for f in sys.meta_path):
    sys.meta_path.insert(0, _AfterAltair())


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"tooleval_nb.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tooleval_nb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
