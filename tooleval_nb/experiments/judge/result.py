"""``JudgeReport``: the three layers of a judge report, as DataFrames, markdown and HTML.

Every number rendered here is read from the facts (:class:`~.judge_facts.Facts`); the judge's
text only supplies words (its numbers were removed when the synthesis was validated).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...display import mimebundle
from ..display import html_table
from .llm import Synthesis

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .facts import Facts

__all__ = ["JudgeReport"]


def _pct(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.0f}%"


def _num(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or x != x else f"{x:.{digits}f}"


@dataclass
class JudgeReport:
    """A judge report (see :func:`tooleval_nb.experiments.judge_report`)."""

    id: str
    run_id: str | None
    compare_run_id: str | None
    judge_model: str
    facts: Facts
    verdicts: list[dict[str, Any]]
    synthesis: Synthesis
    fallback_used: bool
    synthesis_problems: list[str] = field(default_factory=list)
    mode_agreement: float | None = None
    kappa: float | None = None
    llm_calls: int = 0
    pairwise: list[dict[str, Any]] = field(default_factory=list)
    reliability: str | None = None
    case_rows: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    #: ``"label"`` or ``"logprob"`` (as asked); ``score_mode_note`` says why logprob fell back
    score_mode: str = "label"
    score_mode_note: str | None = None
    #: the grading criteria given to the judge
    rubric: str | None = None

    # -- figures -------------------------------------------------------------------------------
    @property
    def n_unscored(self) -> int:
        return sum(v["status"] == "unscored" for v in self.verdicts)

    @property
    def status(self) -> str:
        return "completed"

    def failure_modes_df(self) -> pd.DataFrame:
        """Failure taxonomy: ``failure_mode, count, share, share_of_failures,
        example_case_ids``."""
        return self.facts.failure_modes.copy()

    def param_errors_df(self) -> pd.DataFrame:
        """Per (tool, param): wrong value / type, missing, hallucinated, top pairs."""
        return self.facts.param_errors.copy()

    def by_category_df(self) -> pd.DataFrame:
        return self.facts.by_category.copy()

    def by_tool_df(self) -> pd.DataFrame:
        return self.facts.by_tool.copy()

    def by_tag_df(self) -> pd.DataFrame:
        return self.facts.by_tag.copy()

    def worst_cases_df(self) -> pd.DataFrame:
        return self.facts.worst_cases.copy()

    def verdicts_df(self) -> pd.DataFrame:
        """One row per verdict: ``case_id, sample, status, failure_mode, scorer_mode,
        agrees, root_cause, fix_kind, fix, confidence, confidence_label, score_mode, score_note,
        judge_disagrees, scorer_wrong_reason, unscored_reason``. ``confidence`` is the G-Eval
        expectation where ``score_mode`` is ``logprob``, else the written label."""
        import pandas as pd

        cols = [
            "case_id",
            "sample",
            "status",
            "failure_mode",
            "scorer_mode",
            "agrees",
            "root_cause",
            "fix_kind",
            "fix",
            "confidence",
            "confidence_label",
            "score_mode",
            "score_note",
            "judge_disagrees",
            "scorer_wrong_reason",
            "unscored_reason",
        ]
        rows = [
            {
                **v,
                "agrees": (v.get("failure_mode") == v.get("scorer_mode"))
                if v["status"] == "scored"
                else None,
                "judge_disagrees": bool(v.get("scorer_wrong")),
            }
            for v in self.verdicts
        ]
        return pd.DataFrame(rows).reindex(columns=cols)

    def judge_disagrees_df(self) -> pd.DataFrame:
        """Verdicts where the judge thinks the scorer got it wrong: for human review only."""
        df = self.verdicts_df()
        return df[df["judge_disagrees"].astype(bool)].reset_index(drop=True)

    def findings_df(self) -> pd.DataFrame:
        """Findings with the facts' figures: ``title, failure_mode, count, share, case_ids,
        explanation``."""
        import pandas as pd

        rows = []
        for f in self.synthesis.findings:
            rows.append(
                {
                    "title": f.title,
                    "failure_mode": f.failure_mode,
                    "count": self.facts.mode_count(f.failure_mode),
                    "share": self.facts.mode_count(f.failure_mode)
                    / max(1, self.facts.summary["n_rows"]),
                    "case_ids": f.case_ids,
                    "explanation": f.explanation,
                }
            )
        return pd.DataFrame(
            rows, columns=["title", "failure_mode", "count", "share", "case_ids", "explanation"]
        )

    def recommendations_df(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(
            [r.model_dump() for r in self.synthesis.recommendations],
            columns=["kind", "action", "expected_effect", "case_ids"],
        )

    def pairwise_df(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(
            self.pairwise,
            columns=["case_id", "first_order", "second_order", "outcome", "consistent", "fixed"],
        )

    # -- rendering -----------------------------------------------------------------------------
    def _header_lines(self) -> list[str]:
        s = self.facts.summary
        lines = [
            f"Score {_num(s['score'])} [{_num(s['score_ci_low'])}, "
            f"{_num(s['score_ci_high'])}] on {s['n_cases']} cases "
            f"({s['n_rows']} results); pass rate {_pct(s['pass_rate'])} "
            f"[{_pct(s['pass_ci_low'])}, {_pct(s['pass_ci_high'])}]; "
            f"{s['n_errored']} errored."
        ]
        if s.get("latency_p50_ms") is not None:
            lines.append(
                f"Latency p50 {s['latency_p50_ms']:.0f} ms, p95 {s['latency_p95_ms']:.0f} ms."
            )
        comp = self.facts.comparison
        if comp:
            lines.append(
                f"Versus run {comp.get('run_a')}: paired delta {comp['delta']:+.3f} "
                f"[{comp['ci_low']:+.3f}, {comp['ci_high']:+.3f}] on "
                f"{comp['n_common']} common cases (p={comp['p_value']:.3g}); "
                f"{len(comp['fixed'])} fixed, {len(comp['broken'])} broken."
            )
            if self.pairwise:
                out = [p["outcome"] for p in self.pairwise]
                lines.append(
                    f"Judge pairwise (both orders, consistent only): "
                    f"{out.count('win')} win / {out.count('tie')} tie / "
                    f"{out.count('loss')} loss."
                )
        return lines

    def _reliability_line(self) -> str:
        scored = len(self.verdicts) - self.n_unscored
        bits = [
            f"judge {self.judge_model}",
            f"{scored} verdicts scored",
            f"{self.n_unscored} unscored",
            f"mode agreement {_pct(self.mode_agreement)}",
        ]
        if self.kappa is not None:
            bits.append(f"self-agreement κ {self.kappa:.2f}")
        if self.score_mode == "logprob":
            n_lp = sum(v.get("score_mode") == "logprob" for v in self.verdicts)
            bits.append(f"confidence from logprobs for {n_lp} of {scored} verdicts")
        if self.rubric:
            bits.append("with a rubric")
        bits.append("synthesis: rule-based fallback" if self.fallback_used else "synthesis: judge")
        return "Judge reliability: " + ", ".join(bits) + "."

    def summary(self) -> str:
        """The report as markdown (numbers from the facts only)."""
        s = self.facts.summary
        out = [
            f"# Judge report: run {self.run_id} ({s.get('model')})",
            "",
            *self._header_lines(),
            "",
            f"**{self.synthesis.headline}**",
            "",
            "## Failure modes",
        ]
        for r in self.facts.failure_modes.itertuples():
            out.append(
                f"- {r.failure_mode}: {r.count} ({_pct(r.share)}), e.g. "
                f"{', '.join(r.example_case_ids)}"
            )
        if not len(self.facts.failure_modes):
            out.append("- none")
        out += ["", "## Findings"]
        for f in self.findings_df().itertuples():
            out.append(
                f"- **{f.title}** ({f.failure_mode}: {f.count} cases, {_pct(f.share)})"
                f" — {f.explanation} Evidence: {', '.join(f.case_ids) or 'n/a'}"
            )
        out += ["", "## Recommendations"]
        for r in self.synthesis.recommendations:
            out.append(f"- [{r.kind}] {r.action} ({r.expected_effect})")
        pe = self.facts.param_errors.head(5)
        if len(pe):
            out += ["", "## Parameter errors"]
            for r in pe.itertuples():
                out.append(
                    f"- {r.tool}.{r.param}: {r.wrong_value} wrong value, {r.wrong_type} "
                    f"wrong type, {r.missing} missing, {r.hallucinated} invented"
                    + (f"; {r.top_pairs}" if r.top_pairs else "")
                )
        dis = self.judge_disagrees_df()
        if len(dis):
            out += ["", "## For review: the judge disagrees with the scorer"]
            out += [
                f"- {r.case_id}: {r.scorer_wrong_reason or r.root_cause}" for r in dis.itertuples()
            ]
        out += ["", self._reliability_line()]
        if self.score_mode_note:
            out.append(self.score_mode_note + ".")
        if self.synthesis.caveats:
            out += ["", "Caveats: " + " ".join(self.synthesis.caveats)]
        return "\n".join(out)

    def to_html(self) -> str:
        """A standalone HTML fragment: header, failure-mode bars, findings, tables."""
        s = self.facts.summary
        esc = html.escape
        bars = []
        total = max(1, s["n_rows"])
        for r in self.facts.failure_modes.itertuples():
            width = max(1, int(300 * r.count / total))
            bars.append(
                f"<tr><td>{esc(r.failure_mode)}</td><td><div style='background:"
                f"#d9534f;height:12px;width:{width}px'></div></td><td>{r.count} "
                f"({_pct(r.share)})</td></tr>"
            )
        cards = []
        for f in self.findings_df().itertuples():
            ids = "".join(self._case_html(c) for c in f.case_ids)
            cards.append(
                f"<div style='border:1px solid #ccc;padding:6px;margin:4px 0'>"
                f"<b>{esc(f.title)}</b> <i>{esc(f.failure_mode)}</i>: {f.count} cases "
                f"({_pct(f.share)})<br>{esc(f.explanation)}<br><small>Evidence: "
                f"{ids or 'n/a'}</small></div>"
            )
        recs = "".join(
            f"<li>[{esc(r.kind)}] {esc(r.action)}</li>" for r in self.synthesis.recommendations
        )
        tables = ""
        for title, df in (
            ("Parameter errors", self.facts.param_errors),
            ("By category", self.facts.by_category),
            ("Worst cases", self.facts.worst_cases),
        ):
            if len(df):
                tables += f"<h4>{title}</h4>" + html_table(df, max_rows=10)
        header = "<br>".join(esc(x) for x in self._header_lines())
        return (
            f"<div><h3>Judge report: run {esc(str(self.run_id))} "
            f"({esc(str(s.get('model')))})</h3><p>{header}</p>"
            f"<p><b>{esc(self.synthesis.headline)}</b></p><h4>Failure modes</h4>"
            f"<table>{''.join(bars)}</table><h4>Findings</h4>{''.join(cards)}"
            f"<h4>Recommendations</h4><ul>{recs}</ul>{tables}"
            f"<p><small>{esc(self._reliability_line())}"
            f"{'<br>' + esc(self.score_mode_note) if self.score_mode_note else ''}"
            "</small></p></div>"
        )

    def _case_html(self, case_id: str) -> str:
        """A case id that expands to the case: prompt, expected vs actual calls, the model's
        text and the judge's verdicts."""
        esc = html.escape
        row = self.case_rows.get(case_id)
        if row is None:
            return f"<span>{esc(case_id)}</span> "
        parts = [
            ("Prompt", row.get("prompt")),
            ("Expected", row.get("expected")),
            ("Actual calls", row.get("tool_calls")),
            ("Model text", row.get("content")),
        ]
        for v in self.verdicts:
            if v["case_id"] == case_id:
                parts.append(
                    (
                        f"Verdict (sample {v['sample']}, {v['status']})",
                        f"{v.get('failure_mode') or ''}: {v.get('root_cause') or ''} "
                        f"fix: {v.get('fix') or ''}"
                        if v["status"] == "scored"
                        else v.get("unscored_reason"),
                    )
                )
        body = "".join(
            f"<div><b>{esc(k)}:</b> <code>{esc(str(val)[:500])}</code></div>"
            for k, val in parts
            if val not in (None, "")
        )
        return (
            f"<details style='display:inline-block;margin-right:6px'><summary>"
            f"{esc(case_id)}</summary>{body}</details>"
        )

    def __repr__(self) -> str:
        return (
            f"JudgeReport(id={self.id!r}, run_id={self.run_id!r}, verdicts="
            f"{len(self.verdicts)}, unscored={self.n_unscored}, fallback_used="
            f"{self.fallback_used})"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return mimebundle(self.summary(), self.to_html)
