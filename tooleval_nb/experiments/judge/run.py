"""``te.judge_report``: facts first (no LLM), then budgeted verdicts, then one synthesis.

1. Facts (:mod:`.judge_facts`): score with CI, breakdowns, failure taxonomy, parameter errors,
   worst cases; compare mode adds the paired delta, fixed / broken cases and the mode shift.
2. Verdicts: failed cases sampled stratified by failure mode, up to ``max_llm_calls - 1`` calls;
   a reply that does not parse is ``unscored`` (never a fail); ``scorer_wrong`` verdicts are
   listed for review and never change a score. ``mode_agreement`` is the share of verdicts naming
   the scorer's failure mode (Cohen's kappa between repeats with ``repeats=2``); below 0.5 the
   narrative is labelled low reliability. ``score_mode="logprob"`` replaces each verdict's written
   ``confidence`` by its G-Eval expectation over the rating tokens' top logprobs
   (:mod:`.judge_rating`), falling back to the label, with the reason, when the provider gives
   none. A ``rubric`` (criteria text) is put in every verdict and pairwise prompt.
3. Synthesis: one call; case ids are validated, failure modes must have occurred, numbers in the
   judge's text are removed. When the call fails or is invalid, a rule-based synthesis from the
   facts stands in (``fallback_used``). Compare mode runs pairwise verdicts on changed cases in
   both orders and counts only consistent ones.

The report is stored (``judge_reports``, ``judge_verdicts``) in the run store.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from typing import TYPE_CHECKING, Any, Literal

from ...aio import run_sync
from ...credentials import redact
from ...runner.database import new_id
from ..calls import actual_calls_of, expected_calls_of
from ..compare import results_frame, run_label
from ..llm_call import Answer, JsonCaller
from ..store import experiment_store
from .facts import compute_facts
from .llm import (
    PAIRWISE_SCHEMA,
    PROMPT_VERSION,
    SYNTHESIS_SCHEMA,
    VERDICT_SCHEMA,
    Synthesis,
    Verdict,
    pairwise_messages,
    parse_pairwise,
    parse_synthesis,
    parse_verdict,
    rule_synthesis,
    synthesis_messages,
    validate_synthesis,
    verdict_messages,
)
from .rating import rating_expectation
from .result import JudgeReport

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...suite import Suite

__all__ = ["judge_report", "judge_report_async", "JudgeReport"]

ResponseFormat = Literal["auto", "none"]
ScoreMode = Literal["label", "logprob"]


def _sample_failures(df: pd.DataFrame, facts: Any, n: int, seed: int) -> list[dict[str, Any]]:
    """Failed cases (first sample), stratified by failure mode, round-robin, seeded."""
    first = df.sort_values("sample").drop_duplicates("case_id") if "sample" in df else df
    rows = [r for r in first.to_dict("records") if not bool(r.get("passed"))]
    by_mode: dict[str, list[dict[str, Any]]] = {}
    rng = random.Random(seed)
    for r in rows:
        by_mode.setdefault(facts.case_modes.get(r["case_id"], "other"), []).append(r)
    for items in by_mode.values():
        rng.shuffle(items)
    order = sorted(by_mode, key=lambda m: (-len(by_mode[m]), m))
    picked: list[dict[str, Any]] = []
    while len(picked) < n and any(by_mode.values()):
        for mode in order:
            if by_mode[mode] and len(picked) < n:
                picked.append(by_mode[mode].pop())
    return picked


def _param_notes(row: dict[str, Any]) -> list[str]:
    notes = []
    actual = actual_calls_of(row.get("tool_calls"))
    for exp in expected_calls_of(row.get("expected")):
        got = next((c for c in actual if c["name"] in exp["names"]), None)
        if got is None:
            notes.append(f"{' | '.join(exp['names'])}: not called")
            continue
        args = got["arguments"] or {}
        for param, accepted in exp["arguments"].items():
            value = args.get(param, "<missing>")
            ok = value in accepted or (value == "<missing>" and "" in accepted)
            notes.append(
                f"{exp['name']}.{param}: expected {accepted[0]!r}, got {value!r} "
                f"({'match' if ok else 'differs'})"
            )
        for param in args:
            if param not in exp["arguments"]:
                notes.append(f"{exp['name']}.{param}: not expected")
    return notes


def _kappa(pairs: list[tuple[str, str]]) -> float | None:
    if not pairs:
        return None
    n = len(pairs)
    po = sum(a == b for a, b in pairs) / n
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(ca[k] * cb.get(k, 0) for k in ca) / (n * n)
    return 1.0 if pe >= 1 else (po - pe) / (1 - pe)


async def judge_report_async(
    run: Any,
    judge_model: Any = None,
    compare_to: Any = None,
    *,
    sample: Literal["failures", "none"] = "failures",
    max_llm_calls: int = 30,
    repeats: int = 1,
    seed: int = 0,
    store: Any = None,
    suite: Suite | None = None,
    tool_choice: str | None = None,
    timeout: float | None = None,
    response_format: ResponseFormat = "auto",
    judge_params: dict[str, Any] | None = None,
    score_mode: ScoreMode = "label",
    rubric: str | list[str] | None = None,
    top_logprobs: int = 5,
    save: bool = True,
) -> JudgeReport:
    """Async core of :func:`judge_report` (same arguments)."""
    df = results_frame(run)
    other = results_frame(compare_to) if compare_to is not None else None
    facts = compute_facts(df, compare_to=other, suite=suite, seed=seed)
    tools = suite.tools if suite is not None else []
    rubric_text = _rubric_text(rubric)
    judge = JsonCaller(
        judge_model,
        max(0, max_llm_calls),
        timeout,
        response_format,
        judge_params,
        top_logprobs=top_logprobs if score_mode == "logprob" else None,
    )
    n_pairwise_cases = 0
    if other is not None and facts.comparison:
        changed = facts.comparison["fixed"] + facts.comparison["broken"]
        n_pairwise_cases = min(len(changed), max(0, (max_llm_calls - 1) // 4))
    n_cases = max(0, (max_llm_calls - 1 - 2 * n_pairwise_cases) // max(1, repeats))
    picked = _sample_failures(df, facts, n_cases, seed) if sample == "failures" else []

    async def one(row: dict[str, Any], rep: int) -> dict[str, Any]:
        answer = await judge.ask_full(
            verdict_messages(row, tools, _param_notes(row), rubric=rubric_text),
            VERDICT_SCHEMA,
            "verdict",
        )
        text = answer.text
        verdict, why = (
            parse_verdict(text, row["case_id"]) if answer.error is None else (None, answer.error)
        )
        rec: dict[str, Any] = {
            "case_id": row["case_id"],
            "sample": rep,
            "order": None,
            "scorer_mode": facts.case_modes.get(row["case_id"]),
            "status": "scored" if verdict else "unscored",
            "unscored_reason": why,
            "raw": text,
        }
        if verdict:
            rec.update(verdict.model_dump())
            rec.update(_rating(answer, verdict.confidence, score_mode, judge))
        return rec

    verdicts = list(await asyncio.gather(*(one(r, k) for k in range(repeats) for r in picked)))
    pairwise = await _pairwise(judge, df, other, facts, n_pairwise_cases, rubric_text)
    scored = [v for v in verdicts if v["status"] == "scored"]
    agreement = (
        sum(v["failure_mode"] == v["scorer_mode"] for v in scored) / len(scored) if scored else None
    )
    kappa = None
    if repeats >= 2:
        by_case: dict[str, dict[int, str]] = {}
        for v in scored:
            by_case.setdefault(v["case_id"], {})[v["sample"]] = v["failure_mode"]
        kappa = _kappa([(m[0], m[1]) for m in by_case.values() if 0 in m and 1 in m])
    reliability = None
    if agreement is not None and agreement < 0.5:
        reliability = (
            "Low reliability: the judge's failure modes rarely match the scorer's; "
            "read its explanations as hints."
        )

    synthesis: Synthesis | None = None
    problems: list[str] = []
    fallback = True
    text, error = await judge.ask(
        synthesis_messages(
            facts,
            [Verdict.model_validate({**v, "confidence": v["confidence_label"]}) for v in scored],
        ),
        SYNTHESIS_SCHEMA,
        "synthesis",
    )
    if error is None:
        parsed, why = parse_synthesis(text)
        if parsed is not None:
            synthesis, problems = validate_synthesis(parsed, facts, set(df["case_id"]))
        else:
            problems = [why or "synthesis did not parse"]
    else:
        problems = [f"synthesis call failed: {error}"]
    if synthesis is None:
        synthesis = rule_synthesis(facts, tool_choice=tool_choice, reliability=reliability)
    else:
        fallback = False
        if reliability:
            synthesis.caveats.append(reliability)
    report = JudgeReport(
        id=new_id("jr"),
        run_id=run_label(run),
        compare_run_id=run_label(compare_to) if compare_to is not None else None,
        judge_model=judge.model,
        facts=facts,
        verdicts=verdicts,
        synthesis=synthesis,
        fallback_used=fallback,
        synthesis_problems=problems,
        mode_agreement=agreement,
        kappa=kappa,
        llm_calls=judge.used,
        pairwise=pairwise,
        reliability=reliability,
        case_rows={r["case_id"]: r for r in df.to_dict("records")},
        score_mode=score_mode,
        score_mode_note=_score_mode_note(score_mode, verdicts),
        rubric=rubric_text,
    )
    if save:
        _save(report, store, judge, repeats, seed)
    return report


def _rubric_text(rubric: str | list[str] | None) -> str | None:
    if rubric is None:
        return None
    items = [rubric] if isinstance(rubric, str) else [str(r) for r in rubric]
    lines = [r.strip() for r in items if r and r.strip()]
    if not lines:
        return None
    return lines[0] if len(lines) == 1 else "\n".join(f"- {r}" for r in lines)


def _rating(answer: Answer, label: int, score_mode: ScoreMode, judge: JsonCaller) -> dict[str, Any]:
    """The verdict's confidence fields: the label, or its G-Eval expectation (logprob mode)."""
    out: dict[str, Any] = {"confidence_label": label, "score_mode": "label", "score_note": None}
    if score_mode != "logprob":
        return out
    rating, why = rating_expectation(answer.logprobs)
    if rating is None:
        out["score_note"] = judge.logprobs_note or why
        return out
    out.update(confidence=rating.expected, score_mode="logprob", rating_probs=rating.probs)
    return out


def _score_mode_note(score_mode: ScoreMode, verdicts: list[dict[str, Any]]) -> str | None:
    """Why ``score_mode="logprob"`` fell back to labels (None when it did not)."""
    if score_mode != "logprob":
        return None
    scored = [v for v in verdicts if v["status"] == "scored"]
    fell = [v for v in scored if v.get("score_mode") != "logprob"]
    if not fell:
        return None
    reasons = sorted({str(v.get("score_note")) for v in fell})
    return (
        f"score_mode='logprob' fell back to the written label for {len(fell)} of "
        f"{len(scored)} verdicts: {'; '.join(reasons)}"
    )


async def _pairwise(
    judge: JsonCaller,
    df: pd.DataFrame,
    other: pd.DataFrame | None,
    facts: Any,
    n: int,
    rubric: str | None = None,
) -> list[dict[str, Any]]:
    if other is None or not n or not facts.comparison:
        return []
    mine = {r["case_id"]: r for r in df.sort_values("sample").to_dict("records")}
    theirs = {r["case_id"]: r for r in other.sort_values("sample").to_dict("records")}
    ids = (facts.comparison["fixed"] + facts.comparison["broken"])[:n]

    async def one(cid: str) -> dict[str, Any]:
        first, _ = await judge.ask(
            pairwise_messages(mine[cid], theirs[cid], rubric=rubric), PAIRWISE_SCHEMA, "pairwise"
        )
        second, _ = await judge.ask(
            pairwise_messages(theirs[cid], mine[cid], rubric=rubric), PAIRWISE_SCHEMA, "pairwise"
        )
        w1, w2 = parse_pairwise(first), parse_pairwise(second)
        outcome = "tie"
        if w1 == "A" and w2 == "B":
            outcome = "win"
        elif w1 == "B" and w2 == "A":
            outcome = "loss"
        return {
            "case_id": cid,
            "first_order": w1,
            "second_order": w2,
            "outcome": outcome,
            "consistent": outcome != "tie" or (w1 == w2 == "tie"),
            "fixed": cid in facts.comparison["fixed"],
        }

    return list(await asyncio.gather(*(one(c) for c in ids)))


def _save(report: JudgeReport, store: Any, judge: JsonCaller, repeats: int, seed: int) -> None:
    es = experiment_store(store)
    es.insert(
        "judge_reports",
        {
            "id": report.id,
            "run_id": report.run_id,
            "compare_run_id": report.compare_run_id,
            "judge_model": report.judge_model,
            "judge_params_json": {
                **redact(judge.params),
                "repeats": repeats,
                "seed": seed,
                "score_mode": report.score_mode,
                "rubric": report.rubric,
            },
            "prompt_version": PROMPT_VERSION,
            "facts_json": report.facts.to_dict(),
            "report_json": {
                "synthesis": report.synthesis.model_dump(),
                "pairwise": report.pairwise,
                "problems": report.synthesis_problems,
                "score_mode_note": report.score_mode_note,
            },
            "fallback_used": int(report.fallback_used),
            "mode_agreement": report.mode_agreement,
            "n_unscored": report.n_unscored,
            "status": "completed",
            "created_at": time.time(),
        },
    )
    for v in report.verdicts:
        es.insert(
            "judge_verdicts",
            {
                "report_id": report.id,
                "case_id": v["case_id"],
                "sample": v["sample"],
                "order": v.get("order"),
                "failure_mode": v.get("failure_mode"),
                "root_cause": v.get("root_cause"),
                "scorer_wrong": int(bool(v.get("scorer_wrong"))),
                "scorer_wrong_reason": v.get("scorer_wrong_reason"),
                "fix_kind": v.get("fix_kind"),
                "fix": v.get("fix"),
                "confidence": v.get("confidence"),
                "status": v["status"],
                "raw_json": json.dumps(
                    {
                        "raw": v.get("raw"),
                        "why": v.get("unscored_reason"),
                        "confidence_label": v.get("confidence_label"),
                        "score_mode": v.get("score_mode"),
                        "score_note": v.get("score_note"),
                        "rating_probs": v.get("rating_probs"),
                    }
                ),
            },
        )


def judge_report(
    run: Any, judge_model: Any = None, compare_to: Any = None, **kwargs: Any
) -> JudgeReport:
    """Explain a run: facts (always), judge verdicts on sampled failures, a synthesis.

    Args:
        run: a Run (or its results frame) of one model.
        judge_model: a model string or a :class:`Config` (default the embedded model).
        compare_to: another run of the same cases: adds the paired delta, fixed and broken
            cases, the failure-mode shift and pairwise verdicts in both orders.

    Keyword Args:
        sample: ``"failures"`` (stratified by failure mode) or ``"none"`` (facts and synthesis).
        max_llm_calls: the judge's call budget (one is kept for the synthesis).
        repeats: verdicts per case (2 adds Cohen's kappa of the judge with itself).
        seed: sampling seed.
        store: the run store where the report is saved. ``suite``: the suite (tool schemas).
        tool_choice: the run's tool choice, for the rule-based recommendations.
        timeout: per judge call, seconds (None: the models default). ``response_format``: ``auto`` (JSON-schema
            constrained where supported) or ``none``.
        score_mode: ``"label"`` (the confidence digit the judge wrote) or ``"logprob"`` (its
            G-Eval expectation over the top logprobs of the rating tokens 1-5; falls back to the
            label, saying why, when the provider returns no logprobs).
        rubric: grading criteria (a text, or a list of criteria) the judge applies in every
            verdict and pairwise comparison; stored with the report.
        top_logprobs: alternatives per token asked for in ``logprob`` mode.

    Returns:
        A :class:`JudgeReport`: ``summary()``, ``to_html()``, ``facts`` and one DataFrame per
        layer.
    """
    return run_sync(judge_report_async(run, judge_model, compare_to, **kwargs))
