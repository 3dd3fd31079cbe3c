"""Graders: verdict parsing, templates, code graders, the LLM grader (fake edge and real model)."""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from tooleval_nb import models
from tooleval_nb.models import ModelReply
from tooleval_nb.scoring import (
    GradeResult,
    Trace,
    grade_code,
    grade_llm_async,
    parse_verdict,
    render_prompt,
    run_graders,
    run_graders_async,
    score_case,
    score_case_async,
)
from tooleval_nb.suite import EvalCase, GraderSpec
from tooleval_nb.toolcall import ToolCall

CASE = EvalCase(name="joke", input="Tell me a joke about cats", description="Be funny")
TRACE = Trace(
    input="Tell me a joke about cats",
    output="Why did the cat sit on the computer?",
    tool_calls=[ToolCall.create("search", {"q": "cat jokes"})],
)


@pytest.mark.parametrize(
    ("text", "threshold", "verdict"),
    [
        ("Answer: PASS\nReason: it is funny", None, (True, None, "it is funny")),
        ("answer: fail\nreason: not funny", None, (False, None, "not funny")),
        ("The response is good. PASS", None, (True, None, "The response is good. PASS")),
        ("SCORE: 4\nReason: decent", 4, (True, 4.0, "decent")),
        ("SCORE: 3.5\nReason: meh", 4, (False, 3.5, "meh")),
        ("SCORE: 5", None, (None, 5.0, "SCORE: 5")),
        ("no verdict here, passable", None, (None, None, "no verdict here, passable")),
        ("I would say FAILED overall", None, (False, None, "I would say FAILED overall")),
    ],
    ids=[
        "answer-pass",
        "answer-fail-lowercase",
        "bare-word",
        "score-meets",
        "score-below",
        "score-without-threshold",
        "nothing",
        "failed-word",
    ],
)
def test_parse_verdict(text, threshold, verdict):
    assert parse_verdict(text, threshold) == verdict


def test_render_prompt_fills_every_variable():
    text = render_prompt("I={{ input }} O={{output}} T={{ task }} R={{ trace }}", CASE, TRACE)
    assert text.startswith("I=Tell me a joke about cats O=Why did the cat")
    assert "T=Be funny" in text and '"name":"search"' in text


def test_code_grader_from_a_file(tmp_path):
    (tmp_path / "my_graders.py").write_text(
        textwrap.dedent("""
        from tooleval_nb.scoring import GradeResult

        def custom_check(trace, test_case):
            if "cat" in trace.output.lower():
                return GradeResult.passed_result("custom_check", "Found important content")
            return GradeResult.failed_result("custom_check", "Missing important content")

        def as_bool(trace, test_case):
            return len(trace.tool_calls) == 1

        def broken(trace, test_case):
            raise RuntimeError("oops")
    """)
    )
    spec = GraderSpec(type="code", module="my_graders.py", function="custom_check")
    result = grade_code(spec, CASE, TRACE, base_dir=tmp_path)
    assert result.passed and result.reason == "Found important content"
    other = grade_code(spec, CASE, TRACE.model_copy(update={"output": "dogs"}), base_dir=tmp_path)
    assert not other.passed
    assert grade_code(
        GraderSpec(type="code", module=str(tmp_path / "my_graders.py"), function="as_bool"),
        CASE,
        TRACE,
    ).passed
    broken = grade_code(
        GraderSpec(type="code", module="my_graders.py", function="broken"),
        CASE,
        TRACE,
        base_dir=tmp_path,
    )
    assert not broken.passed and "RuntimeError: oops" in broken.reason and broken.error
    missing = grade_code(GraderSpec(type="code", module="nope_graders", function="f"), CASE, TRACE)
    assert not missing.passed and "cannot load code grader" in missing.reason


class FakeModel:
    """A stand-in for models.call_model_async (the I/O edge)."""

    def __init__(self, reply: ModelReply):
        self.reply = reply
        self.calls: list[tuple[str, list[dict]]] = []

    async def __call__(self, model, messages, **kw):
        self.calls.append((model, messages))
        return self.reply


async def test_llm_grader_with_a_fake_model():
    fake = FakeModel(ModelReply(content="SCORE: 5\nReason: very funny"))
    spec = GraderSpec(type="llm", prompt="Rate: {{ output }}\nSCORE: <1-5>", threshold=4)
    result = await grade_llm_async(spec, CASE, TRACE, call=fake)
    assert result.passed and result.score == 5.0 and result.reason == "very funny"
    model, messages = fake.calls[0]
    assert model == models.DEFAULT_MODEL
    assert messages[0]["content"] == "Rate: Why did the cat sit on the computer?\nSCORE: <1-5>"


async def test_llm_grader_model_error_is_a_failed_grade():
    fake = FakeModel(ModelReply(error="connection refused", error_type="ModelConnectionError"))
    spec = GraderSpec(type="llm", prompt="x", model="openai/gpt-4o-mini")
    result = await grade_llm_async(spec, CASE, TRACE, call=fake)
    assert not result.passed and result.error == "connection refused"
    assert fake.calls[0][0] == "openai/gpt-4o-mini"


async def test_graders_in_score_case_async_and_the_sync_twin_inside_a_loop(tmp_path):
    (tmp_path / "g.py").write_text("def ok(trace, case):\n    return True\n")
    case = CASE.model_copy(
        update={
            "graders": [
                GraderSpec(type="llm", prompt="{{ output }}", name="judge"),
                GraderSpec(type="code", module="g.py", function="ok"),
            ]
        }
    )
    fake = FakeModel(ModelReply(content="Answer: FAIL\nReason: not funny"))
    s = await score_case_async(case, [], TRACE.output, call=fake, base_dir=tmp_path)
    assert [g.grader for g in s.grades] == ["judge", "ok"]
    assert [g.passed for g in s.grades] == [False, True]
    assert not s.passed and s.failure_mode == "grader_failed" and s.overall == 0.5
    # the sync twin, called from inside this running loop, still works (worker thread)
    sync = score_case(case, [], TRACE.output, call=fake, base_dir=tmp_path)
    assert [g.passed for g in sync.grades] == [False, True]
    assert run_graders(case, TRACE, call=fake, base_dir=tmp_path)[1].passed
    assert len(fake.calls) == 3


def test_grade_result_helpers():
    assert GradeResult.passed_result("g", "fine").passed
    assert not GradeResult.failed_result("g", "bad", score=1).passed


@pytest.mark.model
async def test_llm_grader_against_the_embedded_model():
    spec = GraderSpec(
        type="llm",
        prompt=(
            "You are a strict grader. The assistant was asked: {{ input }}\n"
            "It answered: {{ output }}\n"
            "Is that a joke about cats? Reply with one word, PASS or FAIL, then a line "
            "'Reason: ...'."
        ),
    )
    case = CASE.model_copy(update={"graders": [spec]})
    try:
        grades = await run_graders_async(case, TRACE)
    finally:
        await models.aclose()
    (grade,) = grades
    assert grade.error is None, grade.reason
    reply = grade.details["reply"]
    assert reply.strip(), "the embedded model answered nothing"
    verdict, _, _ = parse_verdict(reply)
    assert grade.passed is (verdict is True)
    assert grade.details["model"] == models.DEFAULT_MODEL
    assert isinstance(asyncio.get_running_loop(), asyncio.AbstractEventLoop)
