"""Judge score modes (label / G-Eval logprob) and rubrics, against planted fake judges."""

from __future__ import annotations

import json
import math
import re
import sqlite3

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.experiments.evaluate import evaluate
from tooleval_nb.experiments.judge.rating import rating_expectation
from tooleval_nb.experiments.llm_call import logprob_content

from .conftest import is_judge

RUBRIC = "A city written differently (Paris for Town2) is acceptable."
#: the planted distribution of the rating token: expectation 4*.6 + 5*.3 + 3*.1 = 4.2
PLANTED = {" 4": 0.6, " 5": 0.3, " 3": 0.1}


def user_text(body) -> str:
    return next(
        (str(m.get("content")) for m in reversed(body["messages"]) if m.get("role") == "user"), ""
    )


def target(body):
    """Even cases answer in text (no_call), case 2 mod 4 calls with city Paris, odd ones pass."""
    i = int(user_text(body).rsplit("Town", 1)[-1])
    if i % 4 == 0:
        return {"role": "assistant", "content": "It is sunny."}
    if i % 4 == 2:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
        }
    return None


def verdict_text(body) -> str:
    text = user_text(body)
    cid = re.search(r"case_id: (\S+)", text).group(1)
    paris = '"city": "Paris"' in text  # in the actual calls (the rubric names Paris too)
    lenient = paris and "Grading rubric" in text and "is acceptable" in text
    return json.dumps(
        {
            "case_id": cid,
            "failure_mode": "wrong_value" if paris else "no_call",
            "root_cause": "see the calls",
            "scorer_wrong": lenient,
            "scorer_wrong_reason": "the rubric accepts it" if lenient else None,
            "fix_kind": "prompt",
            "fix": "add a rule",
            "confidence": 4,
        }
    )


def tokens_with_logprobs(text: str) -> list[dict]:
    """The reply split into tokens; the rating token carries the planted alternatives."""
    out = []
    for tok in re.findall(r"\s?\w+|\s?[^\w\s]+", text):
        top = [{"token": tok, "logprob": -0.01}]
        if tok in PLANTED:
            top = [{"token": t, "logprob": math.log(p)} for t, p in PLANTED.items()]
            top.append({"token": " x", "logprob": math.log(0.001)})
        out.append({"token": tok, "logprob": top[0]["logprob"], "top_logprobs": top})
    return out


def judge_with_logprobs(body):
    if "case_id:" not in user_text(body):
        return {"role": "assistant", "content": "no synthesis"}
    text = verdict_text(body)
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": "stop",
    }
    if body.get("logprobs"):
        choice["logprobs"] = {"content": tokens_with_logprobs(text)}
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [choice],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    }


def judge_without_logprobs(body):
    if "case_id:" not in user_text(body):
        return {"role": "assistant", "content": "no synthesis"}
    return {"role": "assistant", "content": verdict_text(body)}


def judge_rejecting_logprobs(body):
    if body.get("logprobs"):
        return "400"
    return judge_without_logprobs(body)


@pytest.fixture
def judged(judged_run):
    return lambda judge: judged_run(judge, target, 8)


def test_logprob_mode_uses_the_probability_weighted_rating(judged, suite, store):
    server, cfg, ev = judged(judge_with_logprobs)
    start = len(server.bodies)
    rep = tx.judge_report(
        ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=5, score_mode="logprob"
    )
    v = rep.verdicts_df()
    assert len(v) == 4 and (v["status"] == "scored").all()
    assert (v["score_mode"] == "logprob").all() and (v["confidence_label"] == 4).all()
    assert v["confidence"].tolist() == pytest.approx([4.2] * 4)
    assert rep.score_mode_note is None and "from logprobs for 4 of 4" in rep.summary()
    judge_bodies = [b for b in server.bodies[start:] if is_judge(b)]
    verdict_calls = [b for b in judge_bodies if "case_id:" in user_text(b)]
    assert all(b.get("logprobs") is True and b.get("top_logprobs") == 5 for b in verdict_calls)
    assert not any(b.get("logprobs") for b in judge_bodies if b not in verdict_calls)
    with sqlite3.connect(store) as conn:
        stored = conn.execute(
            "SELECT confidence FROM judge_verdicts WHERE report_id = ?", (rep.id,)
        ).fetchall()
        params = json.loads(
            conn.execute(
                "SELECT judge_params_json FROM judge_reports WHERE id = ?", (rep.id,)
            ).fetchone()[0]
        )
    assert [c for (c,) in stored] == pytest.approx([4.2] * 4)
    assert params["score_mode"] == "logprob"


def test_logprob_mode_falls_back_to_labels_when_none_come_back(judged, suite, store):
    server, cfg, ev = judged(judge_without_logprobs)
    rep = tx.judge_report(
        ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=5, score_mode="logprob"
    )
    v = rep.verdicts_df()
    assert (v["status"] == "scored").all() and (v["score_mode"] == "label").all()
    assert (v["confidence"] == 4).all()
    assert "fell back to the written label for 4 of 4" in rep.score_mode_note
    assert "no logprobs" in rep.score_mode_note and rep.score_mode_note in rep.summary()
    assert "fell back" in rep.to_html()


def test_provider_rejecting_logprobs_is_asked_again_without(judged, suite, store):
    server, cfg, ev = judged(judge_rejecting_logprobs)
    start = len(server.bodies)
    rep = tx.judge_report(
        ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=6, score_mode="logprob"
    )
    with_lp = [b for b in server.bodies[start:] if b.get("logprobs")]
    assert len(with_lp) == 1  # rejected once, never sent again
    v = rep.verdicts_df()
    assert (v["status"] == "scored").sum() >= 3 and (v["score_mode"] == "label").all()
    assert "rejected logprobs" in rep.score_mode_note
    assert rep.llm_calls == 6


@pytest.mark.parametrize(
    "rubric", [RUBRIC, [RUBRIC, "Extra calls are failures."]], ids=["text", "list"]
)
def test_rubric_reaches_the_judge_and_is_stored(judged, suite, store, rubric):
    server, cfg, ev = judged(judge_without_logprobs)
    plain = tx.judge_report(ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=5)
    assert plain.judge_disagrees_df().empty and plain.rubric is None
    rep = tx.judge_report(
        ev.results, judge_model=cfg, suite=suite, store=store, max_llm_calls=5, rubric=rubric
    )
    assert sorted(rep.judge_disagrees_df()["case_id"]) == ["w02", "w06"]
    assert RUBRIC in rep.rubric and "with a rubric" in rep.summary()
    assert rep.facts.summary["n_passed"] == plain.facts.summary["n_passed"]  # never a rescore
    with sqlite3.connect(store) as conn:
        params = json.loads(
            conn.execute(
                "SELECT judge_params_json FROM judge_reports WHERE id = ?", (rep.id,)
            ).fetchone()[0]
        )
    assert RUBRIC in params["rubric"]


def test_rubric_reaches_pairwise_verdicts(judged, suite, store, fake_server):
    server, cfg, ev = judged(judge_without_logprobs)
    good = fake_server()
    ev_good = evaluate(
        suite,
        tx.Config(model="openai/fake", api_base=good.url),
        [c.id for c in suite.cases][:8],
        store=store,
    )
    start = len(server.bodies)
    tx.judge_report(
        ev_good.results,
        judge_model=cfg,
        compare_to=ev.results,
        suite=suite,
        store=store,
        max_llm_calls=9,
        rubric=RUBRIC,
    )
    pairs = [b for b in server.bodies[start:] if "Which answer is better" in user_text(b)]
    assert len(pairs) == 4 and all(RUBRIC in user_text(b) for b in pairs)


# -- the pure rating function ----------------------------------------------------------------------
def _content(tokens):
    return [{"token": t, "logprob": lp, "top_logprobs": top} for t, lp, top in tokens]


@pytest.mark.parametrize(
    ("content", "expected", "reason"),
    [
        (None, None, "no logprobs"),
        (_content([('{"a":', -0.1, []), (" 1}", -0.1, [])]), None, "no 'confidence' rating"),
        # the digit as its own bare token; '0' is not a rating and is ignored
        (
            _content(
                [
                    ('{"confidence":', -0.1, []),
                    (
                        "2",
                        math.log(0.5),
                        [
                            {"token": "2", "logprob": math.log(0.5)},
                            {"token": "0", "logprob": math.log(0.4)},
                            {"token": "3", "logprob": math.log(0.5)},
                        ],
                    ),
                    ("}", -0.1, []),
                ]
            ),
            2.5,
            None,
        ),
        # the label missing from the top list is added from its own logprob
        (
            _content(
                [
                    ('{"confidence": ', -0.1, []),
                    ("5", math.log(0.25), [{"token": "1", "logprob": math.log(0.75)}]),
                    ("}", -0.1, []),
                ]
            ),
            2.0,
            None,
        ),
        # a token holding more than the digit: alternatives must differ only in the digit
        (
            _content(
                [
                    ('{"confidence"', -0.1, []),
                    (
                        ": 4}",
                        math.log(0.5),
                        [
                            {"token": ": 4}", "logprob": math.log(0.5)},
                            {"token": ": 2}", "logprob": math.log(0.5)},
                            {"token": ": 9}", "logprob": math.log(0.5)},
                        ],
                    ),
                ]
            ),
            3.0,
            None,
        ),
    ],
    ids=["none", "no-key", "bare-digit", "label-added", "digit-inside-token"],
)
def test_rating_expectation(content, expected, reason):
    rating, why = rating_expectation(content)
    if expected is None:
        assert rating is None and reason in why
    else:
        assert why is None and rating.expected == pytest.approx(expected)
        assert sum(rating.probs.values()) == pytest.approx(1.0)


def test_logprob_content_reads_openai_shape():
    raw = {"choices": [{"logprobs": {"content": [{"token": "a", "logprob": 0.0}]}}]}
    assert logprob_content(raw) == [{"token": "a", "logprob": 0.0}]
    assert logprob_content({"choices": [{"logprobs": None}]}) is None
    assert logprob_content({}) is None
