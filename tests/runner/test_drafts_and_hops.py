"""Draft cases skipped (and counted), per-hop raw text and parse problems, the mode of twins."""

from __future__ import annotations

import logging

import pytest

import tooleval_nb as te
from tooleval_nb.suite import EvalCase, Suite, Tool


def test_drafts_are_skipped_and_counted(fake, make_suite, model_of, store_path, caplog):
    suite = make_suite(4)
    suite = suite.model_copy(
        update={
            "cases": [
                c.model_copy(update={"draft": i in (1, 3)}) for i, c in enumerate(suite.cases)
            ]
        }
    )
    seen = []
    with caplog.at_level(logging.INFO, logger="tooleval_nb.runner"):
        job = te.run_eval(
            suite, [model_of(fake)], progress="none", cache=False, callbacks=seen.append
        )
    run = job.result()
    assert sorted(run.results_df()["case_id"]) == ["c000", "c002"] and fake.requests == 2
    assert run.drafts_skipped == 2 and run.n_total == 2
    assert te.load_run(run.id).drafts_skipped == 2
    first = {e.type: e.data for e in reversed(seen)}
    assert first["job_created"]["drafts_skipped"] == 2
    assert first["tool_eval_init"]["drafts_skipped"] == 2
    assert "2 draft case(s) skipped" in caplog.text

    everything = te.run_eval(
        suite, [model_of(fake)], progress="none", cache=False, include_drafts=True
    ).result()
    assert len(everything) == 4 and everything.drafts_skipped == 0
    assert everything.id != run.id  # another configuration: not a resume of the first


def test_only_drafts_is_a_clear_error(fake, make_suite, model_of, store_path):
    suite = make_suite(2)
    suite = suite.model_copy(
        update={"cases": [c.model_copy(update={"draft": True}) for c in suite.cases]}
    )
    with pytest.raises(te.SuiteError, match="2 draft case.*include_drafts=True"):
        te.run_eval(suite, [model_of(fake)], progress="none")


SEARCH = Tool.create("search_flights", "Find flights", {"origin": {"type": "string"}})
BOOK = Tool.create(
    "book_flight", "Book a flight", {"flight_id": {"type": "string"}}, required=["flight_id"]
)
FIRST = (
    'Searching. <tool_call>{"name": "search_flights", "arguments": {"origin": "NYC"}}</tool_call>'
)
SECOND = (
    '<tool_call>{"name": "book_flight", "arguments": {"flight_id": "FL123"}}</tool_call>'
    "<tool_call>{oops</tool_call>"
)


def hermes_writer(body: dict) -> dict:
    """A raw-text model: a hermes block, then (after a tool answer) a good and a broken one."""
    answered = any("FL123" in str(m.get("content")) for m in body["messages"])  # the mock
    return {"content": SECOND if answered else FIRST}


def test_chain_hops_keep_raw_text_and_parse_problems(fake_server, store_path):
    case = EvalCase(
        id="chain",
        prompt="Book NYC to London",
        multi_turn=True,
        max_rounds=3,
        expected_tool="book_flight",
        expected_params={"flight_id": "FL123"},
        mock_responses={"search_flights": {"flights": [{"id": "FL123"}]}},
    )
    suite = Suite(name="raw", tools=[SEARCH, BOOK], cases=[case])
    server = fake_server(handler=hermes_writer)
    spec = {"model": "openai/fake", "api_base": server.url, "api_key": "sk-x"}
    run = te.run_eval(
        suite, [spec, {**spec, "mode": "hermes", "label": "raw"}], progress="none", cache=False
    ).result()
    hops = run.detail("chain", model="raw")["hops"]
    assert [h["raw_text"] for h in hops] == [FIRST, SECOND]
    assert "parse_problems" not in hops[0]
    assert len(hops[1]["parse_problems"]) == 1 and "malformed" in hops[1]["parse_problems"][0]
    assert hops[0]["content"] == "Searching."
    row = run.results_df().set_index("model").loc["raw"]
    assert row["mode"] == "hermes" and row["passed"] and row["n_hops"] == 2
    # the twins keep their own modes in the summary
    summary = run.summary_df().set_index("model")
    assert summary.loc["openai/fake", "mode"] == "native" and summary.loc["raw", "mode"] == "hermes"
