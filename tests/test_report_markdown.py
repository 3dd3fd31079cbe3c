"""Text from a suite, a store or a model reaches ``report.html`` as text (issue 46): nbconvert
renders Markdown outputs with their raw HTML."""

from __future__ import annotations

from types import SimpleNamespace

import nbformat
import pandas as pd
import pytest

from tooleval_nb import report

HOSTILE = "<img src=x onerror=alert(1)>` <script>alert(2)</script> [x](javascript:alert(3))"


@pytest.mark.parametrize("render", [report.markdown_text, report.markdown_code])
def test_markdown_helpers_leave_no_markup(render):
    text = render(HOSTILE)
    assert "<img" not in text and "<script" not in text
    assert "[x]" not in text  # escaped: no link can form


def test_the_experiment_section_escapes_the_suite_and_its_names():
    timeline = pd.DataFrame({"kind": ["sweep"]})
    record = SimpleNamespace(run_id=HOSTILE, score=0.5, ci_low=0.4, ci_high=0.6)
    exp = SimpleNamespace(
        name=HOSTILE,
        suite=SimpleNamespace(name=HOSTILE),
        timeline=lambda: timeline,
        baseline=record,
        baselines={},
        best=SimpleNamespace(run_id=None, source=HOSTILE),
    )
    text = report.experiment_summary(exp)
    assert "<img" not in text and "<script" not in text
    assert "`" not in text.replace("\\`", "") and "[x]" not in text


def test_a_hostile_title_is_text_in_report_html(tmp_path):
    """The template's own title cell, rendered to HTML as the report is."""
    template = nbformat.read(str(report.TEMPLATE), as_version=4)
    title_cell = next(c for c in template.cells if "markdown_text(params.title)" in c.source)
    assert 'display(Markdown("# " + report.markdown_text(params.title)))' in title_cell.source
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "",
                outputs=[
                    nbformat.v4.new_output(
                        "display_data",
                        data={"text/markdown": "# " + report.markdown_text(HOSTILE)},
                    )
                ],
            )
        ]
    )
    path = tmp_path / "r.ipynb"
    nbformat.write(nb, str(path))
    out = report.export_html(path, tmp_path / "r.html", title=HOSTILE)
    page = out.read_text(encoding="utf-8")
    assert "<img src=x" not in page and "<script>alert(2)" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert 'href="javascript' not in page
