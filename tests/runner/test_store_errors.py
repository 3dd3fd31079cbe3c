"""The store's failures say what happened and keep what was finished (issue 46): a full disk
says so, a failed commit rolls back and keeps its batch, a damaged file names itself and how to
move it aside, and the file is the user's alone."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

import tooleval_nb as te
from tooleval_nb.errors import StoreError
from tooleval_nb.runner.database import Database
from tooleval_nb.runner.events import Event
from tooleval_nb.runner.store import Store
from tooleval_nb.runner.writer import ResultWriter


def _stored_job(fake, make_suite, model_of, path, n=3):
    return te.run_eval(
        make_suite(n), [model_of(fake)], store=str(path), progress="none", cache=False
    )


def test_a_full_disk_says_so_and_the_batch_waits(fake, make_suite, model_of, tmp_path):
    path = tmp_path / "runs.db"
    job = _stored_job(fake, make_suite, model_of, path)
    store = job.store
    (record,) = store.results(job.run_id)[:1]
    published = []
    writer = ResultWriter(store, job.id, published.append)
    conn = store.connection()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    for i in range(2):  # twice in one process
        writer.add(
            record._replace(case_id=f"extra{i}"),
            [Event(type="tool_eval_result", job_id=job.id, data={"i": i})],
        )
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full from here on
    big = "x" * 200_000
    writer._rows = [(r._replace(content=big), e, d) for r, e, d in writer._rows]
    for _ in range(2):
        with pytest.raises(StoreError) as info:
            writer.commit()
        message = str(info.value)
        assert "database or disk is full" in message and str(path) in message
        assert "no transaction is active" not in message
        assert writer.pending == 2 and published == []  # the batch waits, nothing published
        assert not conn.in_transaction
    other = sqlite3.connect(path, timeout=0.1)
    other.execute("BEGIN IMMEDIATE")  # no write lock is left behind
    other.execute("ROLLBACK")
    other.close()
    conn.execute("PRAGMA max_page_count = 1073741823")  # space again
    assert writer.commit() == 2 and len(published) == 2
    stored = {r[0] for r in conn.execute("SELECT case_id FROM results")}
    assert {"extra0", "extra1"} <= stored


def test_a_failed_commit_rolls_back_and_frees_the_lock(tmp_path):
    db = Database(tmp_path / "runs.db")
    conn = db.connection()
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    conn.execute(
        "CREATE TABLE child (pid INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)"
    )
    for _ in range(2):
        with pytest.raises(sqlite3.IntegrityError):
            with db.transaction() as c:  # COMMIT fails: the parent row is missing
                c.execute("INSERT INTO child (pid) VALUES (42)")
        assert not conn.in_transaction
        other = sqlite3.connect(tmp_path / "runs.db", timeout=0.1)
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        other.close()
    assert conn.execute("SELECT COUNT(*) FROM child").fetchone()[0] == 0


def test_a_damaged_store_names_its_file_and_how_to_move_it_aside(
    fake, make_suite, model_of, tmp_path
):
    path = tmp_path / "runs.db"
    job = _stored_job(fake, make_suite, model_of, path, n=40)
    job.store.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    job.store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for start in range(page * 2, len(data), page):  # every page but the schema's
        data[start : start + 64] = b"\xa5" * 64
    path.write_bytes(bytes(data))
    for _ in range(2):
        with pytest.raises(StoreError) as info:
            Store(path).runs(None)
        message = str(info.value)
        assert str(path) in message and "damaged" in message and f"mv {path}" in message


def test_a_file_that_is_no_database_names_itself(tmp_path):
    path = tmp_path / "runs.db"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match=r"damaged .*mv "):
        Database(path)


def test_the_store_file_is_the_users_alone(tmp_path):
    old = os.umask(0o002)  # a permissive umask: the files must not follow it
    try:
        db = Database(tmp_path / "runs.db")
        with db.transaction() as c:
            c.execute("CREATE TABLE t (x)")
            c.execute("INSERT INTO t VALUES (1)")
    finally:
        os.umask(old)
    for name in ("runs.db", "runs.db-wal", "runs.db-shm"):
        mode = stat.S_IMODE((tmp_path / name).stat().st_mode)
        assert mode & 0o077 == 0, (name, oct(mode))
