"""``tooleval-nb bfcl`` (the subcommand is built here on its own parser: the lead wires it in)."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from tooleval_nb.cli.bfcl import add_bfcl_parser, cmd_bfcl
from tooleval_nb.errors import SuiteError


def _parse(argv):
    parser = argparse.ArgumentParser(prog="tooleval-nb")
    add_bfcl_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["bfcl", *argv])


def _handler(body):
    if any("factorial of 5" in str(m.get("content")) for m in body["messages"]):
        return {"content": "[math.factorial(number=5)]"}
    return {"content": "no"}


def test_cli_writes_the_files_and_prints_the_leaderboard(fake_server, bfcl_data, tmp_path):
    server = fake_server(handler=_handler)
    args = _parse(
        [
            "--model",
            "openai/fake",
            "--api-base",
            server.url,
            "--api-key",
            "k",
            "--category",
            "simple_python",
            "--category",
            "irrelevance",
            "--mode",
            "prompt",
            "--limit",
            "2",
            "--output",
            str(tmp_path / "out"),
            "--data-dir",
            str(bfcl_data),
            "--store",
            str(tmp_path / "s.db"),
            "--progress",
            "none",
            "--format",
            "json",
        ]
    )
    out = io.StringIO()
    assert cmd_bfcl(args, out, io.StringIO()) == 0
    (row,) = json.loads(out.getvalue())
    assert row["simple_python"] == 0.5 and row["irrelevance"] == 1.0
    assert (
        tmp_path / "out" / "result" / "openai_fake" / "non_live" / "BFCL_v4_irrelevance_result.json"
    ).is_file()


def test_cli_unknown_category(bfcl_data, tmp_path):
    args = _parse(
        [
            "--category",
            "simple",
            "--output",
            str(tmp_path),
            "--data-dir",
            str(bfcl_data),
            "--store",
            str(tmp_path / "s.db"),
        ]
    )
    with pytest.raises(SuiteError, match="valid categories"):
        cmd_bfcl(args, io.StringIO(), io.StringIO())


def test_cli_runs_a_multi_turn_category_through_bfcls_loop(fake_server, tmp_path, monkeypatch):
    pytest.importorskip("bfcl_eval.constants.default_prompts")
    from tooleval_nb.bfcl_rules.data import locate_data
    from tooleval_nb.testing import bfcl_script

    data = locate_data(None)  # the installed bfcl-eval's: the reference data has no multi-turn
    monkeypatch.setenv("TOOLEVAL_BFCL_DATA", str(data))
    bfcl_script.reset()
    server = fake_server(handler=bfcl_script.answer)
    args = _parse(
        [
            "--model",
            "openai/fake",
            "--api-base",
            server.url,
            "--api-key",
            "k",
            "--category",
            "multi_turn_base",
            "--mode",
            "fc",
            "--limit",
            "2",
            "--output",
            str(tmp_path / "out"),
            "--data-dir",
            str(data),
            "--store",
            str(tmp_path / "s.db"),
            "--progress",
            "none",
            "--format",
            "json",
        ]
    )
    out = io.StringIO()
    assert cmd_bfcl(args, out, io.StringIO()) == 0
    (row,) = json.loads(out.getvalue())
    # the script perturbs entry 0 and answers entry 1 right
    assert row["n_entries"] == 2 and row["n_passed"] == 1
    path = (
        tmp_path
        / "out"
        / "result"
        / "openai_fake-FC"
        / "multi_turn"
        / "BFCL_v4_multi_turn_base_result.json"
    )
    entries = [json.loads(x) for x in path.read_text().splitlines()]
    assert all(isinstance(turn, list) for e in entries for turn in e["result"])
