"""The judge's LLM layers, as pure functions: prompts, JSON parsing and validation, and the
rule-based synthesis that stands in when the judge fails.

Nothing here calls a model. A reply that does not parse into the schema is ``unscored`` (never a
fail); numbers written by the judge are removed from its text, because every figure a report shows
comes from the facts (:mod:`.judge_facts`).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..calls import actual_calls_of, expected_calls_of
from ..llm_call import extract_json
from .facts import FAILURE_MODES

if TYPE_CHECKING:  # pragma: no cover
    from .facts import Facts

__all__ = [
    "PROMPT_VERSION",
    "Verdict",
    "Synthesis",
    "Finding",
    "Recommendation",
    "VERDICT_SCHEMA",
    "SYNTHESIS_SCHEMA",
    "PAIRWISE_SCHEMA",
    "parse_verdict",
    "parse_synthesis",
    "parse_pairwise",
    "verdict_messages",
    "synthesis_messages",
    "pairwise_messages",
    "rule_synthesis",
    "strip_numbers",
    "validate_synthesis",
    "MODE_TITLES",
]

PROMPT_VERSION = "judge-v1"
FixKind = Literal["prompt", "parameter", "tool_description", "test_case", "model_capability"]
_MODES = (*FAILURE_MODES,)


class Verdict(BaseModel):
    """One judge verdict on a failed case (the JSON schema the judge must follow)."""

    model_config = ConfigDict(extra="ignore")

    case_id: str
    failure_mode: Literal[_MODES]  # type: ignore[valid-type]
    root_cause: str = Field(max_length=400)
    scorer_wrong: bool = False
    scorer_wrong_reason: str | None = Field(default=None, max_length=400)
    fix_kind: FixKind
    fix: str = Field(max_length=400)
    confidence: int = Field(ge=1, le=5)

    @field_validator("root_cause", "fix", "scorer_wrong_reason", mode="before")
    @classmethod
    def _trim(cls, value: Any) -> Any:
        return value[:400] if isinstance(value, str) else value


class Finding(BaseModel):
    model_config = ConfigDict(extra="ignore")

    title: str
    failure_mode: str
    case_ids: list[str] = Field(default_factory=list)
    explanation: str = ""


class Recommendation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    kind: FixKind
    action: str
    expected_effect: str = ""
    case_ids: list[str] = Field(default_factory=list)


class Synthesis(BaseModel):
    """The report's narrative: headline, findings, recommendations, caveats."""

    model_config = ConfigDict(extra="ignore")

    headline: str
    findings: list[Finding] = Field(default_factory=list)
    recommendations: list[Recommendation] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)

    @field_validator("caveats", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


#: the verdict schema sent to the judge (prompt and grammar). Kept grammar-friendly on purpose:
#: no ``maxLength`` (llama.cpp expands ``{0,400}`` into a grammar so large that a 135M judge
#: took ~100 s a verdict; :class:`Verdict` trims long texts instead), no ``case_id`` (the caller
#: sets it), and the closed fields first, so a reply cut short still has its decisions.
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "failure_mode": {"enum": list(_MODES)},
        "confidence": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
        "scorer_wrong": {"type": "boolean"},
        "fix_kind": {"enum": list(FixKind.__args__)},  # type: ignore[attr-defined]
        "root_cause": {"type": "string"},
        "fix": {"type": "string"},
        "scorer_wrong_reason": {"type": "string"},
    },
    "required": ["failure_mode", "confidence", "scorer_wrong", "fix_kind", "root_cause", "fix"],
}
SYNTHESIS_SCHEMA: dict[str, Any] = Synthesis.model_json_schema()
PAIRWISE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["winner"],
    "properties": {"winner": {"enum": ["A", "B", "tie"]}, "reason": {"type": "string"}},
}


# -- parsing -----------------------------------------------------------------------------------
def parse_verdict(text: str | None, case_id: str) -> tuple[Verdict | None, str | None]:
    """A validated verdict for ``case_id``, or (None, why it is unscored)."""
    data = extract_json(text)
    if not isinstance(data, dict):
        return None, "reply is not a JSON object"
    data = {**data, "case_id": case_id}  # the judge may not rename the case
    try:
        return Verdict.model_validate(data), None
    except ValidationError as exc:
        return None, f"reply does not match the verdict schema: {exc.errors()[0]['msg']}"


def parse_synthesis(text: str | None) -> tuple[Synthesis | None, str | None]:
    data = extract_json(text)
    if not isinstance(data, dict):
        return None, "synthesis reply is not a JSON object"
    try:
        return Synthesis.model_validate(data), None
    except ValidationError as exc:
        return None, f"synthesis does not match the schema: {exc.errors()[0]['msg']}"


def parse_pairwise(text: str | None) -> str | None:
    """``"A"``, ``"B"``, ``"tie"`` or None when the reply does not say."""
    data = extract_json(text)
    if isinstance(data, dict) and data.get("winner") in ("A", "B", "tie"):
        return str(data["winner"])
    return None


_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)?\s?%?(?![\w.])")


def strip_numbers(text: str) -> str:
    """Replace free-standing numbers (counts, shares, scores) in judge text by ``#``."""
    return _NUMBER.sub("#", text)


def validate_synthesis(
    syn: Synthesis, facts: Facts, case_ids: set[str]
) -> tuple[Synthesis | None, list[str]]:
    """Keep findings whose failure mode occurred and case ids that exist; strip numbers.

    Returns the cleaned synthesis (None when nothing usable is left) and the problems found.
    """
    problems: list[str] = []
    present = facts.modes_present()
    findings = []
    for f in syn.findings:
        ids = [c for c in f.case_ids if c in case_ids]
        if len(ids) < len(f.case_ids):
            problems.append(f"finding {f.title!r}: unknown case ids dropped")
        if f.failure_mode not in present:
            problems.append(f"finding {f.title!r}: failure mode {f.failure_mode!r} did not occur")
            continue
        findings.append(
            Finding(
                title=strip_numbers(f.title),
                failure_mode=f.failure_mode,
                case_ids=ids,
                explanation=strip_numbers(f.explanation),
            )
        )
    recs = [
        Recommendation(
            kind=r.kind,
            action=strip_numbers(r.action),
            expected_effect=strip_numbers(r.expected_effect),
            case_ids=[c for c in r.case_ids if c in case_ids],
        )
        for r in syn.recommendations
    ]
    if not syn.headline.strip() or (present and not findings):
        problems.append("no usable headline or finding")
        return None, problems
    return Synthesis(
        headline=strip_numbers(syn.headline),
        findings=findings,
        recommendations=recs,
        caveats=[strip_numbers(c) for c in syn.caveats],
    ), problems


# -- prompts -----------------------------------------------------------------------------------
_SYSTEM = (
    "You review the tool calls of an AI assistant. Answer with one JSON object only, "
    "following this JSON schema:\n"
)


def _tool_lines(tools: list[Any], names: set[str]) -> str:
    lines = []
    for t in tools:
        if t.name in names:
            params = ", ".join(
                f"{k}{'*' if k in t.required else ''}: "
                f"{(v or {}).get('type', 'any') if isinstance(v, dict) else 'any'}"
                for k, v in t.properties.items()
            )
            lines.append(f"- {t.name}({params}): {t.function.description[:120]}")
    return "\n".join(lines) or "(none)"


def _rubric_block(rubric: str | None) -> str:
    return f"Grading rubric (apply it):\n{rubric[:1500]}\n" if rubric else ""


def verdict_messages(
    row: dict[str, Any],
    tools: list[Any],
    param_notes: list[str],
    max_raw: int = 600,
    *,
    rubric: str | None = None,
) -> list[dict[str, str]]:
    """The messages asking for one verdict (the score itself is not shown, to avoid anchoring);
    ``rubric`` adds grading criteria."""
    expected = expected_calls_of(row.get("expected"))
    actual = actual_calls_of(row.get("tool_calls"))
    names = {c["name"] for c in expected + actual if c.get("name")}
    raw = str(row.get("content") or "")[:max_raw]
    body = (
        f"case_id: {row['case_id']}\nTools (* = required):\n{_tool_lines(tools, names)}\n"
        f"User: {str(row.get('prompt') or '')[:500]}\n"
        f"Expected calls: {json.dumps(expected, default=str)[:600]}\n"
        f"Actual calls: {json.dumps(actual, default=str)[:600]}\n"
        f"Assistant text: {raw or '(none)'}\n"
        f"Per-parameter check: {'; '.join(param_notes) or '(no parameters compared)'}\n"
        f"Failure modes: {', '.join(FAILURE_MODES)}.\n{_rubric_block(rubric)}"
        "Say what went wrong, whether the automatic check itself looks wrong "
        "(scorer_wrong), and one fix."
    )
    return [
        {"role": "system", "content": _SYSTEM + json.dumps(VERDICT_SCHEMA)},
        {"role": "user", "content": body},
    ]


def synthesis_messages(facts: Facts, verdicts: list[Verdict]) -> list[dict[str, str]]:
    """The one synthesis call: the facts as a compact table plus the verdicts' summary."""
    fm = facts.failure_modes
    table = (
        "\n".join(
            f"{r.failure_mode}: {r.count} cases, e.g. {', '.join(r.example_case_ids)}"
            for r in fm.itertuples()
        )
        or "(no failures)"
    )
    ver = (
        "\n".join(
            f"{v.case_id}: {v.failure_mode}; {v.root_cause[:120]}; fix ({v.fix_kind}) {v.fix[:100]}"
            for v in verdicts[:12]
        )
        or "(no verdicts)"
    )
    s = facts.summary
    body = (
        f"Run of model {s.get('model')}: {s['n_cases']} cases, pass rate "
        f"{s['pass_rate']:.2f}.\nFailure modes:\n{table}\nJudge verdicts:\n{ver}\n"
        "Write a headline, findings (each with one failure_mode from the table and case_ids "
        "from it), recommendations and caveats."
    )
    return [
        {"role": "system", "content": _SYSTEM + json.dumps(SYNTHESIS_SCHEMA)},
        {"role": "user", "content": body},
    ]


def pairwise_messages(
    row_a: dict[str, Any], row_b: dict[str, Any], *, rubric: str | None = None
) -> list[dict[str, str]]:
    """Ask which answer (A or B) handles the case better (under ``rubric`` when given)."""
    expected = expected_calls_of(row_a.get("expected"))
    body = (
        f"User: {str(row_a.get('prompt') or '')[:500]}\n"
        f"Expected calls: {json.dumps(expected, default=str)[:500]}\n"
        f"Answer A: calls {json.dumps(actual_calls_of(row_a.get('tool_calls')))[:400]}; "
        f"text {str(row_a.get('content') or '')[:200]}\n"
        f"Answer B: calls {json.dumps(actual_calls_of(row_b.get('tool_calls')))[:400]}; "
        f"text {str(row_b.get('content') or '')[:200]}\n{_rubric_block(rubric)}"
        "Which answer is better?"
    )
    return [
        {"role": "system", "content": _SYSTEM + json.dumps(PAIRWISE_SCHEMA)},
        {"role": "user", "content": body},
    ]


# -- the rule-based synthesis ------------------------------------------------------------------
MODE_TITLES = {
    "no_call": "Answers in text where a tool call was expected",
    "spurious_call": "Calls a tool where none fits",
    "wrong_tool": "Picks the wrong tool",
    "missing_call": "Leaves out an expected call",
    "extra_call": "Makes calls nobody asked for",
    "missing_required_arg": "Leaves out required arguments",
    "hallucinated_arg": "Invents arguments the schema does not have",
    "wrong_type": "Sends arguments of the wrong type",
    "wrong_value": "Sends wrong argument values",
    "parse_error": "Writes calls that do not parse",
    "api_error": "Requests that failed (API errors or timeouts)",
    "other": "Other failures",
}

_RULES: dict[str, tuple[FixKind, str, str]] = {
    "no_call": (
        "prompt",
        'Add the rule "If a tool matches the request, respond only with a tool call."',
        "fewer text answers where a call is expected",
    ),
    "spurious_call": (
        "prompt",
        'Add the rule "If no tool fits, answer in plain text."',
        "fewer calls on irrelevant requests",
    ),
    "wrong_tool": (
        "tool_description",
        "Make the descriptions of the confused tools say when to use each one",
        "fewer wrong tool picks",
    ),
    "missing_call": (
        "prompt",
        'Add the rule "Make one call per requested action."',
        "fewer missing calls",
    ),
    "extra_call": (
        "prompt",
        'Add the rule "Call only the tools the request needs."',
        "fewer unneeded calls",
    ),
    "missing_required_arg": (
        "prompt",
        'Add the rule "Always include every required parameter."',
        "fewer missing arguments",
    ),
    "hallucinated_arg": (
        "prompt",
        'Add the rule "Never invent parameters; use names exactly as in the schema."',
        "fewer invented arguments",
    ),
    "wrong_type": (
        "prompt",
        'Add the rule "Use the types of the schema: numbers without quotes."',
        "fewer type errors",
    ),
    "wrong_value": (
        "prompt",
        'Add the rule "Copy values exactly as the user wrote them."',
        "fewer wrong values",
    ),
    "parse_error": (
        "parameter",
        "Use native tool calling (mode='native') or add a format hint for the raw-text format",
        "fewer unparseable calls",
    ),
    "api_error": (
        "parameter",
        "Raise the timeout or retries, or lower the concurrency",
        "fewer failed requests",
    ),
}


def rule_synthesis(
    facts: Facts, *, tool_choice: str | None = None, reliability: str | None = None
) -> Synthesis:
    """A complete narrative from the facts alone (every figure is rendered from the facts)."""
    s = facts.summary
    fm = facts.failure_modes
    findings = [
        Finding(
            title=MODE_TITLES.get(r.failure_mode, r.failure_mode),
            failure_mode=r.failure_mode,
            case_ids=list(r.example_case_ids),
            explanation=f"Seen in cases such as {', '.join(r.example_case_ids)}.",
        )
        for r in fm.head(5).itertuples()
    ]
    recs = []
    for r in fm.head(5).itertuples():
        kind, action, effect = _RULES.get(
            r.failure_mode, ("test_case", "Review these cases", "clearer failures")
        )
        if r.failure_mode == "no_call" and r.share > 0.3 and tool_choice in (None, "auto"):
            recs.append(
                Recommendation(
                    kind="parameter",
                    action="Try tool_choice='required'",
                    expected_effect="the model must answer with a call",
                    case_ids=list(r.example_case_ids),
                )
            )
        recs.append(
            Recommendation(
                kind=kind, action=action, expected_effect=effect, case_ids=list(r.example_case_ids)
            )
        )
    top = fm.iloc[0]["failure_mode"] if len(fm) else None
    headline = (
        "Every case passed."
        if top is None
        else f"Most failures: {MODE_TITLES.get(top, top).lower()}."
    )
    caveats = []
    if s["n_cases"] < 30:
        caveats.append("Few cases: read the confidence intervals before acting.")
    if reliability:
        caveats.append(reliability)
    return Synthesis(headline=headline, findings=findings, recommendations=recs, caveats=caveats)
