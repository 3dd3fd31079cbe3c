"""A batch of finished cases written in one transaction (:meth:`Results.write_results`): the
whole batch in one call when none of it was stored before, row by row when some was (a
concurrent resume), with the same rows, events and order either way."""

from __future__ import annotations

from tooleval_nb.runner.store import Store

from .test_store import make_job, record


def _events(case_id: str) -> list[tuple[str, float, dict]]:
    return [
        ("tool_eval_progress", 1.0, {"case_id": case_id}),
        ("tool_eval_result", 2.0, {"case_id": case_id, "name": "é"}),
    ]


def test_a_new_batch_is_written_whole_in_order(tmp_path) -> None:
    store = Store(tmp_path / "runs.db")
    make_job(store, n_total=3)
    items = [(record(case_id=c, case_index=i), _events(c)) for i, c in enumerate("abc")]
    assert store.write_results("job_1", items) == [True, True, True]
    assert [r.case_id for r in store.results("run_1")] == ["a", "b", "c"]
    assert [(e.type, e.data["case_id"]) for e in store.events("job_1")] == [
        (t, c) for c in "abc" for t in ("tool_eval_progress", "tool_eval_result")
    ]
    assert store.events("job_1")[1].data["name"] == "é"
    assert store.job("job_1").n_done == 3
    assert store.write_results("job_1", []) == []


def test_a_batch_with_a_stored_row_writes_only_the_new_ones(tmp_path) -> None:
    store = Store(tmp_path / "runs.db")
    make_job(store, n_total=4)
    assert store.write_results("job_1", [(record(case_id="b", overall=1.0), _events("b"))]) == [
        True
    ]
    items = [(record(case_id=c, overall=0.5), _events(c)) for c in "abc"]
    assert store.write_results("job_1", items) == [True, False, True]
    rows = {r.case_id: r.overall for r in store.results("run_1")}
    assert rows == {"a": 0.5, "b": 1.0, "c": 0.5}  # the stored b kept, nothing of the new b
    assert [e.data["case_id"] for e in store.events("job_1")] == ["b", "b", "a", "a", "c", "c"]
    assert store.job("job_1").n_done == 3
