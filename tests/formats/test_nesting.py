"""Deeply nested suite files are suite errors naming the file (issue 46), never a bare
RecursionError."""

from __future__ import annotations

import io

import pytest

import tooleval_nb as te
from tooleval_nb.cli import main


def _deep_json(depth: int) -> str:
    value = "[" * depth + "]" * depth
    return (
        '{"name": "deep", "test_cases": [{"name": "c", "prompt": "p", "expected_tool": "t", '
        f'"expected_params": {{"a": {value}}}}}]}}'
    )


@pytest.mark.parametrize(
    ("depth", "says"),
    [
        pytest.param(50_000, "nest deeper than JSON can be read", id="50000-brackets"),
        pytest.param(500, "values nest deeper than 100 levels", id="500-brackets"),
    ],
)
def test_deep_json_is_a_suite_error(tmp_path, depth, says):
    path = tmp_path / "deep.json"
    path.write_text(_deep_json(depth))
    for _ in range(2):
        with pytest.raises(te.SuiteError) as info:
            te.load_suite(path)
        assert str(path) in str(info.value) and says in str(info.value)
    out = io.StringIO()
    assert main(["validate", str(path)], out=out) == 1
    assert says in out.getvalue()


def test_deep_yaml_is_a_suite_error(tmp_path):
    path = tmp_path / "deep.yaml"
    value = "[" * 300 + "]" * 300
    path.write_text(
        f"kind: suite\nname: deep\ncases:\n- name: c\n  input: p\n  metadata: {{a: {value}}}\n"
    )
    with pytest.raises(te.SuiteError, match="nest"):
        te.load_suite(path)


def test_deep_bfcl_lines_are_suite_errors(tmp_path):
    path = tmp_path / "BFCL_v4_simple_python.json"
    path.write_text('{"id": "simple_0", "question": ' + "[" * 50_000 + "]" * 50_000 + "}\n")
    with pytest.raises(te.SuiteError, match="nest too deep"):
        te.load_suite(path)


def test_a_normal_depth_still_loads(tmp_path):
    path = tmp_path / "ok.json"
    path.write_text(_deep_json(20))
    params = te.load_suite(path).cases[0].expected_params
    assert str(params["a"]) == "[" * 20 + "]" * 20
