"""SuiteEditor's "Import from MCP": real MCP servers of ours (stdio, and HTTP on loopback), the
buttons clicked inside a running loop as in a notebook, drafts from the local fake model."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

import tooleval_nb.models as models
from tooleval_nb.mcp.drafts import describe_tool
from tooleval_nb.widgets import SuiteEditor

DEMO = f"{sys.executable} -m tooleval_nb.mcp.demo_server"
TEST_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"
DEMO_TOOLS = ["get_weather", "calculate", "convert_currency", "add_note", "search_notes"]
ANSWERS = {
    "get_weather": {"prompt": "Is it warm in Rome today?", "arguments": {"city": "Rome"}},
    "calculate": {
        "prompt": "What is 6 times 7?",
        "arguments": {"operation": "multiply", "a": 6, "b": 7},
    },
}


def _draft_answer(body: dict[str, Any]) -> dict[str, Any]:
    """Stands in for a model writing drafts: a good answer for two tools, junk for the rest."""
    first = body["messages"][-1]["content"].splitlines()[0].removeprefix("Tool: ")
    answer = ANSWERS.get(first)
    return {"role": "assistant", "content": json.dumps(answer) if answer else "no idea"}


@pytest.fixture
async def draft_model(fake_server):
    server = fake_server(handler=_draft_answer)
    yield {"model": "openai/fake", "api_base": server.url, "api_key": "k"}
    await models.aclose()


async def _import(editor: SuiteEditor, target: str, **form: Any) -> None:
    editor.mcp.target_input.value = target
    for name, value in form.items():
        getattr(editor.mcp, f"{name}_input").value = value
    editor.mcp.import_button.click()
    task = editor.mcp.task
    assert task is not None and editor.mcp.import_button.disabled  # the loop is free meanwhile
    assert "importing tools from" in editor.mcp.status.value
    await task
    assert not editor.mcp.import_button.disabled


async def test_import_fills_an_empty_editor() -> None:
    editor = SuiteEditor()
    assert editor.mcp.draft_button.disabled
    await _import(editor, DEMO)
    suite = editor.suite
    assert suite.name == "tooleval-demo" and "Demo tools" in suite.description
    assert [t.name for t in suite.tools] == DEMO_TOOLS
    assert "imported 5 tool(s)" in editor.mcp.status.value
    assert editor.mcp.imported == DEMO_TOOLS and not editor.mcp.draft_button.disabled


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
async def test_import_over_http_merges_and_reports_clashes(weather_suite, transport) -> None:
    import subprocess

    proc = subprocess.Popen(
        [*DEMO.split(), "--transport", transport], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[1])  # printed once it listens
        url = f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"
        editor = SuiteEditor(weather_suite)
        await _import(editor, url, timeout=30.0)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()  # type: ignore[union-attr]
    suite = editor.suite
    assert suite.name == "fake weather" and len(suite.cases) == len(weather_suite.cases)
    assert [t.name for t in suite.tools] == DEMO_TOOLS  # get_weather kept, 4 added
    assert "units" in suite.tools[0].properties  # ours, not the server's (which has "unit")
    assert editor.mcp.imported == DEMO_TOOLS[1:]
    assert "already has a tool named: get_weather" in editor.mcp.status.value


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"


@pytest.mark.parametrize(
    ("target", "form", "message"),
    [
        (_closed_port_url(), {}, "could not reach MCP server"),
        (f"{sys.executable} {TEST_SERVER} --list-delay 60", {"timeout": 4.0}, "within 4 s"),
        ("no-such-mcp-command --flag", {}, "was not found"),
        (f"{sys.executable} -c 'print(42)'", {"timeout": 20.0}, "MCP server"),
    ],
    ids=["unreachable", "slow", "missing-command", "not-mcp"],
)
async def test_bad_servers_give_clear_errors(weather_suite, target, form, message) -> None:
    editor = SuiteEditor(weather_suite)
    await _import(editor, target, **form)
    status = editor.mcp.status.value
    assert "#b00020" in status and message in status, status
    assert editor.suite.model_dump() == weather_suite.model_dump()  # nothing changed
    assert editor.mcp.draft_button.disabled


async def test_invalid_tools_are_warned_per_tool() -> None:
    editor = SuiteEditor()
    await _import(editor, f"{sys.executable} {TEST_SERVER} --invalid")
    status = editor.mcp.status.value
    assert "imported 3 tool(s)" in status and "skipped 2 of 5" in status
    assert "broken_schema:" in status and "bad_required:" in status


@pytest.mark.parametrize(
    ("target", "transport", "message"),
    [
        ("", None, "give the server&#x27;s URL"),
        ("http://127.0.0.1:9/mcp", "stdio", "is a URL but transport=&#x27;stdio&#x27;"),
    ],
    ids=["empty", "url-as-stdio"],
)
def test_form_problems_start_nothing(target, transport, message) -> None:
    editor = SuiteEditor()
    editor.mcp.target_input.value = target
    editor.mcp.transport_input.value = transport
    editor.mcp.import_button.click()
    assert editor.mcp.task is None and message in editor.mcp.status.value


def test_broken_tools_json_is_not_merged_into() -> None:
    editor = SuiteEditor()
    editor.tools_input.value = "[{"
    editor.mcp.target_input.value = DEMO
    assert editor.mcp.import_tools() is None
    assert "tools JSON has problems" in editor.mcp.status.value


def test_without_a_loop_the_import_finishes_before_returning() -> None:
    editor = SuiteEditor()
    editor.mcp.target_input.value = DEMO
    editor.mcp.import_button.click()
    assert editor.mcp.task is None and not editor.mcp.import_button.disabled
    assert [t.name for t in editor.suite.tools] == DEMO_TOOLS


async def test_draft_review_accept_and_edit(draft_model) -> None:
    editor = SuiteEditor(model_specs={"fake": draft_model})
    assert editor.mcp.model_input.value == "local/smollm2-135m"  # the embedded model
    await _import(editor, DEMO)
    editor.mcp.model_input.value = "fake"
    editor.mcp.draft_button.click()
    assert editor.mcp.draft_button.disabled and "drafting 5 case(s)" in editor.mcp.status.value
    await editor.mcp.task
    status = editor.mcp.status.value
    assert "drafted 5 case(s) with fake" in status
    assert "a template stands in" in status  # the three tools the fake answered with junk
    cases = editor.cases
    assert [c.expected_tool for c in cases] == DEMO_TOOLS and all(c.draft for c in cases)
    assert cases[1].expected_params == {"operation": "multiply", "a": 6, "b": 7}
    assert all(label.startswith("✎ ") for label, _ in editor.case_select.options)
    assert editor.cases_table.value.count("draft (model)") == 2
    assert editor.cases_table.value.count("draft (template)") == 3
    assert not editor.mcp.accept_all_button.disabled

    editor.select_case(0)  # review one draft and accept it
    assert "draft (model)" in editor.draft_note.value and not editor.accept_button.disabled
    editor.accept_button.click()
    assert not editor.cases[0].draft and editor.cases[0].tags == ["mcp"]
    assert editor.accept_button.disabled and editor.draft_note.value == ""
    assert not editor.case_select.options[0][0].startswith("✎")

    editor.select_case(2)  # edit another: it stops being a draft
    editor.case_prompt.value = "Convert 20 euros to yen"
    editor.case_params.value = '{"amount": 20, "from_currency": "EUR", "to_currency": "JPY"}'
    editor.update_button.click()
    edited = editor.cases[2]
    assert not edited.draft and "draft" not in edited.tags
    assert edited.id == "draft_convert_currency"  # the form shows no id; the case keeps its own
    assert edited.metadata["draft"]["edited"] is True

    assert editor.accept_drafts() == 3
    assert not any(c.draft for c in editor.suite.cases)
    assert editor.mcp.accept_all_button.disabled
    assert "accepted draft" in editor.cases_table.value


async def test_draft_twice_gives_unique_ids(draft_model) -> None:
    editor = SuiteEditor(model_specs={"fake": draft_model})
    await _import(editor, DEMO)
    editor.mcp.model_input.value = "fake"
    for _ in range(2):
        editor.mcp.draft_button.click()
        assert editor.mcp.draft() is None and "going on" in editor.mcp.status.value
        await editor.mcp.task
    ids = [c.id for c in editor.suite.cases]
    assert len(ids) == 10 and len(set(ids)) == 10


def test_drafting_needs_imported_tools(weather_suite) -> None:
    box = SuiteEditor(weather_suite).mcp  # tools, but none imported
    assert box.draft() is None and "import tools first" in box.status.value


def test_the_fake_model_reads_the_tool_name_where_drafts_put_it() -> None:
    """The fake model above keys its answers on the draft prompt's first line."""
    from tooleval_nb import Tool

    assert describe_tool(Tool.create("calculate", "x", {})).splitlines()[0] == "Tool: calculate"
