"""Every notebook of ``notebooks/`` is a papermill report: it has a cell tagged ``parameters``,
and ``tooleval-nb report --notebook NAME -p KEY VALUE ...`` renders it with values other than its
defaults, which the output then reflects.

Each notebook's own parameters are read (``report.notebook_parameters``); the values given are
chosen by name from :data:`OVERRIDES`, and each name has its check on what the notebook stored or
printed: ``store`` (runs stored there), ``models`` (two models, both in the runs), ``max_cases``
(no run has more cases per model), ``suites`` (the runs' suites), ``formats`` (the formats
printed).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tooleval_nb import report
from tooleval_nb.runner import history
from tooleval_nb.testing import FakeOpenAIServer

from .conftest import ROOT

CLI = Path(sys.executable).with_name("tooleval-nb")
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
SECOND = {"model": "local/smollm2-135m", "label": "smollm2-b"}


#: notebooks whose ``models`` are model names only, as ``tooleval-nb report --model`` takes them
#: (the report template: ReportParams), not model entries
NAMES_ONLY = {"report.ipynb"}


def _overrides(name: str, store: Path, params: dict) -> dict[str, object]:
    """Non-default values by parameter name (a notebook gets those of its own parameters):
    ``max_cases`` half its default (at least 1; 1 where the default is None)."""
    default = ast.literal_eval(params["max_cases"].default) if "max_cases" in params else None
    models = ["local/smollm2-135m"] if name in NAMES_ONLY else ["local/smollm2-135m", SECOND]
    return {
        "store": str(store),
        "models": models,
        "max_cases": max(1, default // 2) if isinstance(default, int) else 1,
        "suites": [str(ROOT / "data" / "weather.json")],
        "formats": ["hermes"],
    }


def _outputs(nb_path: Path) -> str:
    nb = nbformat.read(str(nb_path), as_version=4)
    return "\n".join(
        o.get("text", "") or json.dumps(o.get("data", {}))
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
    )


def _render(
    path: Path,
    given: dict[str, object],
    out: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
) -> None:
    """``tooleval-nb report --notebook path -p KEY VALUE ...`` into ``out``: it exits 0, and the
    page it writes loads nothing from a CDN and shows no traceback."""
    cmd = [str(CLI), "report", "--notebook", str(path), "--output", str(out), "--progress", "none"]
    for key, value in given.items():
        cmd += ["-p", key, json.dumps(value)]
    run_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    run_env.pop("TOOLEVAL_REPORT_PARAMS", None)
    done = subprocess.run(cmd, capture_output=True, text=True, env=run_env, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    page = (out / f"{path.stem}.html").read_text(encoding="utf-8")
    assert "cdn.jsdelivr.net" not in page and "Traceback" not in page
    assert (out / "index.html").exists()


def test_every_notebook_has_a_parameters_cell():
    missing = []
    for name in NOTEBOOKS:
        try:
            report.notebook_parameters(ROOT / "notebooks" / name)
        except Exception as exc:  # noqa: BLE001 - collected, then shown all at once
            missing.append(f"{name}: {exc}")
    assert not missing, missing


def test_papermill_reads_every_assignment_of_a_parameters_cell():
    """A line papermill cannot parse is silently no parameter (06's ``model``, whose comment held
    parentheses, could not be set): every name the cell assigns must be a parameter."""
    unread = []
    for name in NOTEBOOKS:
        nb = nbformat.read(str(ROOT / "notebooks" / name), as_version=4)
        (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assigned = {
            t.id
            for node in ast.parse(cell.source).body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        read = set(report.notebook_parameters(ROOT / "notebooks" / name))
        unread += [f"{name}: {n}" for n in sorted(assigned - read)]
    assert not unread, unread


#: rendered in the default test run (CI's time: every notebook also runs under nbval and in the
#: browser test); the others under TOOLEVAL_SLOW=1
DEFAULT_RUN = {"02_compare_models.ipynb", "05_parser_conformance.ipynb", "report.ipynb"}


@pytest.mark.model
@pytest.mark.kernel
@pytest.mark.timeout(1200)
@pytest.mark.parametrize(
    "name", [n if n in DEFAULT_RUN else pytest.param(n, marks=pytest.mark.slow) for n in NOTEBOOKS]
)
def test_notebook_renders_with_its_parameters(name, tmp_path):
    path = ROOT / "notebooks" / name
    params = report.notebook_parameters(path)
    store = tmp_path / "runs.db"
    given = {k: v for k, v in _overrides(name, store, params).items() if k in params}
    assert given, f"{name}: none of its parameters ({', '.join(params)}) is exercised here"
    _render(path, given, tmp_path / "out", timeout=1100)
    nb_path = tmp_path / "out" / f"{path.stem}.ipynb"

    runs = history(store) if store.exists() else None
    if "store" in given:
        assert runs is not None and len(runs), f"{name}: nothing stored in the given store"
    if "models" in given:
        labels = {m for models in runs["models"] for m in models}
        want = {"local/smollm2-135m"} if name in NAMES_ONLY else {"local/smollm2-135m", "smollm2-b"}
        assert want <= labels, labels
    if "max_cases" in given and runs is not None:
        per_model = runs["n_total"] / runs["models"].map(len)
        # max_cases is per category where a notebook runs several (08: BFCL's categories)
        parts = len(ast.literal_eval(params["categories"].default)) if "categories" in params else 1
        assert (per_model <= given["max_cases"] * parts).all(), runs[["suite", "models", "n_total"]]
    elif "max_cases" in given:  # a notebook that stores no run (05) prints what it was given
        assert f"max_cases: {given['max_cases']}" in _outputs(nb_path)
    if "suites" in given:
        assert set(runs["suite"]) == {"weather"}, set(runs["suite"])
    if "formats" in given:
        assert "['hermes']" in _outputs(nb_path)


#: the notebooks whose ``models`` parameter takes model entries (dicts with their ``api_base``);
#: 05 asks no model, 06 and 07 one model name (``model``)
SERVED = [
    n
    for n in NOTEBOOKS
    if n not in NAMES_ONLY and "models" in report.notebook_parameters(ROOT / "notebooks" / n)
]


@pytest.fixture(scope="module")
def model_server():
    """One OpenAI-compatible server for every render (its own process, as a user's vLLM is)."""
    with FakeOpenAIServer(process=True, model="served-model") as server:
        yield server


@pytest.mark.kernel
@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", SERVED)
def test_notebook_renders_against_a_model_server_given_as_a_parameter(name, tmp_path, model_server):
    """Every notebook with a ``models`` parameter, rendered with two model entries that point at
    a server of the user's own (no embedded model): the runs stored hold both labels and no
    embedded model's, and the server was asked (its request count grows)."""
    path = ROOT / "notebooks" / name
    params = report.notebook_parameters(path)
    store = tmp_path / "runs.db"
    models = [
        {"model": "openai/served-model", "api_base": model_server.url, "label": label}
        for label in ("served-a", "served-b")
    ]
    given = {"store": str(store), "models": models}
    before = model_server.requests
    _render(
        path,
        given,
        tmp_path / "out",
        timeout=800,
        env={"OPENAI_API_KEY": "not-checked-by-the-server"},
    )
    runs = history(store)
    labels = {m for run_models in runs["models"] for m in run_models}
    want = {"served-a", "served-b"}
    if "modes" in params:  # 03 runs each model once per mode, the mode in its label
        want = {
            f"{label} ({mode})"
            for label in want
            for mode in ast.literal_eval(params["modes"].default)
        }
    # 04 also runs a scripted agent of its own (no model): any other label is the embedded model's
    assert want <= labels and not any("smollm2" in label for label in labels), labels
    assert model_server.requests > before
