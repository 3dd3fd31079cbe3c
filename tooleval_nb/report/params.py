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

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from ..credentials import credential_paths, refusal, url_credentials
from ..errors import SuiteError, ToolEvalError
from ..formats.bundled import resolve_suite_path
from ..models.spec import DEFAULT_MODEL, Mode
from ..runner.settings import RunSettings, ToolChoiceName

__all__ = [
    "ReportParams",
    "validate_params",
    "params_from",
    "DEFAULT_TITLE",
    "DEFAULT_MODEL",
    "ENV_PARAMS",
    "Mode",
    "ToolChoice",
    "RUN_FIELDS",
    "PARAMETERS",
]

DEFAULT_TITLE = "Tool-calling evaluation report"
#: the environment variable whose JSON object overrides the template's parameters
ENV_PARAMS = "TOOLEVAL_REPORT_PARAMS"
ToolChoice = ToolChoiceName

#: the report parameters that are run settings: ``{parameter: RunSettings field}`` (a few are
#: named for the command line: ``request_timeout`` is ``timeout``, ``sample_seeds`` is ``seeds``,
#: ``sampling_params`` is ``params``). Their defaults are RunSettings' own.
RUN_FIELDS = {
    "temperature": "temperature",
    "tool_choice": "tool_choice",
    "tags": "tags",
    "ids": "ids",
    "system_prompt": "system_prompt",
    "max_rounds": "max_rounds",
    "cache": "cache",
    "max_concurrency": "max_concurrency",
    "repeats": "repeats",
    "sample_seeds": "seeds",
    "sampling_params": "params",
    "rpm": "rpm",
    "tpm": "tpm",
    "request_timeout": "timeout",
    "case_timeout": "case_timeout",
    "retries": "retries",
    "include_drafts": "include_drafts",
    "code_graders": "code_graders",
    "parser_compat": "parser_compat",
    "live_tools": "live_tools",
    "live_tool_timeout": "live_tool_timeout",
}
_FLAT_NAMES = {field: name for name, field in RUN_FIELDS.items()}
#: the highest temperature a report accepts (providers' common range is 0 to 2)
MAX_TEMPERATURE = 2.0


class ReportParams(BaseModel):
    """The parameters of a report (the ``parameters`` cell of the report notebook).

    The run settings among them are one :class:`~tooleval_nb.runner.settings.RunSettings`
    (``settings``), given and read by their parameter names (:data:`RUN_FIELDS`: papermill and
    the command line pass them flat, ``request_timeout=5``), and dumped flat again.

    What to report on:
        runs: Stored run ids to render, without one model call; empty: run ``suites`` first.
        suites: Suite files or directories; empty = the bundled suites (``data/``).
        models: litellm model names (``local/smollm2-135m`` is the embedded model).
        store: The SQLite run store (default: the runner's).

    How the suites run (``run_eval``'s options; unused when ``runs`` are given):
        api_base: An OpenAI-compatible endpoint for every model but the embedded one.
        ssl_verify / ssl_cert / max_response_bytes: that endpoint's TLS verification (True,
            False, or a CA bundle path), client certificate (a PEM file with its key) and the
            largest answer read (see docs/endpoints.md); stored with each model.
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
        code_graders: Run the Python the suites' code graders name (False: refused, graded
            as failed with the reason; ``--no-code-graders``).
        parser_compat: How raw-text replies are read: ``"default"`` (our parsers) or ``"vllm"``
            (exactly as vLLM serves that ``--tool-call-parser``); None: each model's own.
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
    ssl_verify: bool | str | None = None
    ssl_cert: str | None = None
    max_response_bytes: int | None = Field(default=None, ge=1024)
    mode: list[Mode] = Field(default_factory=lambda: list[Mode](["native"]), min_length=1)
    max_cases: int | None = Field(default=None, ge=1)
    name: str | None = None
    resume: bool = True
    agent: str | None = None
    title: str = DEFAULT_TITLE
    seed: int = 0
    worst: int = Field(default=10, ge=0)
    experiment: str | None = None
    #: the run settings (given and read by the names of :data:`RUN_FIELDS`)
    settings: RunSettings = Field(default_factory=RunSettings)

    @model_validator(mode="before")
    @classmethod
    def _gather_settings(cls, values: Any) -> Any:
        """Flat parameters (papermill's, the command line's) into ``settings``: comma lists of
        tags and ids split, one sample seed expanded to one per repeat."""
        if not isinstance(values, Mapping):
            return values
        values = dict(values)
        given = values.pop("settings", None)
        run: dict[str, Any] = (
            given.model_dump() if isinstance(given, RunSettings) else dict(given or {})
        )
        for name, field in RUN_FIELDS.items():
            if name in values:
                run[field] = values.pop(name)
        for field in ("tags", "ids"):
            if isinstance(run.get(field), str):
                run[field] = [v.strip() for v in run[field].split(",") if v.strip()]
        if run.get("params") is None:
            run.pop("params", None)
        paths = credential_paths(run.get("params") or {}, "sampling_params")
        if paths:  # before RunSettings sees it: the report's message names --api-key-env
            models = values.get("models") or [DEFAULT_MODEL]
            raise ValueError(
                refusal(
                    paths,
                    "report parameters",
                    [models] if isinstance(models, str) else models,
                    cli=True,
                )
            )
        seeds, repeats = run.get("seeds"), run.get("repeats", 1)
        if isinstance(seeds, list) and isinstance(repeats, int):
            if len(seeds) == 1 and repeats > 1:
                run["seeds"] = [seeds[0] + i for i in range(repeats)]
            elif seeds and len(seeds) != repeats:
                raise ValueError(
                    f"sample_seeds: {len(seeds)} seeds for {repeats} repeat(s); "
                    "give one seed (the samples get consecutive ones) or one per "
                    "repeat"
                )
        values["settings"] = run
        return values

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        settings = data.pop("settings")
        return {**data, **{name: settings[field] for name, field in RUN_FIELDS.items()}}

    def __getattr__(self, name: str) -> Any:
        """A run setting by its parameter name (``params.request_timeout``)."""
        field = RUN_FIELDS.get(name)
        if field is not None:
            return getattr(self.settings, field)
        return super().__getattr__(name)  # type: ignore[misc]

    @field_validator("runs", "suites", "models", "mode", mode="before")
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
                raise ValueError(
                    f"{name!r} is not a model name (litellm names look like "
                    f"'openai/gpt-4o-mini'; the embedded model is {DEFAULT_MODEL!r})"
                )
        return list(dict.fromkeys(value))

    @field_validator("agent")
    @classmethod
    def _agent(cls, value: str | None) -> str | None:
        if value is not None and ":" not in value:
            raise ValueError(f"{value!r} is not 'module:callable' (e.g. 'my_agents:run_case')")
        return value

    @field_validator("ssl_verify", mode="before")
    @classmethod
    def _verify_word(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"  # --ssl-verify false
        return value

    @field_validator("api_base")
    @classmethod
    def _no_url_credentials(cls, value: str | None) -> str | None:
        found = url_credentials(value) if value else []
        if found:
            raise ValueError(
                f"the URL holds {' and '.join(found)}; give the endpoint without "
                "it and the key with api_key_env (--api-key-env NAME)"
            )
        return value

    @model_validator(mode="after")
    def _report_rules(self) -> ReportParams:
        if self.settings.temperature > MAX_TEMPERATURE:
            raise ValueError(
                f"temperature: {self.settings.temperature} is above "
                f"{MAX_TEMPERATURE}; give a temperature from 0 to {MAX_TEMPERATURE}"
            )
        return self

    def run_settings(self) -> RunSettings:
        """The :class:`~tooleval_nb.runner.settings.RunSettings` these parameters ask for (the
        agent and the mode are given to ``run_eval`` beside it, per model)."""
        return self.settings


def _location(loc: tuple[Any, ...]) -> str:
    """A validation error's place, by parameter name (``settings.timeout`` is
    ``request_timeout``)."""
    if len(loc) > 1 and loc[0] == "settings":
        loc = (_FLAT_NAMES.get(str(loc[1]), loc[1]), *loc[2:])
    return ".".join(map(str, loc)) or "parameters"


#: every parameter name a report accepts (the template's ``parameters`` cell)
PARAMETERS: tuple[str, ...] = (
    *[n for n in ReportParams.model_fields if n != "settings"],
    *RUN_FIELDS,
)


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
        problems = [f"{_location(e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise ToolEvalError(
            "invalid report parameters:\n  - "
            + "\n  - ".join(problems)
            + f"\nfix them and run again (tooleval-nb {command} --help lists "
            "every option)"
        ) from None
    missing = [s for s in params.suites if not resolve_suite_path(s).exists()]
    if missing:
        raise SuiteError(
            f"suite path(s) not found: {', '.join(missing)}; give suite files "
            "(.json, .yaml) or folders of them with --suite",
            problems=[f"{m}: no such file or folder" for m in missing],
            path=missing[0],
        )
    return params


def params_from(
    namespace: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> ReportParams:
    """The parameters named in ``namespace`` (the template's globals), overridden by the JSON
    object in ``$TOOLEVAL_REPORT_PARAMS`` when it is set, then validated.

    Raises:
        ToolEvalError: the variable is not a JSON object, or a value is wrong.
    """
    values = {name: namespace[name] for name in PARAMETERS if name in namespace}
    text = (os.environ if environ is None else environ).get(ENV_PARAMS)
    if text:
        try:
            overrides = json.loads(text)
        except ValueError as exc:
            raise ToolEvalError(
                f"${ENV_PARAMS} is not JSON ({exc}); set it to an object such "
                'as {"max_cases": 1} or unset it'
            ) from None
        if not isinstance(overrides, dict):
            raise ToolEvalError(
                f"${ENV_PARAMS} must be a JSON object of report parameters, "
                f"not {type(overrides).__name__}"
            )
        values.update(overrides)
    return validate_params(**values)
