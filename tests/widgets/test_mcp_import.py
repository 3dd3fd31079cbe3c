"""The "Import from MCP" logic: reading the form, merging tools, drafts in and out."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tooleval_nb import EvalCase, MCPImportError, Tool
from tooleval_nb.widgets.mcp_import import (
    add_drafts,
    clear_draft,
    draft_label,
    fetch_tools_async,
    import_request,
    merge_tools,
)

from .conftest import WEATHER

DEMO = f"{sys.executable} -m tooleval_nb.mcp.demo_server"
TEST_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.mark.parametrize(
    ("target", "transport", "timeout", "want"),
    [
        ("http://127.0.0.1:9/sse", None, 0.0, ("http://127.0.0.1:9/sse", "sse", None)),
        ("http://127.0.0.1:9/mcp", None, 5.0, ("http://127.0.0.1:9/mcp", "streamable_http", 5.0)),
        ("  http://h/x ", "sse", None, ("http://h/x", "sse", None)),
        (
            "python -m srv --name 'a b'",
            None,
            2.5,
            (["python", "-m", "srv", "--name", "a b"], "stdio", 2.5),
        ),
    ],
    ids=["sse-url", "http-url", "forced-sse", "command"],
)
def test_import_request_reads_the_form(target, transport, timeout, want) -> None:
    request, problems = import_request(target, transport, timeout)
    assert problems == [] and request is not None
    assert (request.target, request.transport, request.timeout) == want


@pytest.mark.parametrize(
    ("target", "transport", "timeout", "problem"),
    [
        ("   ", None, None, "give the server's URL"),
        ("http://127.0.0.1:9/mcp", "stdio", None, "is a URL but transport='stdio'"),
        ("python server.py", "sse", None, "is a command line"),
        ("ftp://host/x", None, None, "only http:// and https://"),
        ("python 'unclosed", None, None, "cannot read the command line"),
        ("python s.py", None, -1.0, "timeout must be positive"),
    ],
    ids=["empty", "url-as-stdio", "command-as-sse", "ftp", "bad-quote", "negative-timeout"],
)
def test_import_request_problems(target, transport, timeout, problem) -> None:
    request, problems = import_request(target, transport, timeout)
    assert request is None and any(problem in p for p in problems), problems


def test_merge_keeps_existing_tools_and_reports_clashes() -> None:
    calc = Tool.create("calculate", "Arithmetic", {"a": {"type": "number"}})
    theirs = Tool.create("Get_Weather", "theirs", {"town": {"type": "string"}})
    merged = merge_tools([WEATHER], [theirs, calc, calc])
    assert [t.name for t in merged.tools] == ["get_weather", "calculate"]
    assert merged.tools[0] is WEATHER
    assert merged.added == ["calculate"] and merged.clashes == ["Get_Weather", "calculate"]


def _draft(case_id: str, source: str = "model") -> EvalCase:
    return EvalCase(
        id=case_id,
        name=f"{case_id} (draft)",
        prompt="Weather in Oslo?",
        expected_tool="get_weather",
        draft=True,
        tags=["draft", "mcp"],
        metadata={"draft": {"model": "m", "source": source, "problems": []}},
    )


def test_drafts_get_unique_ids_and_labels() -> None:
    hand = EvalCase(id="draft_get_weather", prompt="p", expected_tool="get_weather")
    cases = add_drafts(
        [hand],
        [_draft("draft_get_weather"), _draft("draft_get_weather", "template"), _draft("other")],
    )
    assert [c.id for c in cases] == [
        "draft_get_weather",
        "draft_get_weather_2",
        "draft_get_weather_3",
        "other",
    ]
    assert [c.name for c in cases][1:] == [
        "draft_get_weather (draft) #2",
        "draft_get_weather (draft) #3",
        "other (draft)",
    ]
    assert [draft_label(c) for c in cases] == [
        "",
        "draft (model)",
        "draft (template)",
        "draft (model)",
    ]


@pytest.mark.parametrize(
    ("how", "edited"), [("accepted", None), ("edited", True)], ids=["accepted", "edited"]
)
def test_clear_draft(how, edited) -> None:
    case = clear_draft(_draft("d"), how)
    assert not case.draft and case.tags == ["mcp"]
    assert case.metadata["draft"]["accepted"] is True
    assert case.metadata["draft"].get("edited") is edited
    assert draft_label(case) == "accepted draft"
    assert clear_draft(case) is case  # not a draft: unchanged


async def test_fetch_returns_warnings_instead_of_issuing_them() -> None:
    request, _ = import_request(f"{sys.executable} {TEST_SERVER} --invalid")
    assert request is not None
    outcome = await fetch_tools_async(request)  # warnings are errors here: none may escape
    assert [t.name for t in outcome.suite.tools] == ["get_weather", "calculate", "slow_task"]
    text = "\n".join(outcome.warnings)
    assert "skipped 2 of 5 tool(s)" in text
    assert "broken_schema:" in text and "bad_required:" in text


async def test_fetch_bounds_a_slow_server_by_the_timeout() -> None:
    # the bound holds for each step (a loaded machine may take it all just to start Python)
    request, _ = import_request(f"{sys.executable} {TEST_SERVER} --list-delay 60", None, 4.0)
    assert request is not None
    with pytest.raises(
        MCPImportError,
        match=r"did not (list its tools|complete the connec"
        r"tion) within 4 s",
    ):
        await fetch_tools_async(request)


async def test_fetch_the_demo_server() -> None:
    request, _ = import_request(DEMO)
    assert request is not None
    outcome = await fetch_tools_async(request)
    assert outcome.warnings == [] and outcome.suite.name == "tooleval-demo"
    assert len(outcome.suite.tools) == 5 and outcome.elapsed_ms > 0
