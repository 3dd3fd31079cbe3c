"""Shared fixtures: no API keys, no network, the embedded model server when a test asks for it."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tooleval_nb.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
REFERENCE = ROOT.parent / "shared" / "reference"
BFCL_DATA = REFERENCE / "bfcl" / "data"
BFCL_RESULTS = REFERENCE / "bfcl" / "results" / "glyphh-ada-1.1"

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
def _cache_per_test(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
                    _private_cache: None) -> Iterator[None]:
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
def bfcl_data() -> Path:
    if not BFCL_DATA.exists():
        pytest.skip(f"BFCL reference data not found at {BFCL_DATA}")
    return BFCL_DATA


@pytest.fixture(scope="session")
def bfcl_results() -> Path:
    if not BFCL_RESULTS.exists():
        pytest.skip(f"BFCL reference results not found at {BFCL_RESULTS}")
    return BFCL_RESULTS


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
