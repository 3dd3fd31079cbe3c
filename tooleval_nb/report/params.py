"""A report's parameters: one pydantic model for the notebook's ``parameters`` cell, the CLI and
:func:`~tooleval_nb.report.build_report`, validated all at once before anything runs.

The defaults here are the defaults everywhere: the template's parameters cell and the CLI's
options are tested to equal them.

``TOOLEVAL_REPORT_PARAMS`` (JSON: an object of these fields) overrides the parameters of the
template when it is executed on its own (nbval in CI, "Run All" by hand): ``build_report`` does not
pass it on to the notebook it executes, so its own parameters always win there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..credentials import credential_paths, refusal, url_credentials
from ..errors import SuiteError, ToolEvalError
from ..formats.bundled import resolve_suite_path
from ..models.spec import DEFAULT_MODEL, Mode
from ..runner.settings import RunSettings, ToolChoiceName

__all__ = ["ReportParams", "validate_params", "params_from", "DEFAULT_TITLE", "DEFAULT_MODEL",
           "ENV_PARAMS", "Mode", "ToolChoice", "RUN_FIELDS"]

DEFAULT_TITLE = "Tool-calling evaluation report"
#: the environment variable whose JSON object overrides the template's parameters
ENV_PARAMS = "TOOLEVAL_REPORT_PARAMS"
ToolChoice = ToolChoiceName

#: the report parameters that are run settings: ``{parameter: RunSettings field}`` (a few are
#: named for the command line: ``request_timeout`` is ``timeout``, ``sample_seeds`` is ``seeds``,
#: ``sampling_params`` is ``params``). Their defaults are RunSettings' own.
RUN_FIELDS = {"temperature": "temperature", "tool_choice": "tool_choice",
              "tags": "tags", "ids": "ids", "system_prompt": "system_prompt",
              "max_rounds": "max_rounds", "cache": "cache", "max_concurrency": "max_concurrency",
              "repeats": "repeats", "sample_seeds": "seeds", "sampling_params": "params",
              "rpm": "rpm", "tpm": "tpm", "request_timeout": "timeout",
              "case_timeout": "case_timeout", "retries": "retries",
              "include_drafts": "include_drafts", "live_tools": "live_tools",
              "live_tool_timeout": "live_tool_timeout"}
_RUN = RunSettings()


class ReportParams(BaseModel):
    """The parameters of a report (the ``parameters`` cell of the report notebook).

    What to report on:
        runs: Stored run ids to render, without one model call; empty: run ``suites`` first.
        suites: Suite files or directories; empty = the bundled suites (``data/``).
        models: litellm model names (``local/smollm2-135m`` is the embedded model).
        store: The SQLite run store (default: the runner's).

    How the suites run (``run_eval``'s options; unused when ``runs`` are given):
        api_base: An OpenAI-compatible endpoint for every model but the embedded one.
        api_key_env: The name of an environment variable holding the API key of every model
            but the embedded one (read when the models are called; only the name is stored).
            No parameter holds a key: these parameters go into the report notebook, so a
            credential in ``sampling_params`` is refused.
        temperature, tool_choice: Sent with every request.
        mode: How tools are offered; several modes run every model once per mode.
        max_cases: Keep at most this many cases per suite (after the tag filter).
        tags / ids: Keep only cases having any of these tags / these ids.
        system_prompt: A system prompt for every model (else each suite's own).
        max_rounds: Bound the rounds of multi-turn chains and agent loops (None: each case's).
        cache: Reuse model replies from the on-disk response cache (temperature 0).
        max_concurrency: Concurrent cases per provider.
        repeats: Samples per case; ``sample_seeds`` their sampling seeds (one per sample).
        sampling_params: Extra sampling parameters for every model (top_p, max_tokens, ...):
            ``run_eval``'s ``params``.
        rpm / tpm: Requests / tokens per minute per provider.
        request_timeout / case_timeout: Seconds per request / per case; ``retries`` re-runs of
            an errored case.
        name: The runs' label in the history; ``resume``: finish an interrupted identical run.
        include_drafts: Run draft cases too.
        live_tools / live_tool_timeout: Answer chains' tool calls with an MCP server's tools.
        agent: ``module:callable`` of an agent that runs every case instead of the built-in loop.

    How the report looks:
        title: The report's title. seed: unused (the intervals are Wilson / t). worst: How many
        worst cases to list. experiment: The name of an experiment in ``store`` to add as a
        section (its timeline, best config and baseline); None: no experiment section.
    """

    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    runs: list[str] = Field(default_factory=list)
    suites: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=lambda: [DEFAULT_MODEL], min_length=1)
    store: str | None = None
    api_base: str | None = None
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    temperature: float = Field(default=_RUN.temperature, ge=0.0, le=2.0)
    tool_choice: ToolChoice = _RUN.tool_choice  # type: ignore[assignment]
    mode: list[Mode] = Field(default_factory=lambda: list[Mode](["native"]), min_length=1)
    max_cases: int | None = Field(default=None, ge=1)
    tags: list[str] | None = None
    ids: list[str] | None = None
    system_prompt: str | None = None
    max_rounds: int | None = Field(default=_RUN.max_rounds, ge=1)
    cache: bool = bool(_RUN.cache)
    max_concurrency: int = Field(default=_RUN.max_concurrency, ge=1)
    repeats: int = Field(default=_RUN.repeats, ge=1)
    sample_seeds: list[int] | None = None
    sampling_params: dict[str, Any] = Field(default_factory=dict)
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)
    request_timeout: float | None = Field(default=None, gt=0)
    case_timeout: float | None = Field(default=None, gt=0)
    retries: int = Field(default=_RUN.retries, ge=0)
    name: str | None = None
    resume: bool = True
    include_drafts: bool = _RUN.include_drafts
    live_tools: str | None = None
    live_tool_timeout: float | None = Field(default=None, gt=0)
    agent: str | None = None
    title: str = DEFAULT_TITLE
    seed: int = 0
    worst: int = Field(default=10, ge=0)
    experiment: str | None = None

    @field_validator("runs", "suites", "models", "tags", "ids", "mode", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return list(value) if isinstance(value, tuple) else value

    @field_validator("models")
    @classmethod
    def _models(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name.strip() or any(c.isspace() for c in name):
                raise ValueError(f"{name!r} is not a model name (litellm names look like "
                                 f"'openai/gpt-4o-mini'; the embedded model is {DEFAULT_MODEL!r})")
        return list(dict.fromkeys(value))

    @field_validator("agent")
    @classmethod
    def _agent(cls, value: str | None) -> str | None:
        if value is not None and ":" not in value:
            raise ValueError(f"{value!r} is not 'module:callable' (e.g. 'my_agents:run_case')")
        return value

    @field_validator("api_base")
    @classmethod
    def _no_url_credentials(cls, value: str | None) -> str | None:
        found = url_credentials(value) if value else []
        if found:
            raise ValueError(f"the URL holds {' and '.join(found)}; give the endpoint without "
                             "it and the key with api_key_env (--api-key-env NAME)")
        return value

    @model_validator(mode="after")
    def _no_credentials(self) -> ReportParams:
        paths = credential_paths(self.sampling_params, "sampling_params")
        if paths:
            raise ValueError(refusal(paths, "report parameters", self.models, cli=True))
        return self

    def run_settings(self) -> RunSettings:
        """The :class:`~tooleval_nb.runner.settings.RunSettings` these parameters ask for (the
        agent and the mode are given to ``run_eval`` beside it, per model)."""
        values = {field: getattr(self, name) for name, field in RUN_FIELDS.items()}
        values["params"] = values["params"] or {}
        return RunSettings(**values)

    @model_validator(mode="after")
    def _seeds(self) -> ReportParams:
        seeds = self.sample_seeds
        if seeds is not None and len(seeds) == 1 and self.repeats > 1:
            self.sample_seeds = [seeds[0] + i for i in range(self.repeats)]
        elif seeds is not None and len(seeds) != self.repeats:
            raise ValueError(f"sample_seeds: {len(seeds)} seeds for {self.repeats} repeat(s); "
                             "give one seed (the samples get consecutive ones) or one per repeat")
        return self


def validate_params(*, command: str = "report", **values: Any) -> ReportParams:
    """Check report parameters; every problem is reported at once.

    A value of None means the default. ``command``: the CLI command whose options these are
    (its ``--help`` is named in the message).

    Raises:
        ToolEvalError: a parameter has a wrong value (each named, with what is allowed).
        SuiteError: a suite path does not exist.
    """
    values = {k: v for k, v in values.items() if v is not None}
    try:
        params = ReportParams(**values)
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc'])) or 'parameters'}: {e['msg']}"
                    for e in exc.errors()]
        raise ToolEvalError("invalid report parameters:\n  - " + "\n  - ".join(problems)
                            + f"\nfix them and run again (tooleval-nb {command} --help lists "
                              "every option)") from None
    missing = [s for s in params.suites if not resolve_suite_path(s).exists()]
    if missing:
        raise SuiteError(f"suite path(s) not found: {', '.join(missing)}; give suite files "
                         "(.json, .yaml) or folders of them with --suite",
                         problems=[f"{m}: no such file or folder" for m in missing],
                         path=missing[0])
    return params


def params_from(namespace: Mapping[str, Any],
                environ: Mapping[str, str] | None = None) -> ReportParams:
    """The parameters named in ``namespace`` (the template's globals), overridden by the JSON
    object in ``$TOOLEVAL_REPORT_PARAMS`` when it is set, then validated.

    Raises:
        ToolEvalError: the variable is not a JSON object, or a value is wrong.
    """
    values = {name: namespace[name] for name in ReportParams.model_fields if name in namespace}
    text = (os.environ if environ is None else environ).get(ENV_PARAMS)
    if text:
        try:
            overrides = json.loads(text)
        except ValueError as exc:
            raise ToolEvalError(f"${ENV_PARAMS} is not JSON ({exc}); set it to an object such "
                                'as {"max_cases": 1} or unset it') from None
        if not isinstance(overrides, dict):
            raise ToolEvalError(f"${ENV_PARAMS} must be a JSON object of report parameters, "
                                f"not {type(overrides).__name__}")
        values.update(overrides)
    return validate_params(**values)
