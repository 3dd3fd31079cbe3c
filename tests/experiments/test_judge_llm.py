"""The judge's pure layers: JSON extraction, verdict parsing, validation, rule synthesis."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tooleval_nb.experiments.judge.facts import compute_facts
from tooleval_nb.experiments.judge.llm import (
    Finding,
    Synthesis,
    extract_json,
    parse_pairwise,
    parse_verdict,
    rule_synthesis,
    strip_numbers,
    validate_synthesis,
)

GOOD = {
    "case_id": "x",
    "failure_mode": "no_call",
    "root_cause": "answered in text",
    "scorer_wrong": False,
    "fix_kind": "prompt",
    "fix": "add a rule",
    "confidence": 4,
}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! ```json\n{"a": {"b": "}"}}\n``` done', {"a": {"b": "}"}}),
        ('noise {bad} then {"ok": true}', {"ok": True}),
        ("no json here", None),
        ("", None),
        (None, None),
        ('{"a": 1', None),
    ],
    ids=["plain", "fenced-brace-in-string", "skip-bad", "none", "empty", "null", "truncated"],
)
def test_extract_json(text, want):
    assert extract_json(text) == want


def test_parse_verdict_forces_case_id_and_rejects_bad_schema():
    v, why = parse_verdict(json.dumps({**GOOD, "case_id": "other"}), "w01")
    assert why is None and v.case_id == "w01"
    for bad in (
        json.dumps({**GOOD, "failure_mode": "cosmic_rays"}),
        json.dumps({**GOOD, "confidence": 9}),
        "{not json",
        "[1, 2]",
    ):
        v, why = parse_verdict(bad, "w01")
        assert v is None and why


def test_parse_pairwise():
    assert parse_pairwise('{"winner": "A", "reason": "x"}') == "A"
    assert parse_pairwise('{"winner": "C"}') is None


def test_strip_numbers_keeps_identifiers():
    assert strip_numbers("45% of 12 cases in Town5 scored 0.3") == "# of # cases in Town5 scored #"


def facts_frame() -> pd.DataFrame:
    rows = []
    for i in range(10):
        mode = "no_call" if i < 5 else None
        rows.append(
            {
                "run_id": "r",
                "model": "m",
                "case_id": f"c{i}",
                "passed": int(mode is None),
                "overall": 0.0 if mode else 1.0,
                "failure_mode": mode,
                "error": None,
                "expected": json.dumps({"expected_tool": "f"}),
                "tool_calls": "[]",
                "sample": 0,
            }
        )
    return pd.DataFrame(rows)


def test_validate_synthesis_drops_unknown_ids_absent_modes_and_numbers():
    facts = compute_facts(facts_frame())
    syn = Synthesis(
        headline="73% of cases fail",
        findings=[
            Finding(
                title="Text answers",
                failure_mode="no_call",
                case_ids=["c1", "zz"],
                explanation="5 cases answered in text",
            ),
            Finding(title="Wrong tools", failure_mode="wrong_tool", case_ids=["c2"]),
        ],
        recommendations=[],
        caveats="only 10 cases",
    )
    clean, problems = validate_synthesis(syn, facts, {f"c{i}" for i in range(10)})
    assert [f.failure_mode for f in clean.findings] == ["no_call"]
    assert clean.findings[0].case_ids == ["c1"]
    assert "73" not in clean.headline and "5 cases" not in clean.findings[0].explanation
    assert clean.caveats == ["only # cases"]
    assert len(problems) == 2


def test_validate_synthesis_rejects_empty():
    facts = compute_facts(facts_frame())
    clean, problems = validate_synthesis(Synthesis(headline=" "), facts, set())
    assert clean is None and problems


def test_rule_synthesis_recommends_required_for_many_text_answers():
    facts = compute_facts(facts_frame())
    syn = rule_synthesis(facts, tool_choice="auto")
    assert syn.findings[0].failure_mode == "no_call"
    actions = [r.action for r in syn.recommendations]
    assert "Try tool_choice='required'" in actions
    assert any("respond only with a tool call" in a for a in actions)
    assert rule_synthesis(facts, tool_choice="required").recommendations[0].kind == "prompt"
