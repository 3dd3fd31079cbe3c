"""CSV exports neutralise spreadsheet formulas by default (issue 46): a model's output or a
suite's text that starts with = + - @ is shown by a spreadsheet, never run."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

import tooleval_nb as te
from tooleval_nb.cli import main
from tooleval_nb.runner.export import write_frame
from tooleval_nb.testing import FakeOpenAIServer

FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)"]


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


@pytest.mark.parametrize("formula", FORMULAS)
def test_write_frame_neutralises_formulas(formula):
    df = pd.DataFrame({"content": [formula, "plain"], "n": [-1.5, 2.0], formula: [1, 2]})
    out = io.StringIO()
    write_frame(df, out, "csv")
    cells = _cells(out.getvalue())
    assert "'" + formula in cells and formula not in cells  # the header too
    assert "-1.5" in cells  # numbers stay numbers
    kept = io.StringIO()
    write_frame(df, kept, "csv", formulas=True)
    assert formula in _cells(kept.getvalue())


def test_cli_exports_of_model_output_neutralise_formulas(tmp_path, store_path, make_suite):
    formula = FORMULAS[0]
    with FakeOpenAIServer(handler=lambda body: {"content": formula}) as fake:
        model = {"model": "openai/fake", "api_base": fake.url, "api_key": "sk-x"}
        run = te.run_eval(make_suite(1), [model], progress="none", cache=False).result()
    assert run.results_df()["content"].iloc[0] == formula
    for _ in range(2):
        out = io.StringIO()
        assert main(["export", run.id, "--output", "-"], out=out) == 0
        cells = _cells(out.getvalue())
        assert "'" + formula in cells and formula not in cells
    kept = io.StringIO()
    assert main(["export", run.id, "--output", "-", "--keep-formulas"], out=kept) == 0
    assert formula in _cells(kept.getvalue())
    history = io.StringIO()
    assert main(["history", "--format", "csv"], out=history) == 0
