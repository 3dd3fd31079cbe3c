"""The results explorer's logic, without widgets: filter results, compare calls, render a case.

:func:`call_diff` pairs expected and actual calls and marks each parameter ``ok``, ``differs``,
``missing`` or ``extra``. The comparison here is for *display* (loose: strings ignore case and
surrounding space, numbers compare as floats, a list of acceptable values matches any of them); the
scores shown beside it are the scoring engine's.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..charts.calls import format_call, format_value, parse_calls
from ..charts.frame import prepare, split_tags

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "Outcome",
    "OUTCOMES",
    "filter_results",
    "row_label",
    "ParamDiff",
    "CallDiff",
    "call_diff",
    "raw_outputs",
    "detail_html",
    "ALL",
]

Outcome = Literal["all", "passed", "failed", "errored"]
OUTCOMES: tuple[Outcome, ...] = ("all", "passed", "failed", "errored")
#: the filter value that keeps everything
ALL = "(all)"

_STATUS_STYLE = {
    "ok": "",
    "differs": "background:#fde2e1",
    "missing": "background:#fff3cd",
    "extra": "background:#e2e8fd",
}


def filter_results(
    results: pd.DataFrame, model: str = ALL, tag: str = ALL, outcome: Outcome = "all"
) -> pd.DataFrame:
    """The rows of one model label (or all), having a tag (or any), with an outcome.

    ``errored``: the model call failed after retries; ``failed``: not passed (errors included);
    ``passed``: passed. Adds the chart conventions' ``label`` and ``score`` columns.
    """
    df = prepare(results)
    keep = [True] * len(df)
    if model != ALL:
        keep = [k and lab == model for k, lab in zip(keep, df["label"], strict=True)]
    if tag != ALL:
        keep = [k and tag in split_tags(t) for k, t in zip(keep, df["tags"], strict=True)]
    if outcome != "all":
        errored = (
            df["error"].notna() & (df["error"].astype(str) != "")
            if "error" in df
            else df["score"] < 0
        )
        passed = df["passed"].astype(bool)
        want = {"passed": passed, "failed": ~passed, "errored": errored}[outcome]
        keep = [k and bool(w) for k, w in zip(keep, want, strict=True)]
    return df[keep]


def row_label(row: Any) -> str:
    """How a result is listed: ``✓ case_id · model · 0.80`` (``!`` for an error)."""
    error = row.get("error")
    mark = (
        "!"
        if error is not None and error == error and error != ""
        else ("✓" if row.get("passed") else "✗")
    )
    sample = row.get("sample")
    extra = f" #{sample}" if sample not in (None, 0) and sample == sample else ""
    return (
        f"{mark} {row['case_id']}{extra} · {row.get('label', row['model'])} · "
        f"{float(row.get('score', row.get('overall') or 0.0)):.2f}"
    )


@dataclass
class ParamDiff:
    """One parameter of a paired call."""

    name: str
    expected: str
    actual: str
    status: Literal["ok", "differs", "missing", "extra"]


@dataclass
class CallDiff:
    """An expected call beside the actual call it was paired with (either may be None)."""

    expected: str | None
    actual: str | None
    params: list[ParamDiff]

    @property
    def ok(self) -> bool:
        return (
            self.expected is not None
            and self.actual is not None
            and all(p.status == "ok" for p in self.params)
        )


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip().lower()
        try:
            return float(text)
        except ValueError:
            return text
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {str(k).lower(): _norm(v) for k, v in value.items()}
    return value


def _matches(expected: Any, actual: Any) -> bool:
    options = expected if isinstance(expected, list) else [expected]
    return any(_norm(o) == _norm(actual) for o in options) or _norm(expected) == _norm(actual)


def _optional(expected: Any) -> bool:
    return isinstance(expected, list) and "" in expected


def _pair(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]]
) -> list[tuple[dict[str, Any] | None, dict[str, Any] | None]]:
    used: set[int] = set()
    pairs: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = []
    for exp in expected:
        names = {n.strip().lower() for n in str(exp["name"]).split("|")}
        match = next(
            (i for i, a in enumerate(actual) if i not in used and a["name"].lower() in names), None
        )
        if match is None:
            match = next((i for i in range(len(actual)) if i not in used), None)
        if match is not None:
            used.add(match)
        pairs.append((exp, actual[match] if match is not None else None))
    pairs.extend((None, a) for i, a in enumerate(actual) if i not in used)
    return pairs


def call_diff(expected: Any, actual: Any) -> list[CallDiff]:
    """Pair expected calls with actual ones (same name first, then in order) and compare
    their parameters. ``expected`` / ``actual`` are the ``expected`` / ``tool_calls`` cells."""
    out: list[CallDiff] = []
    for exp, act in _pair(parse_calls(expected), parse_calls(actual)):
        e_args = exp["arguments"] if exp and isinstance(exp["arguments"], dict) else {}
        a_args = act["arguments"] if act and isinstance(act["arguments"], dict) else {}
        params: list[ParamDiff] = []
        if exp is not None and act is not None:
            for key, value in e_args.items():
                if key in a_args:
                    same = _matches(value, a_args[key])
                    params.append(
                        ParamDiff(
                            key,
                            format_value(value),
                            format_value(a_args[key]),
                            "ok" if same else "differs",
                        )
                    )
                else:
                    params.append(
                        ParamDiff(
                            key, format_value(value), "", "ok" if _optional(value) else "missing"
                        )
                    )
            for key, value in a_args.items():
                if key not in e_args:
                    # not listed in the expectation: shown, and marked extra
                    params.append(ParamDiff(key, "", format_value(value), "extra"))
        out.append(
            CallDiff(
                expected=format_call(exp) if exp else None,
                actual=format_call(act) if act else None,
                params=params,
            )
        )
    return out


def raw_outputs(detail: dict[str, Any] | None) -> list[str]:
    """The model's raw output per hop, from ``Run.detail()`` (raw text, else the message)."""
    if not detail:
        return []
    out = []
    for hop in detail.get("hops") or []:
        text = hop.get("raw_text")
        if not text:
            raw = hop.get("raw")
            try:
                text = json.dumps(raw["choices"][0]["message"], ensure_ascii=False, indent=1)
            except (TypeError, KeyError, IndexError):
                text = hop.get("content") or (
                    json.dumps(hop.get("tool_calls"), ensure_ascii=False)
                    if hop.get("tool_calls")
                    else ""
                )
        out.append(str(text))
    return out


def _esc(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return html.escape(str(value))


def _diff_table(diffs: Sequence[CallDiff]) -> str:
    if not diffs:
        return "<p><i>no call expected and none made</i></p>"
    parts = []
    for d in diffs:
        head = (
            f"<tr><th style='text-align:left'>{_esc(d.expected) or '<i>(not expected)</i>'}"
            f"</th><th style='text-align:left'>{_esc(d.actual) or '<i>(not called)</i>'}"
            "</th><th></th></tr>"
        )
        rows = "".join(
            f"<tr class='param-{p.status}' style='{_STATUS_STYLE[p.status]}'>"
            f"<td><code>{_esc(p.name)}</code> = {_esc(p.expected)}</td>"
            f"<td><code>{_esc(p.name)}</code> = {_esc(p.actual)}</td><td>{p.status}</td></tr>"
            for p in d.params
        )
        parts.append(head + rows)
    return (
        "<table class='tooleval-diff'><tr><th>expected</th><th>actual</th><th></th></tr>"
        + "".join(parts)
        + "</table>"
    )


def detail_html(row: dict[str, Any], detail: dict[str, Any] | None = None) -> str:
    """One result as HTML: prompt, expected vs actual calls side by side (differing parameters
    highlighted), scores, raw output, parse problems, latency and tokens."""
    diffs = call_diff(row.get("expected"), row.get("tool_calls"))
    problems: Iterable[str] = (detail or {}).get("parse_problems") or []
    raws = raw_outputs(detail)
    facts = [
        ("model", row.get("label") or row.get("model")),
        ("mode", row.get("mode")),
        ("overall", row.get("overall")),
        ("tool score", row.get("tool_score")),
        ("param score", row.get("param_score")),
        ("passed", row.get("passed")),
        ("failure", row.get("failure_mode")),
        ("error", row.get("error")),
        ("latency ms", row.get("latency_ms")),
        ("prompt tokens", row.get("prompt_tokens")),
        ("completion tokens", row.get("completion_tokens")),
        ("hops", row.get("n_hops")),
        ("tries", row.get("tries")),
        ("fallback to auto", row.get("fallback")),
    ]
    fact_rows = "".join(
        f"<tr><td>{k}</td><td>{_esc(v)}</td></tr>"
        for k, v in facts
        if v is not None and _esc(v) != ""
    )
    parts = [
        f"<h4>{_esc(row.get('case_id'))} <small>{_esc(row.get('case_name'))}</small></h4>",
        f"<p><b>prompt:</b> {_esc(row.get('prompt'))}</p>",
        "<b>calls</b>",
        _diff_table(diffs),
        f"<table class='tooleval-facts'>{fact_rows}</table>",
    ]
    if row.get("content"):
        parts.append(f"<b>content</b><pre>{_esc(row.get('content'))}</pre>")
    if raws:
        parts.append("<b>raw output</b>" + "".join(f"<pre>{_esc(r)}</pre>" for r in raws))
    problem_list = list(problems)
    if problem_list:
        parts.append(
            "<b>parse problems</b><ul>"
            + "".join(f"<li>{_esc(p)}</li>" for p in problem_list)
            + "</ul>"
        )
    return "<div class='tooleval-detail'>" + "\n".join(parts) + "</div>"
