"""``tooleval-nb tau2 rescore FILE…``: the scores table, the simulations, bad files (exit 2)."""

from __future__ import annotations

import io
import json

import pytest

pytest.importorskip("tau2.domains.airline.environment")

from tooleval_nb.cli import main  # noqa: E402


def test_rescore_prints_pass_hat_k(tau2_file, capsys) -> None:
    out = io.StringIO()
    assert main(["tau2", "rescore", str(tau2_file("telecom", "small", "gn"))], out=out) == 0
    text = out.getvalue()
    assert "scripted on telecom: 20 tasks, 2 trial(s), 40 simulations scored, 0 not scored" in text
    assert "pass^1  0.5000" in text and "pass^2  0.0000" in text


def test_rescore_simulations_as_csv(tau2_file) -> None:
    out = io.StringIO()
    path = str(tau2_file("mock", None, "gn"))
    assert main(["tau2", "rescore", path, "--simulations", "--format", "csv"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("model,user_model,domain,task_id,trial,simulation_id,reward")
    assert len(lines) == 1 + 18
    assert "Task task_2 not found" in out.getvalue()


def test_a_bad_file_exits_2_naming_it(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"info": {}, "tasks": [], "simulations": []}))
    assert main(["tau2", "rescore", str(bad)], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "tooleval-nb tau2: error:" in err and str(bad) in err and "field info." in err


def test_no_subcommand_exits_2(capsys) -> None:
    assert main(["tau2"], out=io.StringIO()) == 2
    assert "rescore FILE" in capsys.readouterr().err
