"""Shared fixtures: no API keys, no network, the embedded model server when a test asks for it."""

from __future__ import annotations

import hashlib
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tooleval_nb.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
#: optional: the reference folder beside the checkout (nothing needs it; see bfcl_data)
REFERENCE = ROOT.parent / "shared" / "reference"
BFCL_DATA = REFERENCE / "bfcl" / "data"
#: a real model's BFCL results with the official verdicts (source and licence: its README.md)
BFCL_RESULTS_ARCHIVE = ROOT / "tests" / "fixtures" / "bfcl" / "glyphh-ada-1.1.tar.xz"
#: the single-turn categories the BFCL tests use (the reference results cover these)
BFCL_SINGLE_TURN = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)

_KEY_VARS = [k for k in os.environ if k.endswith(("_API_KEY", "_API_TOKEN", "_API_BASE"))]


@pytest.fixture(autouse=True)
def _no_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may use a real provider's credentials."""
    for key in _KEY_VARS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test session gets its own response cache, so no run answers from an earlier one."""
    os.environ["TOOLEVAL_CACHE_DIR"] = str(tmp_path_factory.mktemp("response-cache"))


@pytest.fixture(autouse=True)
def _cache_per_test(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, _private_cache: None
) -> Iterator[None]:
    """Tests on local fake servers get a cache of their own: the cache is keyed by the endpoint,
    and a later test's fake server may get the port of an earlier one that planted other answers
    (a cached wrong answer would then leak in). Embedded-model tests share the session's cache."""
    if request.node.get_closest_marker("model") is None:
        digest = hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:16]
        folder = Path(os.environ["TOOLEVAL_CACHE_DIR"]) / "tests" / digest
        monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(folder))
        yield
        from tooleval_nb.models import cache

        opened = cache._DEFAULTS.pop(folder / "responses.sqlite3", None)
        if opened is not None:
            opened.close()
    else:
        yield


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def bfcl_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of BFCL's single-turn question and answer files: those inside the installed
    bfcl-eval wheel (scripts/setup.sh installs it with --no-deps), linked into one folder with
    only these categories; ../shared/reference/bfcl/data (byte-identical) when no wheel is
    installed."""
    import importlib.metadata

    try:
        wheel = Path(
            str(importlib.metadata.distribution("bfcl-eval").locate_file("bfcl_eval/data"))
        )
    except importlib.metadata.PackageNotFoundError:
        wheel = None
    if wheel is None or not wheel.is_dir():
        if BFCL_DATA.exists():
            return BFCL_DATA
        pytest.skip(
            "BFCL data not found: install it with `bash scripts/setup.sh` (bfcl-eval, "
            f"--no-deps) or put the reference folder at {BFCL_DATA}"
        )
    folder = tmp_path_factory.mktemp("bfcl-data")
    (folder / "possible_answer").mkdir()
    for category in BFCL_SINGLE_TURN:
        name = f"BFCL_v4_{category}.json"
        (folder / name).symlink_to(wheel / name)
        if (wheel / "possible_answer" / name).is_file():
            (folder / "possible_answer" / name).symlink_to(wheel / "possible_answer" / name)
    return folder


@pytest.fixture(scope="session")
def bfcl_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference results with their official score files (result/, score/), unpacked from
    the compressed fixture in tests/fixtures/bfcl."""
    folder = tmp_path_factory.mktemp("bfcl-results")
    with tarfile.open(BFCL_RESULTS_ARCHIVE, "r:xz") as archive:
        archive.extractall(folder, filter="data")
    return folder / "glyphh-ada-1.1"


# -- shared by the runner's and the cluster's tests ---------------------------------------------
@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server (tests/models has its own, with other defaults)."""
    with FakeOpenAIServer(retry_after=0.01, hang=5.0) as server:
        yield server


@pytest.fixture
def store_path(tmp_path, monkeypatch) -> str:
    path = str(tmp_path / "runs.db")
    monkeypatch.setenv("TOOLEVAL_STORE", path)  # nothing may reach the user's real store
    return path
