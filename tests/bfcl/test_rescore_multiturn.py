"""score_result_files on multi-turn and memory result files in BFCL's layout: BFCL's verdict
and error_type per entry (the official ones, from the fixtures), the per-turn credit beside."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from tooleval_nb.bfcl import score_result_files
from tooleval_nb.bfcl.verdicts import ENTRY_COLUMNS, TURN_COLUMNS
from tooleval_nb.bfcl_rules.data import BfclData, _installed_data
from tooleval_nb.errors import SuiteError

FIXTURES = Path(__file__).parent / "fixtures" / "multi_turn"


@pytest.fixture(scope="module")
def data() -> BfclData:
    found = _installed_data()
    if found is None or not (found / "BFCL_v4_multi_turn_base.json").is_file():
        pytest.skip("bfcl-eval (the bfcl extra) is not installed")
    return BfclData(found)


def _write_tree(root: Path, model: str, every: int = 1) -> dict[str, dict]:
    """The fixture's entries as BFCL's result tree (``multi_turn/``, ``agentic/memory/<b>/``);
    returns id -> the official verdict."""
    with gzip.open(FIXTURES / f"{model}.jsonl.gz", "rt") as f:
        lines = [json.loads(x) for x in f][::every]
    official = {}
    files: dict[Path, list[str]] = {}
    for line in lines:
        category = line["category"]
        sub = (
            Path("multi_turn")
            if category.startswith("multi_turn")
            else Path("agentic", "memory", category.removeprefix("memory_"))
        )
        path = root / model / sub / f"BFCL_v4_{category}_result.json"
        files.setdefault(path, []).append(json.dumps({"id": line["id"], "result": line["result"]}))
        official[line["id"]] = line["official"]
    for path, rows in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(rows) + "\n")
    # a memory prerequisite file beside them is not scored, as in BFCL
    prereq = root / model / "agentic" / "memory" / "kv" / "BFCL_v4_memory_kv_prereq_result.json"
    prereq.write_text(json.dumps({"id": "memory_kv_prereq_0-customer-0", "result": [[]]}) + "\n")
    return official


@pytest.mark.parametrize("model", ["perturb-1-FC", "perturb-0"])
def test_error_type_per_entry_equals_the_official(data, tmp_path, model):
    official = _write_tree(tmp_path, model, every=2)
    mode = "fc" if model.endswith("-FC") else "prompt"
    df = score_result_files(tmp_path / model, mode, data=data, credit=False)
    assert list(df.columns) == list(ENTRY_COLUMNS)
    assert set(df["category"]) == {
        "multi_turn_base",
        "multi_turn_miss_func",
        "multi_turn_miss_param",
        "multi_turn_long_context",
        "memory_kv",
        "memory_vector",
        "memory_rec_sum",
    }
    assert len(df) == len(official)
    for row in df.itertuples():
        want = official[row.id]
        assert (row.passed, row.error_type if not row.passed else None) == (
            want["valid"],
            want["error_type"],
        ), row.id


def test_per_turn_credit_beside_the_verdict(data, tmp_path):
    _write_tree(tmp_path, "perturb-0-FC", every=9)
    df = score_result_files(tmp_path / "perturb-0-FC", "fc", data=data)
    multi = df[df["category"].str.startswith("multi_turn")]
    assert multi[list(TURN_COLUMNS)].notna().any().all()
    for row in multi.itertuples():
        complete = row.turns_run == row.turns_expected and row.turns_passed == row.turns_expected
        assert row.passed == complete, row.id
        assert row.replay_turns_passed <= row.turns_run
        assert row.overall == pytest.approx(row.turns_passed / row.turns_expected)
        assert pd.isna(row.first_failed_turn) == row.passed, row.id
        assert pd.isna(row.first_failure) == row.passed, row.id
    # replay credits the turns after an early mistake that the official verdict hides
    assert (multi["replay_turns_passed"] > multi["turns_passed"]).any()
    memory = df[df["category"].str.startswith("memory")]
    assert (memory["turns_expected"] == 1).all()
    assert (memory["overall"] == memory["passed"].astype(float)).all()


def test_one_file_and_foreign_ids(data, tmp_path):
    _write_tree(tmp_path, "perturb-0-FC", every=50)
    one = tmp_path / "perturb-0-FC" / "multi_turn" / "BFCL_v4_multi_turn_base_result.json"
    df = score_result_files(one, "fc", data=data, credit=False)
    assert set(df["category"]) == {"multi_turn_base"} and set(df["model"]) == {"perturb-0-FC"}
    # twice in one process, the same verdicts (BFCL's checker keeps each entry's instances in
    # its module's globals, so a second scoring in one process starts from the first's state)
    again = score_result_files(one, "fc", data=data, credit=False)
    assert again[["id", "passed", "error_type"]].equals(df[["id", "passed", "error_type"]])
    one.write_text(json.dumps({"id": "multi_turn_base_9999", "result": []}) + "\n")
    with pytest.raises(SuiteError, match="multi_turn_base_9999"):
        score_result_files(one, "fc", data=data)
