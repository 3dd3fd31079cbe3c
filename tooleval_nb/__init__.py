"""tooleval_nb: measure how well LLMs call tools, from a notebook.

The public API is re-exported here and loaded on first use, so that ``import tooleval_nb`` stays
light: pandas, altair and litellm load only when first needed, and importing it changes nothing
else in the process (no import hook, no renderer, no global setting).

    >>> import tooleval_nb as te
    >>> suite = te.load_suite("bundled:weather")
    >>> job = te.run_eval(suite, [te.DEFAULT_MODEL])

Each public name is written once, in the ``TYPE_CHECKING`` block below (``name as name``: the
typing spec's re-export), with the module that defines it; :mod:`tooleval_nb._lazy` reads that
block to load it on first use, and to make ``__all__`` and ``dir()``. Every subpackage is an
attribute too (``te.charts``, ``te.bfcl``, ``te.cli``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import attach

#: the version, written here only (pyproject.toml reads it: `dynamic = ["version"]`)
__version__ = "0.1.0"

if TYPE_CHECKING:  # the one list of public names; at run time _lazy.attach reads it
    from . import benchmark as benchmark
    from . import bfcl as bfcl
    from . import bfcl_rules as bfcl_rules
    from . import charts as charts
    from . import cli as cli
    from . import cluster as cluster
    from . import experiments as experiments
    from . import formats as formats
    from . import mcp as mcp
    from . import models as models
    from . import parsers as parsers
    from . import report as report
    from . import runner as runner
    from . import scoring as scoring
    from . import suite as suite
    from . import tau2 as tau2
    from . import testing as testing
    from . import widgets as widgets
    from .bfcl.run import BfclJob as BfclJob
    from .bfcl.run import BfclRun as BfclRun
    from .bfcl.run import run_bfcl as run_bfcl
    from .bfcl.run import run_bfcl_async as run_bfcl_async
    from .cluster import RayExecutor as RayExecutor
    from .cluster import shutdown_cluster as shutdown_cluster
    from .errors import ClusterError as ClusterError
    from .errors import EmbeddedModelError as EmbeddedModelError
    from .errors import ExperimentError as ExperimentError
    from .errors import JobCancelled as JobCancelled
    from .errors import JobError as JobError
    from .errors import MCPImportError as MCPImportError
    from .errors import ModelAuthError as ModelAuthError
    from .errors import ModelBadRequestError as ModelBadRequestError
    from .errors import ModelConfigError as ModelConfigError
    from .errors import ModelConnectionError as ModelConnectionError
    from .errors import ModelError as ModelError
    from .errors import ModelNotFoundError as ModelNotFoundError
    from .errors import ModelRateLimitError as ModelRateLimitError
    from .errors import ModelResponseError as ModelResponseError
    from .errors import ModelServerError as ModelServerError
    from .errors import ModelTimeoutError as ModelTimeoutError
    from .errors import ParserError as ParserError
    from .errors import RegexTimeoutError as RegexTimeoutError
    from .errors import ScoringError as ScoringError
    from .errors import StoreError as StoreError
    from .errors import SuiteError as SuiteError
    from .errors import ToolEvalError as ToolEvalError
    from .experiments import DEFAULT_SPACE as DEFAULT_SPACE
    from .experiments import DEFAULT_SYSTEM_PROMPT as DEFAULT_SYSTEM_PROMPT
    from .experiments import TOOL_RULES as TOOL_RULES
    from .experiments import BestRecord as BestRecord
    from .experiments import Budget as Budget
    from .experiments import Config as Config
    from .experiments import Experiment as Experiment
    from .experiments import FewShot as FewShot
    from .experiments import JudgeReport as JudgeReport
    from .experiments import PromptTune as PromptTune
    from .experiments import Space as Space
    from .experiments import Split as Split
    from .experiments import Sweep as Sweep
    from .experiments import estimate_async as estimate_async
    from .experiments import judge_report as judge_report
    from .experiments import judge_report_async as judge_report_async
    from .experiments import space as space
    from .experiments import sweep_async as sweep_async
    from .experiments import tune_prompt as tune_prompt
    from .experiments import tune_prompt_async as tune_prompt_async
    from .experiments import uniform as uniform
    from .experiments.compare import compare as compare
    from .experiments.estimate import estimate as estimate
    from .experiments.experiment import experiment as experiment
    from .experiments.split import split as split
    from .experiments.sweep.run import sweep as sweep
    from .formats import example_suite as example_suite
    from .formats import load_bfcl as load_bfcl
    from .formats import load_suite as load_suite
    from .formats import load_suites as load_suites
    from .formats import save_bfcl as save_bfcl
    from .formats import save_suite as save_suite
    from .mcp import LiveToolResult as LiveToolResult
    from .mcp import MCPImportWarning as MCPImportWarning
    from .mcp import MCPTarget as MCPTarget
    from .mcp import MCPToolRunner as MCPToolRunner
    from .mcp import ToolExecutor as ToolExecutor
    from .mcp import accept_drafts as accept_drafts
    from .mcp import discard_drafts as discard_drafts
    from .mcp import draft_cases as draft_cases
    from .mcp import draft_cases_async as draft_cases_async
    from .mcp import import_mcp as import_mcp
    from .mcp import import_mcp_async as import_mcp_async
    from .mcp import list_tools_async as list_tools_async
    from .models import DEFAULT_MODEL as DEFAULT_MODEL
    from .models import EmbeddedServer as EmbeddedServer
    from .models import ModelReply as ModelReply
    from .models import ModelSpec as ModelSpec
    from .models import ResponseCache as ResponseCache
    from .models import RetryPolicy as RetryPolicy
    from .models import build_messages as build_messages
    from .models import call_model as call_model
    from .models import call_model_async as call_model_async
    from .models import embed as embed
    from .models import embed_async as embed_async
    from .models import embedded_server as embedded_server
    from .models import system_prompt_for as system_prompt_for
    from .parsers import PARSER_FORMATS as PARSER_FORMATS
    from .parsers import DeltaFunctionCall as DeltaFunctionCall
    from .parsers import DeltaMessage as DeltaMessage
    from .parsers import DeltaToolCall as DeltaToolCall
    from .parsers import ExtractedToolCallInformation as ExtractedToolCallInformation
    from .parsers import ParserCase as ParserCase
    from .parsers import ParserCorpus as ParserCorpus
    from .parsers import ParserFormat as ParserFormat
    from .parsers import StreamingToolReconstructor as StreamingToolReconstructor
    from .parsers import ToolParser as ToolParser
    from .parsers import check_parser as check_parser
    from .parsers import example_exchange as example_exchange
    from .parsers import get_parser as get_parser
    from .parsers import load_corpus as load_corpus
    from .parsers import parse_tool_calls as parse_tool_calls
    from .parsers import render_tool_calls as render_tool_calls
    from .parsers import render_tools_prompt as render_tools_prompt
    from .parsers import repair_tool_call as repair_tool_call
    from .parsers import repair_tool_calls as repair_tool_calls
    from .parsers import with_tools_prompt as with_tools_prompt
    from .report import ReportFiles as ReportFiles
    from .report import ReportParams as ReportParams
    from .report import build_report as build_report
    from .runner import TOOL_CHOICES as TOOL_CHOICES
    from .runner import Job as Job
    from .runner import Run as Run
    from .runner import RunSettings as RunSettings
    from .runner import Store as Store
    from .runner import ToolChoice as ToolChoice
    from .runner import delete_run as delete_run
    from .runner import load_run as load_run
    from .runner import resume as resume
    from .runner import run_eval as run_eval
    from .runner import run_eval_async as run_eval_async
    from .runner import subscribe as subscribe
    from .runner.history import history as history
    from .scoring import FAILURE_MODES as FAILURE_MODES
    from .scoring import SCORE_COLUMNS as SCORE_COLUMNS
    from .scoring import BfclVerdict as BfclVerdict
    from .scoring import CaseScore as CaseScore
    from .scoring import GradeResult as GradeResult
    from .scoring import Trace as Trace
    from .scoring import bfcl_check as bfcl_check
    from .scoring import check_expectations as check_expectations
    from .scoring import compute_overall as compute_overall
    from .scoring import match_value as match_value
    from .scoring import score_case as score_case
    from .scoring import score_case_async as score_case_async
    from .scoring import score_cases as score_cases
    from .scoring import score_cases_async as score_cases_async
    from .scoring import score_params as score_params
    from .scoring import score_tool_selection as score_tool_selection
    from .scoring import scores_df as scores_df
    from .scoring import trajectory_match as trajectory_match
    from .suite import EvalCase as EvalCase
    from .suite import Expectations as Expectations
    from .suite import ExpectedCall as ExpectedCall
    from .suite import FunctionDef as FunctionDef
    from .suite import GraderSpec as GraderSpec
    from .suite import ReferenceTool as ReferenceTool
    from .suite import ScoringConfig as ScoringConfig
    from .suite import Suite as Suite
    from .suite import Tool as Tool
    from .suite import case_problems as case_problems
    from .tau2.outcome import Tau2Run as Tau2Run
    from .tau2.replay import replay_tau2 as replay_tau2
    from .tau2.rescore import rescore_tau2 as rescore_tau2
    from .tau2.run import Tau2Job as Tau2Job
    from .tau2.run import run_tau2 as run_tau2
    from .tau2.run import run_tau2_async as run_tau2_async
    from .toolcall import FunctionCall as FunctionCall
    from .toolcall import ToolCall as ToolCall
    from .toolcall import to_tool_calls as to_tool_calls
    from .widgets import ResultsExplorer as ResultsExplorer
    from .widgets import RunPanel as RunPanel
    from .widgets import SuiteEditor as SuiteEditor
    from .widgets import SweepForm as SweepForm
    from .widgets import sweep_form as sweep_form

if not TYPE_CHECKING:  # hidden from type checkers: they read the block above as plain imports
    __getattr__, __dir__, __all__ = attach(__name__)
