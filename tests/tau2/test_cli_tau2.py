"""``tooleval-nb tau2``: a run from the command line (a scripted model through the fake
server), tau2's results file out; bad input refused with exit 2."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tooleval_nb.cli import main
from tooleval_nb.cli.tau2 import DOMAIN_CHOICES
from tooleval_nb.tau2.domains import DOMAINS

pytest.importorskip("tau2.domains.airline.environment")


def test_the_cli_knows_the_domains() -> None:
    assert DOMAIN_CHOICES == DOMAINS


def test_a_run_writes_tau2s_results_file(tmp_path: Path, fake_server) -> None:
    from tau2.data_model.simulation import Results

    server = fake_server(handler="tooleval_nb.testing.tau2_script:answer")
    out_file = tmp_path / "mock.json"
    out = io.StringIO()
    code = main(
        [
            "tau2",
            "--model",
            "openai/scripted",
            "--api-base",
            server.url,
            "--domain",
            "mock",
            "--limit",
            "2",
            "--trials",
            "2",
            "--output",
            str(out_file),
            "--store",
            str(tmp_path / "runs.db"),
            "--no-cache",
            "--progress",
            "none",
        ],
        out=out,
    )
    assert code == 0, out.getvalue()
    assert "4 simulations (4 user_stop)" in out.getvalue()
    assert "pass^2  1.0000" in out.getvalue()
    loaded = Results.load(out_file)
    assert len(loaded.simulations) == 4 and loaded.info.num_trials == 2


def test_an_unknown_task_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "tau2",
            "--domain",
            "mock",
            "--task",
            "nope",
            "--store",
            str(tmp_path / "r.db"),
            "--output",
            str(tmp_path / "o.json"),
        ],
        out=io.StringIO(),
    )
    assert code == 2
    assert "has no task 'nope'" in capsys.readouterr().err
