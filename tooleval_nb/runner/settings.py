"""A run's settings: the one definition of how a run asks its models.

:class:`RunSettings` holds everything about a run but the suite, the models and where it runs:
sampling, tool choice, prompts, case selection, repeats, limits, timeouts and retries. Every
entry point builds this one object: ``run_eval(suite, models, settings, **overrides)``, the CLI
and the report (:meth:`tooleval_nb.report.ReportParams.run_settings`), the run panel widget and
the experiments (:func:`tooleval_nb.experiments.evaluate.settings_for`). Its defaults are the
defaults everywhere; a test checks that the other entry points agree with them.

What is not a setting stays a keyword of ``run_eval``: the store, callbacks, the progress
display, the run's name, ``resume``, the agent and live-tool *objects* (the settings keep their
descriptions, to resume with) and the executor (:data:`JOB_OPTIONS`).

Tool choice: ``required`` by default, everywhere. The seed spec recommends it for testing: a model
that answers in text when a tool was expected scores 0 for a reason that says little about its tool
calling. Where a provider rejects ``required`` the call falls back to ``auto`` and the result
records the fallback. Pass ``tool_choice="auto"`` to measure what an agent in production sees.
"""

from __future__ import annotations

import difflib
import shlex
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..credentials import (
    credential_paths,
    is_credential_key,
    redact_command,
    refusal,
    url_credentials,
)
from ..models.spec import MODES, Mode
from ..parsers.protocol import Compat

__all__ = [
    "RunSettings",
    "ToolChoice",
    "ToolChoiceName",
    "TOOL_CHOICES",
    "DEFAULT_TOOL_CHOICE",
    "JOB_OPTIONS",
    "settings_problems",
]

#: the tool choices by name (a dict ``{"type": "function", "function": {"name": ...}}`` forces one
#: function)
ToolChoiceName = Literal["required", "auto", "none"]
TOOL_CHOICES: tuple[ToolChoiceName, ...] = get_args(ToolChoiceName)
ToolChoice = ToolChoiceName | dict[str, Any]
#: the default tool choice of every entry point (see the module docstring for why)
DEFAULT_TOOL_CHOICE: ToolChoiceName = "required"

#: ``run_eval`` keywords that are not settings: where and how the job runs, not what it asks
JOB_OPTIONS = (
    "store",
    "callbacks",
    "progress",
    "name",
    "resume",
    "agent",
    "live_tools",
    "executor",
)


class RunSettings(BaseModel):
    """The settings of one run (everything but the suite, the models and where it runs).

    Build one with keywords, or from another with :meth:`build` (``settings`` plus overrides).
    Stored with the run (``Run.settings``) and part of the configuration key that lets
    ``run_eval`` resume an interrupted identical run. So it holds no credential: an API key or
    an ``Authorization`` header in ``params`` (or a password in a ``live_tools`` URL) is refused,
    naming the safe way (see :mod:`tooleval_nb.credentials`); errors never echo the values.
    """

    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    #: sampling temperature sent with every request
    temperature: float = Field(default=0.0, ge=0.0)
    #: ``required`` (default; falls back to ``auto`` where a provider rejects it), ``auto``,
    #: ``none``, or a dict forcing one function
    tool_choice: ToolChoice = DEFAULT_TOOL_CHOICE
    #: after the suite's own system prompt: one for every model, or a dict keyed
    #: ``provider::model_id`` (or the model string)
    system_prompt: str | dict[str, str] | None = None
    #: evaluate only the cases with any of these tags
    tags: list[str] | None = None
    #: evaluate only the cases with these ids
    ids: list[str] | None = None
    #: concurrent cases per provider (a model's ``request_slots`` caps it: 1 for the embedded one)
    max_concurrency: int = Field(default=8, ge=1)
    #: the response cache: True (temperature 0 replies reused), False, "always", "refresh"
    cache: bool | Literal["always", "refresh"] = True
    #: how tools are offered to every model (None: each model's own mode)
    mode: Mode | None = None
    #: how raw-text modes read replies for every model: ``"default"`` or ``"vllm"`` (exactly
    #: as vLLM's ``--tool-call-parser`` of that name serves them); None: each model's own
    parser_compat: Compat | None = None
    #: samples per case
    repeats: int = Field(default=1, ge=1)
    #: one sampling seed per sample, sent as ``seed``
    seeds: list[int] | None = None
    #: overrides every case's ``max_rounds`` (multi-turn and agent loops)
    max_rounds: int | None = Field(default=None, ge=1)
    #: per-request timeout, seconds (None: the models module's default)
    timeout: float | None = Field(default=None, gt=0)
    #: per-case timeout, seconds, for cases that set none
    case_timeout: float | None = Field(default=None, gt=0)
    #: re-runs of a case whose model call or agent failed, for cases that set none
    retries: int = Field(default=0, ge=0)
    #: the request retry policy (``te.RetryPolicy`` or its fields); None: 4 tries with back-off
    retry: dict[str, Any] | None = None
    #: requests per minute per provider
    rpm: float | None = Field(default=None, gt=0)
    #: tokens per minute per provider
    tpm: float | None = Field(default=None, gt=0)
    #: extra sampling parameters for every model (top_p, max_tokens, ...)
    params: dict[str, Any] = Field(default_factory=dict)
    #: ``"module:function"`` of the agent callable, when it can be imported again on resume
    agent: str | None = None
    #: live tools for chains and agent loops (:mod:`.live`): an MCP target (URL or command
    #: line), ``"object:module:Class"`` for an executor object (not stored), or None (mocks)
    live_tools: str | list[str] | None = None
    #: seconds allowed for each live tool call (None: the MCP runner's default, 30 s)
    live_tool_timeout: float | None = Field(default=None, gt=0)
    #: evaluate draft cases too (by default they are skipped until a person accepts them)
    include_drafts: bool = False
    #: run the suite's code graders (Python the suite file names; see
    #: :mod:`tooleval_nb.suite.code`); False refuses them: those grades fail as refused, with
    #: the reason, and nothing is imported
    code_graders: bool = True

    @classmethod
    def build(
        cls, settings: RunSettings | Mapping[str, Any] | None = None, **overrides: Any
    ) -> RunSettings:
        """``settings`` (an object, a dict of fields, or None for the defaults) with
        ``overrides`` applied; every value is validated. Iterables of tags, ids and seeds are
        accepted as lists; ``params=None`` means none.

        Raises:
            TypeError: an override is not a setting (the valid names are listed).
            pydantic.ValidationError: a value is wrong (each field named).
        """
        unknown = sorted(set(overrides) - set(cls.model_fields))
        secret = [name for name in unknown if is_credential_key(name)]
        if secret:
            raise TypeError(refusal(secret, "run settings"))
        if unknown:
            names = [*cls.model_fields, *JOB_OPTIONS]
            hints = "".join(_nearest(name, names) for name in unknown)
            raise TypeError(
                f"unknown run setting(s) {', '.join(unknown)}{hints}; the settings are "
                f"{', '.join(cls.model_fields)} (and run_eval also takes "
                f"{', '.join(JOB_OPTIONS)})"
            )
        if settings is None:
            base: dict[str, Any] = {}
        elif isinstance(settings, RunSettings):
            if not overrides:
                return settings
            base = settings.model_dump(exclude_unset=True)
        elif isinstance(settings, Mapping):
            base = dict(settings)
        else:
            raise TypeError(
                f"settings must be a te.RunSettings or a dict of its fields, not "
                f"{type(settings).__name__}"
            )
        values = {**base, **overrides}
        for key in ("tags", "ids", "seeds"):
            value = values.get(key)
            if (
                value is not None
                and not isinstance(value, (str, list))
                and isinstance(value, Iterable)
            ):
                values[key] = list(value)
        if values.get("params", ()) is None:
            values.pop("params")
        return cls(**values)

    @field_validator("params")
    @classmethod
    def _no_credentials(cls, value: dict[str, Any]) -> dict[str, Any]:
        paths = credential_paths(value, "params")
        if paths:
            raise ValueError(refusal(paths, "run settings"))
        return value

    @field_validator("live_tools")
    @classmethod
    def _no_url_credentials(cls, value: str | list[str] | None) -> str | list[str] | None:
        if value is None:
            return value
        if isinstance(value, str) and value.strip().lower().startswith(("http://", "https://")):
            found = url_credentials(value)
            if found:
                raise ValueError(
                    f"live_tools: the URL holds {' and '.join(found)}, and run "
                    "settings are stored with the run; pass the credential as a "
                    "header instead: live_tools=te.MCPToolRunner(url, headers="
                    "{'Authorization': 'Bearer ...'}) (not stored)"
                )
            return value
        argv = shlex.split(value) if isinstance(value, str) else list(value)
        if redact_command(argv) != argv:
            raise ValueError(
                "live_tools: the command line holds a credential, and run settings "
                "are stored with the run; give it to the server in its "
                "environment instead: live_tools=te.MCPToolRunner(command, "
                "env={'NAME': ...}) (not stored)"
            )
        return value

    @field_validator("retry", mode="before")
    @classmethod
    def _policy(cls, value: Any) -> Any:
        return value.model_dump() if hasattr(value, "model_dump") else value

    @field_validator("mode", mode="before")
    @classmethod
    def _known_mode(cls, value: Any) -> Any:
        # one message instead of pydantic's one per literal branch of Mode
        if isinstance(value, str) and value not in MODES:
            raise ValueError(
                f"unknown mode {value!r}{_nearest(value, MODES)}; the modes are {', '.join(MODES)}"
            )
        return value

    @field_validator("tool_choice", mode="before")
    @classmethod
    def _known_tool_choice(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in TOOL_CHOICES:
            raise ValueError(
                f"unknown tool_choice {value!r}{_nearest(value, TOOL_CHOICES)}; use "
                f"{', '.join(TOOL_CHOICES)}, or a dict {{'type': 'function', "
                "'function': {'name': ...}} forcing one function"
            )
        return value

    @field_validator("tags", "ids", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _seeds(self) -> RunSettings:
        if self.seeds is not None:
            if not self.seeds:
                raise ValueError("seeds is an empty list; give one seed per repeat or None")
            if self.repeats == 1:
                self.repeats = len(self.seeds)
            elif len(self.seeds) < self.repeats:
                raise ValueError(
                    f"repeats={self.repeats} needs as many seeds, got "
                    f"{len(self.seeds)}; give more seeds or fewer repeats"
                )
        return self

    def seed_for(self, sample: int) -> int | None:
        return self.seeds[sample] if self.seeds else None


def _nearest(value: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or nothing."""
    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def settings_problems(exc: ValidationError) -> dict[str, list[str]]:
    """A settings validation error as problems keyed by field (for forms)."""
    problems: dict[str, list[str]] = {}
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else "settings"
        problems.setdefault(field, []).append(error["msg"])
    return problems


def positional_temperature(value: Any) -> dict[str, Any]:
    """A number passed where ``settings`` now stands: the temperature of the old signature."""
    warnings.warn(
        "run_eval(suite, models, <temperature>) is deprecated: pass "
        "temperature=... (the third argument is now the settings object)",
        DeprecationWarning,
        stacklevel=3,
    )
    return {"temperature": value}
