"""Multi-turn and memory verdicts equal to the official checker's, and the per-turn credit.

The fixtures (``fixtures/multi_turn/<model>.jsonl.gz``, see its SOURCE.md) hold result entries
in BFCL's shape (the ground truth and its perturbations; the files our own loop wrote) with the
verdict and error type bfcl-eval 2026.3.23's own ``eval_runner`` gave each: compared here entry by entry without the official venv. The checker part is also compared
live with bfcl-eval's ``multi_turn_checker`` (which imports only its executor).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tooleval_nb.bfcl.memory_check import memory_verdict, standardize
from tooleval_nb.bfcl.multiturn_check import (
    EMPTY_TURN,
    FORCE_TERMINATED,
    INFERENCE_ERROR,
    RESPONSE_MISMATCH,
    STATE_MISMATCH,
    decode_turns,
    multi_turn_verdict,
)
from tooleval_nb.bfcl.verdicts import judge
from tooleval_nb.bfcl_rules.data import BfclData, _installed_data

FIXTURES = Path(__file__).parent / "fixtures" / "multi_turn"
FIXTURE_FILES = sorted(FIXTURES.glob("*.jsonl.gz"))


@pytest.fixture(scope="module")
def data() -> BfclData:
    found = _installed_data()
    if found is None or not (found / "BFCL_v4_multi_turn_base.json").is_file():
        pytest.skip("bfcl-eval (the bfcl extra) is not installed")
    return BfclData(found)


def _lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def test_fixtures_are_there():
    assert len(FIXTURE_FILES) >= 2, "the official verdicts are committed as fixtures"


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name.split(".")[0])
def test_verdicts_equal_the_official_checkers(data, path):
    """Every entry of the fixture: passed and error_type exactly the official ones."""
    model = path.name.split(".")[0]
    mode = "fc" if model.endswith("-FC") else "prompt"
    lines = _lines(path)
    differ = []
    for line in lines:
        cat = data.category(line["category"])
        got = judge(
            line["result"],
            cat.by_id[line["id"]],
            cat.answers[line["id"]],
            line["category"],
            mode,
            credit=False,
            model_name=model,
        )
        want = line["official"]
        if (got["passed"], got["error_type"]) != (want["valid"], want["error_type"]):
            differ.append((line["id"], want, got["error_type"]))
    assert not differ, differ[:5]
    if not model.startswith("perturb"):
        return  # our loop's files: whatever the scripted model got right or wrong
    kinds = {line["official"]["error_type"] for line in lines}
    assert {
        None,
        EMPTY_TURN,
        STATE_MISMATCH,
        RESPONSE_MISMATCH,
        FORCE_TERMINATED,
        INFERENCE_ERROR,
        "agentic:answer_not_found",
        "agentic:no_last_message",
    } <= kinds


def test_the_checker_equals_bfcls_multi_turn_checker(data):
    """The checker alone, live against bfcl-eval's on the fixtures' decodable entries."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    n = 0
    for path in [p for p in FIXTURE_FILES if p.name.startswith("perturb")][:2]:
        model = path.name.split(".")[0]
        mode = "fc" if model.endswith("-FC") else "prompt"
        for line in _lines(path)[::5]:
            if not line["category"].startswith("multi_turn"):
                continue
            cat = data.category(line["category"])
            entry, truth, result = cat.by_id[line["id"]], cat.answers[line["id"]], line["result"]
            if type(result) is not list or len(result) != len(truth):
                continue
            theirs = multi_turn_checker(
                decode_turns(result, mode), truth, entry, line["category"], f"live{n}"
            )
            ours = multi_turn_verdict(
                result, entry, truth, mode, model_name=f"live{n}", credit=False
            )
            assert (ours.passed, ours.error_type) == (theirs["valid"], theirs.get("error_type")), (
                line["id"]
            )
            n += 1
    assert n > 50


def _truth_result(truth: list[list[str]], mode: str) -> list:
    """The ground truth as a model's output: each turn one step of its calls, then a text."""
    if mode == "prompt":
        return [[f"[{', '.join(t)}]", "Done."] if t else ["Done."] for t in truth]
    import ast

    def fc(call: str) -> dict:
        node = ast.parse(call, mode="eval").body
        args = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        return {node.func.id: json.dumps(args)}

    return [[[fc(c) for c in t], "Done."] if t else ["Done."] for t in truth]


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_per_turn_credit_and_replay(data, mode):
    cat = data.category("multi_turn_base")
    import ast

    def keywords_only(turns: list[list[str]]) -> bool:
        return all(not ast.parse(c, mode="eval").body.args for t in turns for c in t)

    entry = next(
        e
        for e in cat.questions
        if len(cat.answers[e["id"]]) >= 3
        and all(cat.answers[e["id"]])
        and keywords_only(cat.answers[e["id"]])
    )
    truth = cat.answers[entry["id"]]
    good = multi_turn_verdict(_truth_result(truth, mode), entry, truth, mode, replay=True)
    assert good.passed and good.turns_passed == good.turns_run == len(truth)
    assert good.replay_turns_passed == len(truth) and good.first_failed_turn is None
    # turn 1 does nothing: the official verdict fails it; replay still credits the others
    result = _truth_result(truth, mode)
    result[1] = ["I will not do that."]
    bad = multi_turn_verdict(result, entry, truth, mode, replay=True)
    assert not bad.passed and bad.error_type == EMPTY_TURN
    assert bad.first_failed_turn == 1 and bad.first_failure.startswith(EMPTY_TURN)
    assert bad.replay_turns_passed == len(truth) - 1
    assert bad.turns_passed <= len(truth) - 1
    # force-terminated after two turns: the turns run are checked, the last one stopped
    forced = multi_turn_verdict(result[:2], entry, truth, mode)
    assert forced.error_type == FORCE_TERMINATED and forced.turns_run == 2
    assert forced.turns[-1].error_type == FORCE_TERMINATED


@pytest.mark.parametrize(
    "result, error_type",
    [
        ("Error during inference: boom", INFERENCE_ERROR),
        ({"turns": []}, INFERENCE_ERROR),
        ([7, 8, 9, 10], INFERENCE_ERROR),  # a turn that is not a list of steps (BFCL crashes)
        ([[{"cd": "{}"}], "text"], FORCE_TERMINATED),  # a flat list where turns are expected
        ([["text"], "text", {"a": 1}, [None, 3]], EMPTY_TURN),  # steps that are not lists
    ],
    ids=["text", "dict", "numbers", "flat", "odd-steps"],
)
def test_wrong_shapes_get_a_verdict_never_an_exception(data, result, error_type):
    cat = data.category("multi_turn_base")
    entry = cat.questions[0]
    truth = cat.answers[entry["id"]]
    if error_type == EMPTY_TURN:
        assert len(truth) == len(result)
    v = multi_turn_verdict(result, entry, truth, "fc", replay=True)
    assert not v.passed and v.error_type == error_type


def test_memory_verdicts():
    answers = ["April 1, 2024", "Ada"]
    assert memory_verdict(
        [[[{"core_memory_retrieve_all": "{}"}], "It was april 1 2024."]], answers, "fc"
    ).passed
    assert memory_verdict([["[core_memory_retrieve_all()]", "ADA!"]], answers, "prompt").passed
    assert memory_verdict([["Adams"]], answers, "fc").error_type == "agentic:answer_not_found"
    assert memory_verdict([[[{"f": "{}"}], ""]], answers, "fc").error_type == (
        "agentic:no_last_message"
    )
    assert memory_verdict([["Ada"], ["Ada"]], answers, "fc").error_type == (
        "agentic:inference_error"
    )
    assert memory_verdict([5], answers, "fc").error_type == "agentic:inference_error"
    assert standardize("It's (1,2)/3-4_5*6^7.") == 'it"s 1234567'
