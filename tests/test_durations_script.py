"""``scripts/durations.py``: a test's id without its xdist group, two runs compared, the CSV, and a
file it cannot read."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "durations.py"

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.e2e.test_notebooks" name="test_nb[08_bfcl.ipynb]@browser]" time="137.9"/>
  <testcase classname="tests.bfcl.test_loop" name="test_loop@model" time="88.0"/>
  <testcase classname="tests.cluster.test_lifecycle" name="test_runs@ray" time="105.8">
    <failure message="boom"/>
  </testcase>
  <testcase classname="tests.test_cli" name="test_x" time="1.5"><skipped/></testcase>
</testsuite></testsuites>
"""


def _module():
    spec = importlib.util.spec_from_file_location("durations", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_tests_id_drops_its_group_whichever_group(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT, encoding="utf-8")
    assert _module().read(path) == {
        "tests.e2e.test_notebooks::test_nb[08_bfcl.ipynb]": (137.9, "passed"),
        "tests.bfcl.test_loop::test_loop": (88.0, "passed"),
        "tests.cluster.test_lifecycle::test_runs": (105.8, "failed"),
        "tests.test_cli::test_x": (1.5, "skipped"),
    }


def test_a_run_written_as_csv_compares_with_the_xml_it_came_from(tmp_path, capsys):
    durations = _module()
    path, table = tmp_path / "junit.xml", tmp_path / "run.csv"
    path.write_text(JUNIT, encoding="utf-8")
    assert durations.main([str(path), "--csv", str(table)]) == 0
    assert durations.read(table) == durations.read(path)
    capsys.readouterr()
    assert durations.main([str(path), "--compare", str(table), "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "0 test ids of before are not in after" in out
    assert out.count("137.9 s  tests.e2e.test_notebooks::test_nb[08_bfcl.ipynb]") == 2
    assert "105.8 s  tests.cluster.test_lifecycle::test_runs  [failed]" in out


def test_a_file_it_cannot_read_is_named(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<testsuites><testcase", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"bad\.xml: cannot be read \(ParseError"):
        _module().main([str(bad)])
