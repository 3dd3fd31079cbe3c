"""Multi-turn chains, the built-in agent loop, agent callables, case timeouts, failed jobs."""

from __future__ import annotations

import asyncio
import json

import pytest

import tooleval_nb as te
from tooleval_nb.errors import JobError
from tooleval_nb.suite import EvalCase, Suite, Tool

SEARCH = Tool.create(
    "search_flights",
    "Find flights",
    {"origin": {"type": "string"}, "destination": {"type": "string"}},
)
BOOK = Tool.create(
    "book_flight", "Book a flight", {"flight_id": {"type": "string"}}, required=["flight_id"]
)
MOCK = {"flights": [{"id": "FL123", "price": 450}]}


def chain_case(case_id: str, prompt: str, **extra) -> EvalCase:
    return EvalCase(
        id=case_id,
        prompt=prompt,
        expected_tool="book_flight",
        expected_params={"flight_id": "FL123"},
        multi_turn=True,
        max_rounds=4,
        optimal_hops=2,
        valid_prerequisites=["search_flights"],
        mock_responses={"search_flights": MOCK},
        **extra,
    )


def call(name: str, **args) -> dict:
    return {"tool_calls": [{"function": {"name": name, "arguments": args}}]}


def prompt_of(body: dict) -> str:
    """The user prompt of a request."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def planted(body: dict) -> dict:
    """A scripted model: what it answers depends on the prompt and the tool results so far."""
    prompt = prompt_of(body)
    results = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
    if prompt.startswith("detour") and not results:
        return call("teleport", where="London")
    if not results or (prompt.startswith("detour") and len(results) == 1):
        return call("search_flights", origin="NYC", destination="London")
    if prompt.startswith("agent"):
        return {"content": "Your flight FL123 is booked."}
    return call("book_flight", flight_id=results[-1]["flights"][0]["id"])


@pytest.fixture
def scripted(fake_server):
    server = fake_server(handler=planted)
    yield server


def suite_of(*cases: EvalCase) -> Suite:
    return Suite(name="travel", tools=[SEARCH, BOOK], cases=list(cases))


def model(server) -> dict:
    return {"model": "openai/fake", "api_base": server.url, "api_key": "sk-x"}


def test_chain_answers_with_mocks_and_records_hops(scripted, store_path):
    suite = suite_of(
        chain_case("plain", "Book NYC to London"),
        chain_case("detour", "detour: book NYC to London"),
    )
    run = te.run_eval(suite, [model(scripted)], progress="none", cache=False).result()
    df = run.results_df().set_index("case_id")
    plain, detour = df.loc["plain"], df.loc["detour"]
    assert plain["n_hops"] == 2 and plain["passed"] and plain["overall"] == 1.0
    assert (plain["completion"], plain["efficiency"]) == (1.0, 1.0)
    names = [c["function"]["name"] for c in json.loads(plain["tool_calls"])]
    assert names == ["search_flights", "book_flight"]
    hops = run.detail("plain")["hops"]
    assert hops[0]["tool_results"] == [MOCK] and "tool_results" in hops[1]
    # plain's second request carried the assistant call and the mock answer (the two cases
    # run concurrently, so the requests are picked by prompt, not by order)
    second = next(
        b
        for b in scripted.bodies
        if prompt_of(b) == "Book NYC to London" and any(m["role"] == "tool" for m in b["messages"])
    )
    tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
    assert json.loads(tool_msg["content"]) == MOCK
    assert detour["n_hops"] == 3 and detour["detour_penalty"] == pytest.approx(0.1)
    unknown = run.detail("detour")["hops"][0]["tool_results"][0]
    assert "unknown tool 'teleport'" in unknown["error"]


def test_builtin_agent_loop(scripted, store_path):
    case = EvalCase(
        id="agent",
        prompt="agent: book NYC to London",
        expected={"tools_called": ["search_flights"], "output_contains": ["booked"]},
        mock_responses={"search_flights": MOCK},
    )
    run = te.run_eval(suite_of(case), [model(scripted)], progress="none", cache=False).result()
    row = run.results_df().iloc[0]
    assert row["passed"] and row["n_hops"] == 2 and row["content"].endswith("booked.")
    detail = run.detail("agent")
    assert detail["trace"]["status"] == "success" and detail["trace"]["tool_results"] == [MOCK]
    # the agent is free to answer after its first (required) step
    assert [b["tool_choice"] for b in scripted.bodies] == ["required", "auto"]


def my_agent(case: EvalCase) -> dict:
    return {
        "output": f"booked for: {case.prompt}",
        "tool_calls": [{"name": "search_flights", "args": {"origin": "NYC"}, "result": MOCK}],
        "status": "success",
    }


async def slow_agent(case: EvalCase) -> dict:
    await asyncio.sleep(30)  # cancelled by the case timeout
    return {"output": "never"}


def test_agent_callable(scripted, store_path):
    case = EvalCase(
        id="a",
        prompt="go",
        expected={"tools_called": ["search_flights"], "output_contains": ["booked"]},
    )
    run = te.run_eval(suite_of(case), [model(scripted)], agent=my_agent, progress="none").result()
    row = run.results_df().iloc[0]
    assert row["passed"] and scripted.requests == 0
    assert json.loads(row["tool_calls"])[0]["function"]["name"] == "search_flights"
    assert run.detail("a")["trace"]["tool_results"] == [MOCK]


def test_case_timeout_and_retries(scripted, store_path):
    case = EvalCase(
        id="slow", prompt="go", timeout=0.2, retries=1, expected={"output_contains": ["never"]}
    )
    run = te.run_eval(suite_of(case), [model(scripted)], agent=slow_agent, progress="none").result()
    row = run.results_df().iloc[0]
    assert row["error_type"] == "timeout" and row["tries"] == 2 and not row["passed"]
    assert row["failure_mode"] == "api_error"


def test_misconfigured_model_fails_the_job(store_path):
    suite = suite_of(chain_case("plain", "Book"))
    seen = []
    with pytest.raises(JobError, match="transport='direct' needs an api_base"):
        te.run_eval(
            suite,
            [{"model": "openai/gpt-x", "transport": "direct"}],
            progress="none",
            callbacks=seen.append,
        )
    assert seen[-1].type == "job_failed"
    assert te.history().loc[0, "status"] == "failed"
