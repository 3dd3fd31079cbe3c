"""Prompt operators, filters and the meta prompt (pure, seeded)."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from tooleval_nb.experiments.tune import operators as ops
from tooleval_nb.experiments.tune.meta import failure_feedback, meta_messages, parse_meta


def test_add_and_drop_rule_are_seeded():
    one = ops.add_rule("Be brief.", random.Random(1))
    assert one == ops.add_rule("Be brief.", random.Random(1))
    assert one.startswith("Be brief.\n- ") and one.splitlines()[1][2:] in ops.TOOL_RULES
    assert ops.drop_rule(one, random.Random(0)) == "Be brief."
    assert ops.drop_rule("no rules", random.Random(0)) == "no rules"
    full = "\n".join(f"- {r}" for r in ops.TOOL_RULES)
    assert ops.add_rule(full, random.Random(0)) == full


@pytest.mark.parametrize(
    ("mode", "needle"),
    [("hermes", "<tool_call>"), ("pythonic", "[tool_name"), ("native", "function-calling")],
    ids=["hermes", "pythonic", "native"],
)
def test_format_hint(mode, needle):
    text = ops.format_hint("Hi.", mode)
    assert needle in text and ops.format_hint(text, mode) == text


def test_tool_digest_and_example(suite):
    text = ops.tool_digest(None, suite.tools)
    assert "get_weather(city)" in text and ops.tool_digest(text, suite.tools) == text
    shot = ops.example_from_case(suite.cases[3])
    assert shot.case_id == "w03" and shot.calls == (
        {"name": "get_weather", "arguments": {"city": "Town3"}},
    )


def test_crossover_and_shorten():
    a = "Header A.\n- rule one\n- rule two"
    b = "Header B.\n- rule three\n- rule four"
    child = ops.crossover(a, b, random.Random(0))
    assert child.startswith("Header A.") and ("rule three" in child or "rule four" in child)
    long = "Keep me.\n" + "\n".join("- " + "x" * 80 for _ in range(10))
    short = ops.shorten(long, 40)
    assert short.startswith("Keep me.") and ops.count_tokens(short) <= 40
    assert ops.shorten("one line", 1) == "one line"


def test_apply_operator_add_example_uses_dev_cases_only(suite):
    dev = suite.cases[:3]
    text, shots = ops.apply_operator(
        "add_example",
        ("p", ()),
        None,
        rng=random.Random(0),
        mode="native",
        suite=suite,
        dev_cases=dev,
        max_tokens=200,
    )
    assert text == "p" and shots[0].case_id in {"w00", "w01", "w02"}
    with pytest.raises(ValueError, match="unknown operator"):
        ops.apply_operator(
            "nope",
            ("p", ()),
            None,
            rng=random.Random(0),
            mode="native",
            suite=suite,
            dev_cases=dev,
            max_tokens=200,
        )


def test_filters_hash_similarity_and_leakage(suite):
    assert ops.text_hash("Use  tools.") == ops.text_hash("use tools.")
    long = "You are a careful assistant. If a tool matches the request, call it."
    assert ops.trigram_similarity(long, long.replace("call it.", "call it!")) >= 0.9
    assert ops.trigram_similarity("abc def", "xyz uvw") < 0.2
    values = ops.holdout_values(suite.cases[:2])
    assert values == {"Town0", "Town1"}
    assert ops.leaked_value("Ask about town1 please", (), values) == "Town1"
    assert ops.leaked_value("Town10 is elsewhere", (), values) is None  # whole words only
    shot = ops.example_from_case(suite.cases[0])
    assert ops.leaked_value("clean", (shot,), values) == "Town0"


def test_meta_prompt_orders_history_and_parses():
    from tooleval_nb.suite import Suite, Tool

    s = Suite(name="s", tools=[Tool.create("f", "does f", {"x": {"type": "string"}}, ["x"])])
    msgs = meta_messages(s, [("good", 0.9), ("bad", 0.1)], [], 2, 100)
    body = msgs[1]["content"]
    assert body.index("bad") < body.index("good") and "f(x)" in body
    assert "Do not mention specific values" in body
    assert parse_meta('{"prompts": [{"text": "a", "rationale": "r"}, "b"]}') == [
        ("a", "r"),
        ("b", ""),
    ]
    for bad in ("junk", '{"prompts": []}', '{"other": 1}'):
        assert parse_meta(bad) is None


def test_failure_feedback_one_per_mode_first():
    rows = [
        {
            "case_id": f"c{i}",
            "passed": False,
            "failure_mode": m,
            "prompt": "p" * 300,
            "expected": json.dumps({"expected_tool": "f"}),
            "tool_calls": "[]",
            "content": "t",
        }
        for i, m in enumerate(["no_call", "no_call", "wrong_tool", "wrong_value"])
    ]
    fb = failure_feedback(pd.DataFrame(rows), k=3)
    assert [f["failure_mode"] for f in fb] == ["no_call", "wrong_tool", "wrong_value"]
    assert len(fb[0]["user"]) == 120
