"""judge_report against planted fake judges: malformed JSON, valid verdicts, compare, budget."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.experiments.evaluate import evaluate


def call(name, **args):
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_abcdefghijklmnop",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


def target_answer(i: int):
    """Planted failures by case index: text, wrong tool, wrong value, right."""
    kind = i % 4
    if kind == 0:
        return {"role": "assistant", "content": "It is sunny, I think."}
    if kind == 1:
        return call("get_time", city=f"Town{i}")
    if kind == 2:
        return call("get_weather", city="Paris")
    return None


def user_text(body) -> str:
    return next(
        (str(m.get("content")) for m in reversed(body["messages"]) if m.get("role") == "user"), ""
    )


def target(body):
    return target_answer(int(user_text(body).rsplit("Town", 1)[-1]))


def malformed(body):
    return {"role": "assistant", "content": "Verdict: 987654 cases are bad {not json"}


def sensible(body):
    text = user_text(body)
    if "Which answer is better" in text:
        a, b = text.split("Answer A:")[1].split("Answer B:")
        better = "A" if "get_weather" in a and "Paris" not in a else "B"
        if ("get_weather" in a and "Paris" not in a) == ("get_weather" in b and "Paris" not in b):
            better = "tie"
        return {"role": "assistant", "content": json.dumps({"winner": better})}
    if "case_id:" in text:
        cid = re.search(r"case_id: (\S+)", text).group(1)
        mode = "no_call" if "Actual calls: []" in text else "wrong_value"
        return {
            "role": "assistant",
            "content": json.dumps(
                {
                    "case_id": cid,
                    "failure_mode": mode,
                    "root_cause": "it went 42 ways wrong",
                    "scorer_wrong": cid == "w02",
                    "scorer_wrong_reason": "Paris may be fine",
                    "fix_kind": "prompt",
                    "fix": "add a rule",
                    "confidence": 4,
                }
            ),
        }
    return {
        "role": "assistant",
        "content": json.dumps(
            {
                "headline": "The model fails 99% of the time",
                "findings": [
                    {
                        "title": "Text answers",
                        "failure_mode": "no_call",
                        "case_ids": ["w00", "nope"],
                        "explanation": "77 cases in text",
                    },
                    {"title": "Parse errors", "failure_mode": "parse_error", "case_ids": []},
                ],
                "recommendations": [
                    {
                        "kind": "parameter",
                        "action": "use required",
                        "expected_effect": "+30 points",
                        "case_ids": ["w00"],
                    }
                ],
                "caveats": ["small suite"],
            }
        ),
    }


@pytest.fixture
def judged(judged_run):
    return lambda judge: judged_run(judge, target, 12)


def test_malformed_judge_gives_complete_report_from_facts(judged, suite, store):
    server, cfg, ev = judged(malformed)
    before = server.requests
    rep = tx.judge_report(ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=6)
    assert server.requests - before == 6 == rep.llm_calls
    assert rep.verdicts and all(v["status"] == "unscored" for v in rep.verdicts)
    assert rep.n_unscored == 5 and rep.fallback_used
    text = rep.summary()
    assert "987654" not in text and "987654" not in rep.to_html()
    modes = rep.failure_modes_df().set_index("failure_mode")
    assert modes.loc["no_call", "count"] == 3 and modes.loc["wrong_tool", "count"] == 3
    for needle in (
        "## Failure modes",
        "## Findings",
        "## Recommendations",
        "no_call: 3 (25%)",
        "Score 0.",
        "5 unscored",
        "rule-based fallback",
    ):
        assert needle in text
    assert len(rep.findings_df()) >= 3 and len(rep.recommendations_df()) >= 3
    with sqlite3.connect(store) as conn:
        row = conn.execute(
            "SELECT fallback_used, n_unscored, status FROM judge_reports WHERE id = ?", (rep.id,)
        ).fetchone()
        n = conn.execute(
            "SELECT COUNT(*) FROM judge_verdicts WHERE report_id = ? AND status = 'unscored'",
            (rep.id,),
        ).fetchone()[0]
    assert row == (1, 5, "completed") and n == 5


def test_valid_judge_verdicts_are_validated_and_never_change_scores(judged, suite, store):
    server, cfg, ev = judged(sensible)
    rep = tx.judge_report(ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=10)
    v = rep.verdicts_df()
    assert (v["status"] == "scored").all() and len(v) == 9
    assert 0 < rep.mode_agreement < 1
    assert list(rep.judge_disagrees_df()["case_id"]) == ["w02"]
    assert not rep.fallback_used
    f = rep.findings_df()
    assert list(f["failure_mode"]) == ["no_call"] and f.iloc[0]["case_ids"] == ["w00"]
    assert f.iloc[0]["count"] == 3  # from the facts, not the judge's "77"
    text = rep.summary()
    # (a run id's hex may hold "77": only the judge's own figures must be absent)
    assert "99%" not in text and not re.search(r"\b77\b", text) and "+30" not in text
    assert rep.facts.summary["n_passed"] == 3  # the score is untouched


def test_compare_mode_pairwise_both_orders(judged, suite, store, fake_server):
    server, cfg, ev = judged(sensible)
    good = fake_server()  # the default answer is always right
    ev_good = evaluate(
        suite,
        tx.Config(model="openai/fake", api_base=good.url),
        [c.id for c in suite.cases][:12],
        store=store,
    )
    rep = tx.judge_report(
        ev_good.results,
        judge_model=cfg,
        compare_to=ev.results,
        suite=suite,
        store=store,
        max_llm_calls=12,
    )
    comp = rep.facts.comparison
    assert len(comp["fixed"]) == 9 and comp["broken"] == [] and comp["ci_low"] > 0
    pw = rep.pairwise_df()
    assert len(pw) == 2 and set(pw["outcome"]) == {"win"}
    assert "2 win / 0 tie / 0 loss" in rep.summary()
    shift = rep.facts.shift.set_index("failure_mode")
    assert shift.loc["no_call", "change"] == -3


def test_judge_budget_of_one_call_goes_to_synthesis(judged, suite, store):
    server, cfg, ev = judged(malformed)
    rep = tx.judge_report(ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=1)
    assert rep.verdicts == [] and rep.llm_calls == 1 and rep.fallback_used
