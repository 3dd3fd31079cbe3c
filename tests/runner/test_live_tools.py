"""Live tools in chains and agent loops: a real MCP server of ours answers the model's calls."""

from __future__ import annotations

import json
import socket

import pytest

import tooleval_nb as te
from tooleval_nb.errors import JobError, MCPImportError, StoreError
from tooleval_nb.mcp.live import LiveToolResult, MCPToolRunner
from tooleval_nb.suite import EvalCase, Suite, Tool

WEATHER = Tool.create("get_weather", "Current weather", {"city": {"type": "string"}}, ["city"])
CALC = Tool.create(
    "calculate",
    "Arithmetic",
    {"operation": {"type": "string"}, "a": {"type": "number"}, "b": {"type": "number"}},
    ["operation", "a", "b"],
)
SLOW = Tool.create("slow_task", "Wait", {"seconds": {"type": "number"}})
#: the demo server's weather formula (tests/mcp/servers/demo_server.py)
PARIS = sum(map(ord, "paris")) % 30


def call(name: str, **args) -> dict:
    return {"tool_calls": [{"function": {"name": name, "arguments": args}}]}


def planted(body: dict) -> dict:
    """Weather first; then add 10 to the temperature the tool really returned."""
    tool_msgs = [m for m in body["messages"] if m["role"] == "tool"]
    prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if prompt.startswith("skipped"):  # a tool the server has but the suite does not
        if not tool_msgs:
            return call("broken_schema", x=1)
        return {"content": "done: " + tool_msgs[0]["content"]}
    if prompt.startswith("faults"):
        if not tool_msgs:
            return {
                "tool_calls": [
                    {"function": {"name": "slow_task", "arguments": {"seconds": 5}}},
                    {
                        "function": {
                            "name": "calculate",
                            "arguments": {"operation": "divide", "a": 1, "b": 0},
                        }
                    },
                    {"function": {"name": "get_weather", "arguments": "{not json"}},
                ]
            }
        return {"content": "done: " + " | ".join(m["content"] for m in tool_msgs)}
    if not tool_msgs:
        return call("get_weather", city="Paris")
    weather = json.loads(tool_msgs[-1]["content"])
    return call("calculate", operation="add", a=weather["temperature"], b=10)


@pytest.fixture
def scripted(fake_server):
    server = fake_server(handler=planted)
    yield server


def chain_suite() -> Suite:
    # the mock would say -99: a pass proves the real tool's answer reached the model
    case = EvalCase(
        id="chain",
        prompt="Paris temperature plus 10",
        multi_turn=True,
        max_rounds=3,
        expected_tool="calculate",
        expected_params={"operation": "add", "a": PARIS, "b": 10},
        mock_responses={"get_weather": {"temperature": -99}},
    )
    return Suite(name="live", tools=[WEATHER, CALC, SLOW], cases=[case])


def model(server) -> dict:
    return {"model": "openai/fake", "api_base": server.url, "api_key": "sk-x"}


@pytest.mark.parametrize("transport", ["stdio", "streamable_http", "sse"])
def test_chain_uses_the_real_tool_result(
    scripted, store_path, transport, stdio_cmd, start_server, monkeypatch
):
    closed = []
    original = MCPToolRunner.aclose

    async def aclose(self):
        closed.append(self.target.transport)
        await original(self)

    monkeypatch.setattr(MCPToolRunner, "aclose", aclose)
    target = stdio_cmd() if transport == "stdio" else start_server(transport.replace("_", "-"))
    run = te.run_eval(
        chain_suite(),
        [model(scripted)],
        progress="none",
        cache=False,
        live_tools=target,
        live_tool_timeout=20,
    ).result()
    row = run.results_df().iloc[0]
    assert row["passed"] and row["n_hops"] == 2, row["error"]
    hop = run.detail("chain")["hops"][0]
    result = hop["tool_results"][0]
    assert result["name"] == "get_weather" and result["error"] is None
    assert json.loads(result["content"])["temperature"] == PARIS and result["latency_ms"] > 0
    # the next request carried the real result as the tool message
    second = scripted.bodies[1]["messages"]
    tool_msg = next(m for m in second if m["role"] == "tool")
    assert tool_msg["content"] == result["content"]
    assert tool_msg["tool_call_id"] == hop["tool_calls"][0]["id"]
    assert closed == [transport]  # the runner the job opened was closed at its end
    assert run.settings["live_tools"] == target and run.settings["live_tool_timeout"] == 20


def test_tool_failures_are_answers_not_crashes(scripted, store_path, stdio_cmd):
    case = EvalCase(id="faults", prompt="faults please", expected={"output_contains": ["done"]})
    suite = Suite(name="faults", tools=[WEATHER, CALC, SLOW], cases=[case])
    run = te.run_eval(
        suite,
        [model(scripted)],
        progress="none",
        cache=False,
        live_tools=stdio_cmd(),
        live_tool_timeout=0.5,
    ).result()
    row = run.results_df().iloc[0]
    # the case ran to the model's final answer; only the malformed call is scored against it
    assert row["error"] is None and row["n_hops"] == 2 and row["failure_mode"] == "parse_error"
    results = run.detail("faults")["trace"]["tool_results"]
    assert [r["error_type"] for r in results] == ["timeout", "tool", "bad_arguments"]
    assert all(r["is_error"] and r["content"].startswith("Error") for r in results)
    assert "division by zero" in results[1]["content"]
    # the model was told each failure as the tool's answer
    assert row["content"] == "done: " + " | ".join(r["content"] for r in results)


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("target", "cause"),
    [
        ("http://127.0.0.1:{port}/mcp", "could not reach MCP server"),
        ("http://127.0.0.1:{port}/sse", "could not reach MCP server"),
        ("no-such-mcp-server-xyz --stdio", "was not found"),
    ],
    ids=["streamable-http", "sse", "stdio"],
)
def test_unreachable_live_tools_fail_the_job_at_once(scripted, store_path, target, cause):
    target = target.format(port=free_port())
    with pytest.raises(JobError) as info:  # outside a running loop, run_eval runs to the end
        te.run_eval(
            chain_suite(),
            [model(scripted)],
            progress="none",
            cache=False,
            live_tools=target,
            live_tool_timeout=5,
        )
    message = str(info.value)
    assert isinstance(info.value.__cause__, MCPImportError)
    assert f"live_tools={target!r} could not be opened" in message and cause in message
    assert "start it or fix the target" in message and "te.resume(" in message
    assert scripted.bodies == []  # no case ran: none was scored as the model's failure
    run = te.history().iloc[0]
    assert run["status"] == "failed" and run["n_results"] == 0


def test_tools_outside_the_suite_are_never_called(scripted, store_path, stdio_cmd):
    """The server has broken_schema (the import skipped it); the suite does not: the live path
    answers like the mock path, without asking the server."""
    case = EvalCase(
        id="skipped", prompt="skipped tool please", expected={"output_contains": ["done"]}
    )
    suite = Suite(name="skipped", tools=[WEATHER, CALC], cases=[case])
    live = te.run_eval(
        suite,
        [model(scripted)],
        progress="none",
        cache=False,
        live_tools=stdio_cmd("--invalid"),
        live_tool_timeout=20,
    ).result()
    mocked = te.run_eval(suite, [model(scripted)], progress="none", cache=False).result()
    (result,) = live.detail("skipped")["trace"]["tool_results"]
    assert result["name"] == "broken_schema" and result["error_type"] == "unknown_tool"
    expected = {"error": "unknown tool 'broken_schema'; available tools: get_weather, calculate"}
    assert json.loads(result["content"]) == expected and result["is_error"]
    assert mocked.detail("skipped")["trace"]["tool_results"] == [expected]
    # the model was told exactly what the mock path tells it
    assert (
        live.results_df().iloc[0]["content"]
        == mocked.results_df().iloc[0]["content"]
        == ("done: " + result["content"])
    )


class Recorder:
    """A ToolExecutor of our own: answers get_weather, raises for anything else."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def call(self, name, arguments):
        self.calls.append((name, arguments))
        if name != "get_weather":
            raise RuntimeError("no such tool here")
        return LiveToolResult(
            name=name, arguments=arguments, content=json.dumps({"temperature": PARIS})
        )


def test_executor_object_and_its_resume(scripted, store_path):
    recorder = Recorder()
    job = te.run_eval(
        chain_suite(), [model(scripted)], progress="none", cache=False, live_tools=recorder
    )
    run = job.result()
    assert run.results_df().iloc[0]["passed"]
    assert [name for name, _ in recorder.calls] == ["get_weather", "calculate"]
    assert json.loads(recorder.calls[1][1]) == {"operation": "add", "a": PARIS, "b": 10}
    final = run.detail("chain")["hops"][1]["tool_results"][0]
    assert final["error_type"] == "protocol" and "no such tool here" in final["error"]
    assert run.settings["live_tools"] == f"object:{Recorder.__module__}:Recorder"
    # the object is not stored: a resume must be given it again
    store = te.Store(store_path)
    with store.transaction() as c:
        c.execute("UPDATE jobs SET status = 'interrupted' WHERE id = ?", (job.id,))
    with pytest.raises(StoreError, match="live_tools=my_executor"):
        te.resume(job.id, progress="none")
    again = te.resume(job.id, progress="none", live_tools=Recorder()).result()
    assert len(again) == 1


def test_bad_live_tools_value(scripted, store_path):
    with pytest.raises(TypeError, match="live_tools"):
        te.run_eval(chain_suite(), [model(scripted)], progress="none", live_tools=42)


@pytest.mark.model
def test_live_tools_with_the_embedded_model(store_path, stdio_cmd, tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "cache"))
    case = EvalCase(
        id="w",
        prompt="What is the weather in Paris?",
        multi_turn=True,
        max_rounds=2,
        expected_tool="get_weather",
        expected_params={"city": "Paris"},
    )
    suite = Suite(name="live-embedded", tools=[WEATHER], cases=[case])
    forced = {"type": "function", "function": {"name": "get_weather"}}
    run = te.run_eval(
        suite,
        [te.DEFAULT_MODEL],
        tool_choice=forced,
        progress="none",
        live_tools=stdio_cmd(),
        live_tool_timeout=20,
        timeout=60,
    ).result()
    row = run.results_df().iloc[0]
    assert row["error"] is None, row["error"]
    result = run.detail("w")["hops"][0]["tool_results"][0]
    assert result["name"] == "get_weather" and result["latency_ms"] > 0
    # a real answer from the server, or the server's own complaint about the arguments
    assert result["content"] and ("temperature" in result["content"] or result["is_error"])
    # ... and nothing else: not a connection failure, a timeout or arguments we could not send
    assert result["error_type"] in (None, "tool"), result
    if result["error_type"] is None:  # the server's answer for the city the model asked for
        city = result["arguments"]["city"]
        assert json.loads(result["content"])["temperature"] == sum(map(ord, city.lower())) % 30
    else:
        assert "get_weather" in result["content"], result  # the server names its tool
