"""The code a suite file runs (issue 46): only from the suite's folder or an installed module,
``sys.path`` left as it was, listed by ``validate`` and the suite's display, refused on demand.

Each hostile grader plants a marker file when its module is executed: the marker's absence
proves nothing ran."""

from __future__ import annotations

import io
import json
import sys
import textwrap
from pathlib import Path

import pytest

import tooleval_nb as te
from tooleval_nb.cli import main as cli_main
from tooleval_nb.scoring import grade_code, score_case
from tooleval_nb.scoring.trace import Trace
from tooleval_nb.suite import EvalCase, GraderSpec, suite_code
from tooleval_nb.testing import FakeOpenAIServer

TRACE = Trace(input="hi", output="done")


def _marker_module(path: Path, marker: Path) -> None:
    """A grader module that writes ``marker`` when imported, and passes every case."""
    path.write_text(
        textwrap.dedent(f"""
        from pathlib import Path
        Path({str(marker)!r}).write_text("ran")

        def check(trace, case):
            return True
        """)
    )


def _suite_file(folder: Path, module: str, case_id: str = "c1") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "suite.json"
    path.write_text(
        json.dumps(
            {
                "name": "hostile",
                "tools": [],
                "cases": [
                    {
                        "name": case_id,
                        "prompt": "say hi",
                        "graders": [{"type": "code", "module": module, "function": "check"}],
                    }
                ],
            }
        )
    )
    return path


@pytest.mark.parametrize(
    "module",
    [
        pytest.param("../outside.py", id="relative-parent"),
        pytest.param("ABSOLUTE", id="absolute"),
        pytest.param("sub/../../outside.py", id="dot-dot-inside"),
    ],
)
def test_a_grader_outside_the_suite_folder_never_runs(tmp_path, module):
    marker = tmp_path / "MARKER"
    _marker_module(tmp_path / "outside.py", marker)
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "sub").mkdir()
    if module == "ABSOLUTE":
        module = str(tmp_path / "outside.py")
    spec = GraderSpec(type="code", module=module, function="check")
    case = EvalCase(id="c1", prompt="hi", graders=[spec])
    for _ in range(2):  # twice in one process: nothing cached lets it through later
        result = grade_code(spec, case, TRACE, base_dir=folder)
        assert not result.passed and result.error == "refused"
        assert "outside the suite's folder" in result.reason and module in result.reason
    assert not marker.exists()


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path):
    marker = tmp_path / "MARKER"
    _marker_module(tmp_path / "outside.py", marker)
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "graders.py").symlink_to(tmp_path / "outside.py")
    for module in ("graders.py", "graders"):
        spec = GraderSpec(type="code", module=module, function="check")
        result = grade_code(spec, EvalCase(id="c", prompt="p"), TRACE, base_dir=folder)
        assert result.error == "refused", module
    assert not marker.exists()


def test_a_dotted_grader_leaves_sys_path_as_it_was(tmp_path):
    folder = tmp_path / "suite"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "helper_46.py").write_text("VALUE = 'from the helper'\n")
    (folder / "pkg" / "checks.py").write_text(
        "import helper_46\n\ndef check(trace, case):\n    return {'passed': True, "
        "'reason': helper_46.VALUE}\n"
    )
    before = list(sys.path)
    spec = GraderSpec(type="code", module="pkg.checks", function="check")
    for _ in range(2):
        result = grade_code(spec, EvalCase(id="c", prompt="p"), TRACE, base_dir=folder)
        assert result.passed and result.reason == "from the helper"
        assert sys.path == before
    assert str(folder) not in sys.path and str(folder.resolve()) not in sys.path


def test_two_suites_with_a_module_of_the_same_name_each_get_their_own(tmp_path):
    for name, verdict in (("a", True), ("b", False)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "graders.py").write_text(
            f"def check(trace, case):\n    return {verdict}\n"
        )
    spec = GraderSpec(type="code", module="graders", function="check")
    case = EvalCase(id="c", prompt="p")
    assert grade_code(spec, case, TRACE, base_dir=tmp_path / "a").passed
    assert not grade_code(spec, case, TRACE, base_dir=tmp_path / "b").passed


def test_an_installed_module_is_imported_by_name(tmp_path):
    spec = GraderSpec(type="code", module="operator", function="is_not")
    result = grade_code(spec, EvalCase(id="c", prompt="p"), TRACE, base_dir=tmp_path)
    assert result.passed and result.error is None  # operator.is_not(trace, case) is True


def test_text_that_is_no_module_name_is_refused(tmp_path):
    spec = GraderSpec(type="code", module="os; import x", function="check")
    result = grade_code(spec, EvalCase(id="c", prompt="p"), TRACE, base_dir=tmp_path)
    assert result.error == "refused" and "dotted module name" in result.reason


def test_code_graders_false_refuses_even_the_suites_own(tmp_path):
    marker = tmp_path / "MARKER"
    folder = tmp_path / "suite"
    folder.mkdir()
    _marker_module(folder / "graders.py", marker)
    case = EvalCase(
        id="c", prompt="p", graders=[GraderSpec(type="code", module="graders", function="check")]
    )
    for _ in range(2):
        score = score_case(case, [], "hi", base_dir=folder, code_graders=False)
        (grade,) = score.grades
        assert not grade.passed and grade.error == "refused"
        assert "code_graders=False" in grade.reason
    assert not marker.exists()
    assert score_case(case, [], "hi", base_dir=folder).grades[0].passed
    assert marker.exists()


def test_a_run_from_a_suite_file_never_runs_outside_code(tmp_path, store_path):
    marker = tmp_path / "MARKER"
    _marker_module(tmp_path / "outside.py", marker)
    path = _suite_file(tmp_path / "suite", "../outside.py")
    with FakeOpenAIServer() as fake:
        model = {"model": "openai/fake", "api_base": fake.url, "api_key": "sk-x"}
        run = te.run_eval(str(path), [model], progress="none", cache=False).result()
        row = run.results_df().iloc[0]
    assert not marker.exists()
    assert not row["passed"]
    detail = run.detail("c1")
    (grade,) = detail["score"]["grades"]
    assert grade["error"] == "refused" and "outside the suite's folder" in grade["reason"]


def test_no_code_graders_on_the_command_line(tmp_path, store_path):
    marker = tmp_path / "MARKER"
    folder = tmp_path / "suite"
    folder.mkdir()
    _marker_module(folder / "graders.py", marker)
    path = _suite_file(folder, "graders")
    with FakeOpenAIServer() as fake:
        out = io.StringIO()
        code = cli_main(
            [
                "run",
                "--suite",
                str(path),
                "--model",
                "openai/fake",
                "--api-base",
                fake.url,
                "--no-code-graders",
                "--no-cache",
                "--progress",
                "none",
                "--format",
                "json",
            ],
            out=out,
        )
    assert code == 0
    assert not marker.exists()
    rows = json.loads(out.getvalue())
    assert rows and not rows[0]["passed"]


def test_validate_and_the_display_list_the_code(tmp_path):
    inside = _suite_file(tmp_path / "a", "graders")
    (tmp_path / "a" / "graders.py").write_text("def check(t, c):\n    return True\n")
    outside = _suite_file(tmp_path / "b", "../evil.py")
    out = io.StringIO()
    assert cli_main(["validate", str(inside), str(outside)], out=out) == 0
    text = out.getvalue()
    assert f"c1: graders : check() runs {(tmp_path / 'a' / 'graders.py').resolve()}" in text
    assert "c1: ../evil.py : check() refused: " in text
    suite = te.load_suite(outside)
    (listed,) = suite_code(suite)
    assert listed.kind == "refused"
    html = suite._repr_mimebundle_()["text/html"]
    assert "Code this suite runs" in html and "../evil.py" in html
