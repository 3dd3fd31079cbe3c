"""The SQLite run store: schema, WAL, one transaction per case, uniqueness, job slots."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from tooleval_nb.errors import StoreError
from tooleval_nb.runner.record import RESULT_FIELDS
from tooleval_nb.runner.results import EventRow, ModelSummary, ResultRow, RunListing
from tooleval_nb.runner.schema import MIGRATIONS
from tooleval_nb.runner.slots import JobRow, owner_alive, owner_id
from tooleval_nb.runner.store import Store, resolve_store


def make_job(
    store: Store, job_id: str = "job_1", run_id: str = "run_1", key: str = "k", n_total: int = 3
) -> None:
    store.create_job(
        job_id=job_id,
        run_id=run_id,
        config={"x": 1},
        config_key=key,
        n_total=n_total,
        run_name=None,
        suite_name="s",
        suite_fingerprint="fp",
        targets=[{"label": "m"}],
        settings={"temperature": 0.0},
    )


def record(run_id: str = "run_1", case_id: str = "c1", sample: int = 0, **extra) -> ResultRow:
    row: dict = dict.fromkeys(RESULT_FIELDS)
    row.update(
        run_id=run_id,
        model="m",
        mode="native",
        case_id=case_id,
        sample=sample,
        tags="[]",
        passed=1,
        overall=1.0,
        tool_score=1.0,
        model_index=0,
        case_index=0,
    )
    row.update(extra)
    return ResultRow(**row)


@pytest.fixture
def store(tmp_path) -> Store:
    """An opened store (the other tests' ``store`` is a path)."""
    return Store(tmp_path / "runs.db")


def test_schema_wal_and_reopen(tmp_path):
    path = tmp_path / "sub" / "runs.db"
    first = Store(path)
    assert path.exists() and first.schema_version == len(MIGRATIONS) == 3
    mode = first.connection().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    second = Store(path)  # migrations are not applied twice
    assert second.schema_version == 3
    versions = second.connection().execute("SELECT COUNT(*) FROM schema_version").fetchone()[0]
    assert versions == 3


def test_a_version_1_store_is_migrated(tmp_path, monkeypatch):
    import tooleval_nb.runner.database as database

    path = tmp_path / "old.db"
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS[:1])
    old = Store(path)
    with old.transaction() as c:  # a run as version 1 wrote it
        c.execute(
            "INSERT INTO runs (id, targets_json, settings_json, status, n_total, "
            "created_at) VALUES ('run_1', '[]', '{}', 'completed', 3, 1.0)"
        )
    old.close()
    monkeypatch.undo()
    new = Store(path)
    assert new.schema_version == len(MIGRATIONS)
    assert new.run_row("run_1").drafts_skipped == 0  # the column came with its default


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "runs.db"
    Store(path).connection().execute("INSERT INTO schema_version VALUES (99)")
    with pytest.raises(StoreError, match="schema version 99"):
        Store(path)


def test_a_store_missing_a_table_is_named(tmp_path):
    """A store whose version says migrated but whose tables differ (a pre-release layout) is a
    clear error naming the file and the missing table, not a NOT NULL failure mid-run."""
    import sqlite3

    path = tmp_path / "runs.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE job_configs")
    with pytest.raises(StoreError, match=r"runs\.db.*no table job_configs.*move the file aside"):
        Store(path)


def test_a_result_row_has_the_stored_fields_in_order():
    assert ResultRow._fields == RESULT_FIELDS


def test_write_result_is_unique_and_atomic(store):
    make_job(store)
    events = [("tool_eval_result", 1.0, {"case_id": "c1"})]
    assert store.write_result("job_1", record(), events) is True
    assert store.write_result("job_1", record(overall=0.0), events) is False
    rows = store.results("run_1")
    assert len(rows) == 1 and rows[0].overall == 1.0 and isinstance(rows[0], ResultRow)
    assert rows[0].detail is None and store.results("run_1", detail=False) == rows
    job = store.job("job_1")
    assert isinstance(job, JobRow) and job.n_done == 1 and job.config == {"x": 1}
    assert store.events("job_1") == [EventRow("tool_eval_result", 1.0, {"case_id": "c1"})]
    assert store.done_keys("run_1") == {("m", "native", "c1", 0)}
    assert store.write_result("job_1", record(sample=1)) is True
    assert store.count_results("run_1") == 2


def test_commits_leave_checkpoints_to_the_store_thread(tmp_path, monkeypatch):
    """No commit copies the write-ahead log into the database (SQLite's automatic checkpoint
    would, inside a commit on the event loop, with its fsyncs): the store's thread does."""
    import time

    from tooleval_nb.runner import database as store_module

    monkeypatch.setattr(store_module, "CHECKPOINT_EVERY_S", 0.01)
    pokes = []
    monkeypatch.setattr(store_module.Checkpointer, "poke", lambda self: pokes.append(1))
    path = tmp_path / "runs.db"
    store = Store(path)
    assert store.connection().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    make_job(store)
    big = "x" * 20_000
    for i in range(300):  # ~6 MB: past SQLite's automatic checkpoint (1,000 pages)
        store.write_result("job_1", record(case_id=f"c{i}", detail=big))
    assert pokes and path.stat().st_size < 1_000_000  # all of it still in the log
    monkeypatch.undo()
    monkeypatch.setattr(store_module, "CHECKPOINT_EVERY_S", 0.01)
    store.write_result("job_1", record(case_id="last"))  # a commit pokes the thread
    deadline = time.monotonic() + 10
    while store._checkpointer.runs == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store._checkpointer.runs >= 1
    assert path.stat().st_size > 5_000_000  # copied into the database by the thread
    assert store.count_results("run_1") == 301
    # idle, the thread ends (no thread, no file held for an idle store); a commit restarts it
    monkeypatch.setattr(store_module, "CHECKPOINT_IDLE_S", 0.05)
    store.write_result("job_1", record(case_id="again"))
    thread = store._checkpointer._thread
    deadline = time.monotonic() + 10
    while thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not thread.is_alive()
    runs = store._checkpointer.runs
    store.write_result("job_1", record(case_id="restart"))
    assert store._checkpointer._thread is not thread
    deadline = time.monotonic() + 10
    while store._checkpointer.runs == runs and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store._checkpointer.runs > runs


def test_transaction_rolls_back(store):
    make_job(store)
    with pytest.raises(RuntimeError), store.transaction() as c:
        c.execute("UPDATE jobs SET n_done = 5 WHERE id = 'job_1'")
        raise RuntimeError("boom")
    assert store.job("job_1").n_done == 0


def test_summary_and_runs(store):
    make_job(store)
    empty = store.summary("run_1", "m")  # nothing stored yet: counts 0, nothing measured
    assert isinstance(empty, ModelSummary)
    assert (empty.n_cases, empty.n_passed, empty.n_errored) == (0, 0, 0)
    assert empty.overall is None and empty.pass_rate is None
    assert empty.latency_mean_ms is None
    store.write_result("job_1", record(case_id="a", overall=1.0, passed=1))
    store.write_result("job_1", record(case_id="b", overall=0.0, passed=0, error="429"))
    s = store.summary("run_1", "m")
    # scoring's summary: n_cases = n_passed + n_failed + n_errored
    assert (s.n_cases, s.n_passed, s.n_failed, s.n_errored) == (2, 1, 0, 1)
    assert s.overall == pytest.approx(0.5)
    (run,) = store.runs()
    assert isinstance(run, RunListing) and run.id == "run_1" and run.n_errored == 1
    assert run.n_results == 2 and run.n_passed == 1 and run.targets == [{"label": "m"}]
    assert store.run_row("run_1").settings == {"temperature": 0.0}


def test_unknown_ids_name_the_store(store):
    with pytest.raises(StoreError, match="te.history"):
        store.job("job_nope")
    with pytest.raises(StoreError, match="run_nope"):
        store.run_row("run_nope")


def test_delete_run(store):
    make_job(store)
    store.write_result("job_1", record(), [("tool_eval_result", 1.0, {})])
    store.finish_job("job_1", "completed")
    store.delete_run("run_1")
    assert store.runs() == [] and store.events("job_1") == []
    with pytest.raises(StoreError):
        store.job("job_1")


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_owner_alive():
    assert owner_alive(owner_id())
    host = owner_id().rpartition(":")[0]
    assert not owner_alive(f"{host}:{dead_pid()}")
    assert not owner_alive(None)
    assert not owner_alive("otherhost:1", updated_at=None)


def test_job_slots_queue_and_interrupted(tmp_path):
    store = Store(tmp_path / "runs.db", max_jobs=1)
    for i in (1, 2, 3):
        make_job(store, f"job_{i}", f"run_{i}", key=f"k{i}")
    me = owner_id()
    assert store.claim_job("job_1", me) is True
    assert store.claim_job("job_2", me) is False  # one slot, taken
    assert store.job("job_2").status == "queued"
    store.finish_job("job_1", "completed")
    assert store.claim_job("job_2", me) is True
    # a job whose process died no longer holds its slot; it is marked interrupted
    host = me.rpartition(":")[0]
    store.connection().execute(
        "UPDATE jobs SET owner = ? WHERE id = 'job_2'", (f"{host}:{dead_pid()}",)
    )
    assert store.claim_job("job_3", me) is True
    assert store.job("job_2").status == "interrupted"
    assert store.find_resumable("k2") == "job_2"
    assert store.find_resumable("k3") is None  # running, in a live process


@pytest.mark.parametrize(("value", "expected"), [("", 2), (" 3 ", 3), ("1", 1)])
def test_the_slots_come_from_the_caller_then_the_environment(
    tmp_path, monkeypatch, value, expected
):
    monkeypatch.setenv("TOOLEVAL_MAX_JOBS", value)
    assert Store(tmp_path / "runs.db").max_jobs == expected
    assert Store(tmp_path / "runs.db", max_jobs=5).max_jobs == 5


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_max_jobs_variable_is_refused_naming_it(tmp_path, monkeypatch, value):
    monkeypatch.setenv("TOOLEVAL_MAX_JOBS", value)
    with pytest.raises(StoreError, match=rf"TOOLEVAL_MAX_JOBS='{value}': .* at least 1"):
        Store(tmp_path / "runs.db")


def test_claim_refuses_a_job_running_elsewhere(store):
    make_job(store)
    store.claim_job("job_1", owner_id())
    host = owner_id().rpartition(":")[0]
    with pytest.raises(StoreError, match="already running"):
        store.claim_job("job_1", f"{host}:1")  # pid 1 is alive: our own owner is the live one


def test_one_connection_per_thread(store):
    make_job(store)
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            for j in range(20):
                store.write_result("job_1", record(case_id=f"t{i}_{j}"))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.count_results("run_1") == 80
    assert store.job("job_1").n_done == 80


def test_resolve_store_env_and_sharing(tmp_path, monkeypatch):
    path = tmp_path / "env.db"
    monkeypatch.setenv("TOOLEVAL_STORE", str(path))
    a = resolve_store()
    assert a.path == path.resolve()
    assert resolve_store(str(path)) is a and resolve_store(a) is a
    other = resolve_store(tmp_path / "other.db")
    assert other is not a


def test_unopenable_store(tmp_path):
    bad = tmp_path / "not_a_db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        Store(bad)


def test_default_path_is_user_data_dir(monkeypatch):
    from tooleval_nb.runner.database import default_store_path

    monkeypatch.setenv("XDG_DATA_HOME", "/tmp/xdg-test-data")
    assert str(default_store_path()).startswith("/tmp/xdg-test-data") or os.name != "posix"
