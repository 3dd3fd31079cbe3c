"""Hostile values at the doors where input arrives from outside (issue 46): report parameters,
endpoints given with a key in the URL, and a model's repr.

Each test plants a marker that only running code would create, or a key that must then appear
in no written file."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import nbformat
import pytest
from pydantic import ValidationError

import tooleval_nb as te
import tooleval_nb.experiments as tx
from tooleval_nb import report
from tooleval_nb.cli import main
from tooleval_nb.credentials import url_credentials, url_refusal
from tooleval_nb.errors import ModelConfigError, ToolEvalError
from tooleval_nb.runner.settings import RunSettings

KEY = "sk-hostile-46-0123456789"


def _notebook(path: Path) -> Path:
    cells = [
        nbformat.v4.new_markdown_cell("# Parameters as data"),
        nbformat.v4.new_code_cell(
            "suite_file = None\nmodels = []\nstore = None", metadata={"tags": ["parameters"]}
        ),
        nbformat.v4.new_code_cell("print(repr(suite_file), len(models))"),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, str(path))
    return path


def _files_text(folder: Path) -> str:
    return "".join(
        p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file()
    )


@pytest.mark.kernel
def test_a_parameter_value_never_runs_in_the_kernel(tmp_path, store_path):
    marker = tmp_path / "MARKER"
    nb = _notebook(tmp_path / "params.ipynb")
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('ran')"
    hostile = '("\\"+str(' + payload + ')+\\"",)'  # a tuple holding a quote
    out = tmp_path / "site"
    code = main(
        ["report", "--notebook", str(nb), "-p", "suite_file", hostile, "--output", str(out)],
        out=io.StringIO(),
    )
    assert code == 0
    assert not marker.exists()
    executed = nbformat.read(str(out / "params.ipynb"), as_version=4)
    printed = "".join(o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    assert "['\"+str(__import__" in printed  # the value arrived as data: a list of one text


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("{1, 2}", id="set"),
        pytest.param("b'x'", id="bytes"),
        pytest.param("{1: 'a'}", id="int-key"),
        pytest.param("1j", id="complex"),
    ],
)
def test_a_value_that_is_not_json_data_is_named(tmp_path, value):
    nb = _notebook(tmp_path / "params.ipynb")
    with pytest.raises(ToolEvalError, match=r"params.ipynb: parameter 'suite_file'"):
        report.coerce_values(nb, {"suite_file": value})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        pytest.param("models", f'[{{"model": "openai/x", "api_key": "{KEY}"}}]', id="api_key"),
        pytest.param(
            "models",
            f'[{{"model": "openai/x", "extra_headers": {{"Authorization": "Bearer {KEY}"}}}}]',
            id="header",
        ),
        pytest.param("suite_file", f"https://{KEY}@gateway.example/v1", id="url-user"),
    ],
)
def test_a_key_in_a_parameter_is_refused_and_written_nowhere(tmp_path, store_path, name, value):
    nb = _notebook(tmp_path / "params.ipynb")
    out = tmp_path / "site"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(
            ["report", "--notebook", str(nb), "-p", name, value, "--output", str(out)],
            out=io.StringIO(),
        )
    assert code == 2
    assert "refused" in err.getvalue() and "--api-key-env" in err.getvalue()
    assert KEY not in err.getvalue()
    written = _files_text(tmp_path)
    assert KEY not in written.replace(value, "")  # only our own test input holds it
    assert not (out / "params.ipynb").exists()


# -- one credential check at every door -----------------------------------------------------------
TOKEN_URL = f"https://{KEY}@gateway.example/v1"


def test_a_user_name_in_a_url_is_a_credential():
    assert url_credentials(TOKEN_URL) == ["a user name"]
    assert url_credentials("https://u:pw@h/v1") == ["a password"]
    assert url_credentials("http://127.0.0.1:8000/v1") == []
    message = url_refusal(TOKEN_URL, "api_base")
    assert message and "a user name" in message and KEY not in message


def _doors():
    yield "ModelSpec", lambda: te.ModelSpec(model="openai/x", api_base=TOKEN_URL)
    yield "ModelSpec.of", lambda: te.ModelSpec.of("openai/x", api_base=TOKEN_URL)
    yield (
        "call_model",
        lambda: te.call_model("openai/x", [{"role": "user", "content": "hi"}], api_base=TOKEN_URL),
    )
    yield "Config", lambda: tx.Config(model="openai/x", api_base=TOKEN_URL)
    yield "RayExecutor", lambda: te.RayExecutor(endpoints={"openai/x": [TOKEN_URL]})
    yield "RunSettings.live_tools", lambda: RunSettings(live_tools=TOKEN_URL + "/mcp")
    yield "ReportParams", lambda: report.validate_params(api_base=TOKEN_URL)


@pytest.mark.parametrize(("door", "make"), list(_doors()), ids=[d for d, _ in _doors()])
def test_every_door_that_takes_an_endpoint_refuses_a_key_in_it(door, make):
    with pytest.raises((ValidationError, ModelConfigError, ToolEvalError, ValueError)) as info:
        make()
    assert "user name" in str(info.value)
    assert KEY not in str(info.value)


def test_repr_and_str_of_a_model_show_no_header_credential():
    spec = te.ModelSpec(
        model="openai/x",
        api_key=KEY,
        params={"extra_headers": {"Authorization": f"Bearer {KEY}"}, "top_p": 0.5},
    )
    for text in (repr(spec), str(spec)):
        assert KEY not in text and "'Authorization': '***'" in text and "top_p" in text
    assert spec.params["extra_headers"]["Authorization"] == f"Bearer {KEY}"  # still sent
