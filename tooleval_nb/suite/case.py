"""Evaluation cases: one model that carries every field of both specs.

* seed ``tool-eval-framework.md``: ``prompt``, ``expected_tool`` (string, list or null),
  ``expected_params``, ``param_scoring``, ``scoring_config``, ``multi_turn``, ``max_rounds``,
  ``optimal_hops``, ``valid_prerequisites``, ``mock_responses``;
* seed ``agent-test-cases.md``: ``name``, ``input`` (the same text as ``prompt``), the whole
  ``expected`` block, ``graders``, ``description``, ``timeout``, ``retries``, ``tags``,
  ``metadata``, ``reference_output``, ``reference_tools``;
* parallel calls: ``expected_calls``, several calls expected in one answer, each parameter with a
  list of acceptable values (BFCL style; ``""`` among them means "may be omitted");
* BFCL and prior turns: ``messages`` (a whole conversation), ``tools`` (the case's own tools),
  ``category``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .tool import Tool

__all__ = [
    "ParamScoring",
    "TrajectoryMode",
    "ArgsMode",
    "ExpectedCall",
    "ScoringConfig",
    "Expectations",
    "GraderSpec",
    "ReferenceTool",
    "EvalCase",
]

#: The parameter scoring modes (seed 001 plus fuzzy and semantic).
ParamScoring = Literal[
    "exact", "case_insensitive", "contains", "numeric_tolerance", "regex", "fuzzy", "semantic"
]
#: Trajectory match modes for agent cases (as LangChain agentevals has).
TrajectoryMode = Literal["strict", "unordered", "subset", "superset"]
#: Argument match modes for trajectory matching.
ArgsMode = Literal["exact", "ignore", "subset", "superset"]


class ExpectedCall(BaseModel):
    """One expected call among several (parallel calls).

    ``arguments`` maps each parameter to a *list of acceptable values* (BFCL style); ``""`` among
    them means the parameter may be left out. Parameters not listed are not checked by the
    scores (BFCL verdicts reject them).
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, list[Any]] = Field(default_factory=dict)

    @field_validator("arguments", mode="before")
    @classmethod
    def _wrap(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (v if isinstance(v, list) else [v]) for k, v in value.items()}
        return value


class ScoringConfig(BaseModel):
    """A case's ``scoring_config``: the match mode's options, and a mode per parameter; unknown
    keys are kept."""

    model_config = ConfigDict(extra="allow")

    mode: ParamScoring | None = None
    epsilon: float | None = None
    threshold: float | None = None
    #: a scoring mode per parameter name, overriding ``mode`` for that parameter
    param_modes: dict[str, ParamScoring] | None = None
    #: embedding model for ``semantic`` mode (any litellm embedding model; default offline)
    embedding_model: str | None = None
    #: time bound for ``regex`` mode, seconds
    regex_timeout: float | None = None


class Expectations(BaseModel):
    """The ``expected`` block of an agent case: what the run must (not) call and answer, and
    its trajectory compared with ``reference_tools``."""

    model_config = ConfigDict(extra="forbid")

    tools_called: list[str] | None = None
    tools_not_called: list[str] | None = None
    tool_call_order: list[str] | None = None
    output_contains: list[str] | None = None
    output_not_contains: list[str] | None = None
    output_equals: str | None = None
    output_matches: str | None = None
    max_steps: int | None = Field(default=None, ge=0)
    min_steps: int | None = Field(default=None, ge=0)
    task_completed: bool | None = None
    #: compare the tool trajectory with ``reference_tools`` in this mode
    trajectory_match: TrajectoryMode | None = None
    trajectory_args: ArgsMode = "exact"

    @field_validator(
        "tools_called",
        "tools_not_called",
        "tool_call_order",
        "output_contains",
        "output_not_contains",
        mode="before",
    )
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class GraderSpec(BaseModel):
    """A grader of a case: ``type: llm`` (a judge model: prompt, model, threshold) or
    ``type: code`` (a Python ``function`` in ``module``, given the trace and the case, returning a
    ``GradeResult``)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["llm", "code"]
    prompt: str | None = None
    model: str | None = None
    threshold: float | None = None
    module: str | None = None
    function: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _check(self) -> GraderSpec:
        if self.type == "llm" and not self.prompt:
            raise ValueError("an llm grader needs a prompt; add the judge's instructions")
        if self.type == "code" and not (self.module and self.function):
            raise ValueError(
                "a code grader needs module and function; name the Python "
                "module and the function in it"
            )
        return self


class ReferenceTool(BaseModel):
    """One step of a case's ``reference_tools`` sequence (the trajectory a good agent takes)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class EvalCase(BaseModel):
    """One evaluation case: a prompt and what a good answer does with the tools (every field is
    described in the manual's "Writing suites and cases").

    What is sent: :attr:`messages` when set (a whole conversation; ``prompt`` may then be empty),
    else ``prompt`` as one user message; :meth:`to_messages` builds it. What is expected: no call
    when ``expected_tool``, ``expected_calls`` and ``expected`` are all unset; one call from
    ``expected_tool``/``expected_params``; several from ``expected_calls``
    (:meth:`expected_call_list` gives either as a list); an agent run from ``expected``.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    __test__ = False  # not a pytest class

    id: str | None = None
    name: str | None = None
    prompt: str = Field(default="", validation_alias="prompt")
    #: a full conversation instead of ``prompt`` (BFCL questions, prior turns); OpenAI messages
    messages: list[dict[str, Any]] | None = None
    #: tools offered for this case only (BFCL entries carry their own); None = the suite's tools
    tools: list[Tool] | None = None

    expected_tool: str | list[str] | None = None
    expected_params: dict[str, Any] | None = None
    expected_calls: list[ExpectedCall] | None = None
    param_scoring: ParamScoring = "exact"
    scoring_config: ScoringConfig | None = None

    multi_turn: bool = False
    max_rounds: int = Field(default=5, ge=1)
    optimal_hops: int | None = Field(default=None, ge=1)
    valid_prerequisites: list[str] | None = None
    mock_responses: dict[str, Any] | None = None

    expected: Expectations | None = None
    graders: list[GraderSpec] = Field(default_factory=list)
    description: str | None = None
    timeout: float | None = Field(default=None, gt=0)
    retries: int = Field(default=0, ge=0)
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    reference_output: str | None = None
    reference_tools: list[ReferenceTool] | None = None

    #: BFCL category (simple, multiple, parallel, parallel_multiple, irrelevance, live_*, ...)
    category: str | None = None
    #: a draft written by a model (e.g. from MCP import); never scored until accepted
    draft: bool = False

    @model_validator(mode="before")
    @classmethod
    def _input_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "input" in data:
            data = dict(data)
            text = data.pop("input")
            if data.get("prompt") not in (None, "", text):
                raise ValueError(
                    "field input: give either 'prompt' or 'input', not two different texts"
                )
            data["prompt"] = text
        if isinstance(data, dict) and isinstance(data.get("tags"), str):
            data = {**data, "tags": [t.strip() for t in data["tags"].split(",") if t.strip()]}
        return data

    @model_validator(mode="after")
    def _check(self) -> EvalCase:
        if not self.prompt and not self.messages:
            raise ValueError(
                "field prompt: a case needs a prompt (or input, or messages); add the user's text"
            )
        if (
            self.expected_params is not None
            and self.expected_tool is None
            and not self.expected_calls
        ):
            raise ValueError(
                "field expected_params: set but expected_tool is null; name the tool "
                "the parameters belong to, or remove expected_params"
            )
        if self.expected_tool is not None and self.expected_calls:
            names = {n.lower() for n in self.expected_names()}
            if any(c.name.lower() not in names for c in self.expected_calls):
                raise ValueError(
                    "field expected_calls: expected_tool and expected_calls name "
                    "different tools; give expected_calls alone for several calls"
                )
        if self.multi_turn and not self.expected_call_list():
            raise ValueError(
                "field multi_turn: true but no final tool is expected; set "
                "expected_tool to the tool the chain must reach"
            )
        if self.optimal_hops is not None and self.optimal_hops > self.max_rounds:
            raise ValueError(
                f"field optimal_hops: {self.optimal_hops} exceeds max_rounds "
                f"({self.max_rounds}); raise max_rounds or lower optimal_hops"
            )
        return self

    @property
    def input(self) -> str:
        """Another name of :attr:`prompt` (the YAML format's ``input``)."""
        return self.prompt

    @property
    def prompt_text(self) -> str:
        """The user's text: :attr:`prompt`, else the last user message of :attr:`messages`."""
        return self.prompt or _last_user(self.messages)

    def to_messages(self, system_prompt: str | None = None) -> list[dict[str, Any]]:
        """The conversation to send: :attr:`messages` when set, else one user message.

        ``system_prompt`` (the suite's) comes first; when the conversation already starts with a
        system message, the suite's text is put before that message's text (as BFCL does).
        """
        if self.messages:
            msgs = [dict(m) for m in self.messages]
        else:
            msgs = [{"role": "user", "content": self.prompt}]
        if system_prompt:
            if msgs and msgs[0].get("role") == "system":
                msgs[0]["content"] = f"{system_prompt}\n\n{msgs[0].get('content') or ''}"
            else:
                msgs.insert(0, {"role": "system", "content": system_prompt})
        return msgs

    @property
    def label(self) -> str:
        """How messages refer to this case: its name, else its id."""
        return self.name or self.id or "?"

    def expected_names(self) -> list[str]:
        """The acceptable tool names of the (single) expected call; [] when none is expected."""
        if self.expected_tool is None:
            return [c.name for c in self.expected_calls or []][:1]
        if isinstance(self.expected_tool, str):
            return [self.expected_tool]
        return list(self.expected_tool)

    def expected_call_list(self) -> list[ExpectedCall]:
        """Every expected call: ``expected_calls``, else the one from expected_tool/params."""
        if self.expected_calls:
            return list(self.expected_calls)
        names = self.expected_names()
        if not names:
            return []
        return [
            ExpectedCall(
                name=names[0], arguments={k: [v] for k, v in (self.expected_params or {}).items()}
            )
        ]

    def expected_tool_names(self) -> set[str]:
        """Every tool name this case's expectations mention (for cross-checks)."""
        return {name for _, name in self.tool_mentions()}

    def tool_mentions(self) -> list[tuple[str, str]]:
        """``(field, tool name)`` for every tool name the expectations mention, in field order."""
        out: list[tuple[str, str]] = []
        if isinstance(self.expected_tool, str):
            out.append(("expected_tool", self.expected_tool))
        elif self.expected_tool is not None:
            out += [(f"expected_tool[{i}]", n) for i, n in enumerate(self.expected_tool)]
        out += [
            (f"expected_calls[{i}].name", c.name) for i, c in enumerate(self.expected_calls or [])
        ]
        out += [
            (f"valid_prerequisites[{i}]", n) for i, n in enumerate(self.valid_prerequisites or [])
        ]
        out += [(f"mock_responses.{n}", n) for n in self.mock_responses or {}]
        if self.expected:
            for field in ("tools_called", "tools_not_called", "tool_call_order"):
                out += [
                    (f"expected.{field}[{i}]", n)
                    for i, n in enumerate(getattr(self.expected, field) or [])
                ]
        out += [
            (f"reference_tools[{i}].name", t.name) for i, t in enumerate(self.reference_tools or [])
        ]
        return out

    def expected_arguments(self) -> list[tuple[str, str, dict[str, list[Any]]]]:
        """``(field, tool name, {param: acceptable values})`` for every argument expectation."""
        out: list[tuple[str, str, dict[str, list[Any]]]] = []
        if self.expected_params and self.expected_tool is not None:
            names = self.expected_names()
            out.append(
                ("expected_params", names[0], {k: [v] for k, v in self.expected_params.items()})
            )
        out += [
            (f"expected_calls[{i}].arguments", c.name, c.arguments)
            for i, c in enumerate(self.expected_calls or [])
        ]
        out += [
            (f"reference_tools[{i}].args", t.name, {k: [v] for k, v in t.args.items()})
            for i, t in enumerate(self.reference_tools or [])
        ]
        return out


def _last_user(messages: list[dict[str, Any]] | None) -> str:
    for m in reversed(messages or []):
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, str):
            return content
    return ""
