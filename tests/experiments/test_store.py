"""The experiment tables live in the run store: created by the runner's migrations, with the
store's ids and JSON. A store written before (its experiment tables numbered apart, in
``experiments_schema_version``; ``tests/fixtures/stores/before_47.sql`` is that DDL, frozen)
opens with every experiment, its baselines and its timeline."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.experiments.store import experiment_store
from tooleval_nb.models.spec import DEFAULT_MODEL
from tooleval_nb.runner.database import Database
from tooleval_nb.runner.schema import EXPERIMENT_TABLES, MIGRATIONS
from tooleval_nb.runner.store import Store

BEFORE_47 = Path(__file__).parents[1] / "fixtures" / "stores" / "before_47.sql"

WRONG = {"role": "assistant", "content": "Not sure."}


def half_right(body):
    """Right on the even cases."""
    user = next(
        str(m.get("content")) for m in reversed(body["messages"]) if m.get("role") == "user"
    )
    return None if int(user.rsplit("Town", 1)[-1]) % 2 == 0 else WRONG


@pytest.fixture
def configs(fake_server):
    server = fake_server(handler=half_right)
    return (
        tx.Config(model="openai/fake-a", api_base=server.url),
        tx.Config(model="openai/fake-b", api_base=server.url),
    )


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def versions(path: Path) -> list[int]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")]


def old_store(path: Path, source: Path, experiments_version: int) -> None:
    """``path``: a store in the layout written before issue 47 (the frozen DDL), holding every
    row of ``source``; at experiment version 1 it has no ``experiment_baselines`` yet."""
    conn = sqlite3.connect(path)
    conn.executescript(BEFORE_47.read_text())
    if experiments_version == 1:
        conn.executescript(
            "DROP TABLE experiment_baselines;"
            "DELETE FROM experiments_schema_version WHERE version = 2;"
        )
    conn.execute("ATTACH ? AS src", (str(source),))
    skip = {"schema_version", "experiments_schema_version", "sqlite_sequence"}
    for table in sorted(tables(path) - skip):
        cols = ", ".join(f'"{r[1]}"' for r in conn.execute(f"PRAGMA table_info({table})"))
        conn.execute(f"INSERT INTO main.{table} ({cols}) SELECT {cols} FROM src.{table}")
    conn.commit()
    conn.execute("DETACH src")
    conn.close()


def test_a_new_store_has_the_experiment_tables_under_the_runners_numbering(tmp_path):
    db = Database(tmp_path / "runs.db")
    assert db.schema_version == len(MIGRATIONS) == 3
    assert EXPERIMENT_TABLES <= tables(db.path)
    assert "experiments_schema_version" not in tables(db.path)


@pytest.mark.parametrize("experiments_version", [1, 2], ids=["experiments-v1", "experiments-v2"])
def test_a_store_written_before_opens_with_every_experiment(
    tmp_path, suite, configs, experiments_version
):
    a, b = configs
    source = tmp_path / "source.db"
    first = tx.experiment("first", suite=suite, store=str(source))
    run_a = first.run(a)
    run_b = first.run(b)
    second = tx.experiment("second", suite=suite, model="openai/fake-b", store=str(source))
    run_second = second.run(b)
    # what the new code writes: the store's ids and JSON
    assert first.id.startswith("exp_") and len(first.id.split("_")) == 3
    expected = {
        name: tx.experiment(name, store=str(source)).timeline().drop(columns=["created_at"])
        for name in ("first", "second")
    }

    old = tmp_path / "old.db"
    old_store(old, source, experiments_version)
    assert versions(old) == [1, 2]

    # the old file opens: migrated to the runner's numbering, every experiment seen
    opened = tx.experiment("first", store=str(old))
    assert versions(old) == [1, 2, 3]
    assert "experiments_schema_version" not in tables(old)
    assert EXPERIMENT_TABLES <= tables(old)
    assert opened.id == first.id and opened.suite.fingerprint() == suite.fingerprint()
    assert opened.baseline_for("openai/fake-a").run_id == run_a.id
    if experiments_version == 2:  # the per-model baselines were stored: kept as they were
        assert opened.baseline_for("openai/fake-b").run_id == run_b.id
    else:  # version 1 knew one baseline per experiment: filled from it
        assert set(opened.baselines) == {"openai/fake-a"}
    timeline = opened.timeline().drop(columns=["created_at"])
    if experiments_version == 2:
        assert timeline.equals(expected["first"])
    else:  # b's run is no baseline of its own there: the same rows, other deltas
        assert timeline["run_id"].tolist() == expected["first"]["run_id"].tolist()
    again = tx.experiment("second", store=str(old))
    assert again.baseline_for("openai/fake-b").run_id == run_second.id
    assert again.timeline().drop(columns=["created_at"]).equals(expected["second"])
    names = {r["name"] for r in experiment_store(str(old)).select("experiments")}
    assert names == {"first", "second"}

    # a second life in the same process: a new experiment, then the file opened anew
    third = tx.experiment("third", suite=suite, store=str(old))
    third.run(a)
    reopened = Store(old)  # a new store object on the same file: migrating again is a no-op
    assert reopened.schema_version == 3 and versions(old) == [1, 2, 3]
    names = {r["name"] for r in experiment_store(reopened).select("experiments")}
    assert names == {"first", "second", "third"}
    assert tx.experiment("third", store=reopened).baseline_for("openai/fake-a") is not None
    assert tx.experiment("first", store=reopened).baseline_for("openai/fake-a").run_id == run_a.id


def test_a_baseline_without_a_model_falls_back_to_the_default_model(tmp_path):
    """An experiment-v1 row whose baseline config names no model: the default model's baseline
    (the one definition, :data:`tooleval_nb.models.spec.DEFAULT_MODEL`)."""
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.executescript(BEFORE_47.read_text())
    conn.executescript(
        "DROP TABLE experiment_baselines;"
        "DELETE FROM experiments_schema_version WHERE version = 2;"
        "INSERT INTO experiments (id, name, suite_fp, baseline_run_id, baseline_config_json,"
        " created_at) VALUES ('exp_1', 'legacy', 'fp', 'run_1', '{\"temperature\":0.0}', 1.0);"
    )
    conn.commit()
    conn.close()
    rows = experiment_store(str(old)).select("experiment_baselines")
    assert [(r["experiment_id"], r["model"], r["run_id"]) for r in rows] == [
        ("exp_1", DEFAULT_MODEL, "run_1")
    ]


def test_json_columns_are_the_stores_json(tmp_path):
    es = experiment_store(str(tmp_path / "runs.db"))
    es.save_cell("sw_1", "arm", 0, "dev", ["c1", "c2"], run_id=None, status="pending")
    es.update("eval_cells", {"owner_id": "sw_1"}, case_ids_json=("c3", "é"))
    row = es.cell("sw_1", "arm", 0, "dev")
    assert row is not None and row["case_ids_json"] == '["c3","é"]'  # compact, UTF-8 as is
