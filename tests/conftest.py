"""Shared fixtures and the test tiers.

No API keys, no network; a private run store and reply cache per worker; one fixture family for
what most tests need: :func:`fake_server` (the local fake OpenAI-compatible server, its faults as
arguments), :func:`store` (a run store's path) and :func:`make_suite` (a weather suite of ``n``
cases).

The tiers (README, "Tests"): a test carries the markers of what it starts, ``model`` (the
embedded llama.cpp model), ``browser`` (JupyterLab in headless Chromium), ``ray`` (a Ray
cluster), ``kernel`` (a Jupyter kernel or a papermill render) and ``slow``; the fixtures in
:data:`IMPLIED` add theirs. ``bash scripts/test.sh --fast`` runs the tests with none of them.
Under pytest-xdist the tests of one heavy resource run on one worker, in order
(:data:`GROUPS`): one JupyterLab and one browser, one llama.cpp server for the model tests, and
Ray's session cluster is started once.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tooleval_nb.suite import Suite
from tooleval_nb.testing import FakeOpenAIServer, weather_suite

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

#: markers implied by a fixture a test uses
IMPLIED = {"ray_cluster": "ray", "browser": "browser"}
#: markers implied by a test's folder (under tests/)
FOLDERS = {"cluster": "ray"}
#: the xdist group (one worker, in order) of a test carrying one of these markers; the first
#: that matches wins. The browser's notebooks and the model tests are two groups, so two
#: llama.cpp servers may run at once: the test command gives each one decode thread
#: (TOOLEVAL_LLAMA_THREADS=1), and two one-thread servers share two cores without stalling
#: each other (two-thread ones did).
GROUPS = {"browser": "browser", "model": "model", "ray": "ray"}
#: the folders (under tests/) whose tests of a group join another group: the model tests that
#: ask the embedded model what a notebook in the browser asks join the browser's group, so that
#: those replies are computed once (one worker, one after the other, one reply cache): the
#: notebooks' renders (e2e), 06_experiments (experiments), 09_tau2 (tau2's mock tasks)
JOINS = {
    ("e2e", "model"): "browser",
    ("experiments", "model"): "browser",
    ("tau2", "model"): "browser",
}


TESTS = Path(__file__).resolve().parent


def pytest_itemcollected(item: pytest.Item) -> None:
    """Add the markers a test's folder and fixtures imply, then its xdist group: as each test is
    collected, so that both the ``-m`` selection and xdist (whose own hook may run before any
    of ours in ``pytest_collection_modifyitems``) see them."""
    folder = item.path.parent
    # the test's folder under tests/ (None for tests/ itself and anything outside it)
    top = (
        folder.relative_to(TESTS).parts[0]
        if folder.is_relative_to(TESTS) and folder != TESTS
        else None
    )
    marker = FOLDERS.get(top) if top else None
    if marker:
        item.add_marker(marker)
    for fixture, marker in IMPLIED.items():
        if fixture in getattr(item, "fixturenames", ()):
            item.add_marker(marker)
    for marker, group in GROUPS.items():
        if item.get_closest_marker(marker) is not None:
            group = JOINS.get((top, group), group)
            item.add_marker(pytest.mark.xdist_group(group))
            if getattr(item.config.option, "loadgroup", False):
                _group_suffix(item, group)
            break


def _group_suffix(item: pytest.Item, group: str) -> None:
    """Mark ``item``'s xdist group on its node id (``test@group``), as pytest-xdist does.

    pytest-xdist 3.8 writes that suffix to ``item._nodeid``; pytest 9 keeps a node's id in
    ``item._id``, so xdist's own write has no effect and ``--dist loadgroup`` would spread a
    group over every worker (two llama.cpp processes, two JupyterLabs at once). The suffix is
    written where pytest reads it."""
    if "@" in item.nodeid:
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # an older pytest: xdist's own suffix works there
        return
    if hasattr(item, "_id"):
        item._id = NodeId.parse(f"{item.nodeid}@{group}")


def _refuse(what: str, marker: str, nodeid: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(
            f"{nodeid} {what} but is not marked {marker!r}: add @pytest.mark.{marker} "
            "(the tiers of tests/conftest.py; the fast tier must never start one)"
        )

    return refuse


class _NoSpawn:
    """The :mod:`subprocess` module as a module that may not spawn sees it: ``Popen`` refused."""

    def __init__(self, refuse: Callable[..., Any]) -> None:
        self.Popen = refuse

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)


@pytest.fixture(autouse=True)
def _tier_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The markers are true: a test not marked ``model`` cannot spawn the embedded model's server
    in this process, and one marked neither ``kernel`` nor ``browser`` cannot start a Jupyter
    kernel (a test that does either fails, naming the marker to add). Processes a test starts
    (a CLI, a kernel-like script) are its own to mark."""
    node = request.node
    if node.get_closest_marker("model") is None:
        from tooleval_nb.models import embedded

        # only the spawn is refused: the checks before it (a missing package, a missing model
        # file) stay testable in every tier
        monkeypatch.setattr(
            embedded,
            "subprocess",
            _NoSpawn(_refuse("starts the embedded model", "model", node.nodeid)),
        )
    if node.get_closest_marker("kernel") is None and node.get_closest_marker("browser") is None:
        from jupyter_client.manager import KernelManager

        monkeypatch.setattr(
            KernelManager,
            "_async_pre_start_kernel",
            _refuse("starts a Jupyter kernel", "kernel", node.nodeid),
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
    """Each test session gets its own reply cache, so no run answers from an earlier one (the
    test command makes one, ``TOOLEVAL_TEST_CACHE``, new for each of its runs, which both
    workers share: the embedded model's answers are computed once per pytest run), and each xdist
    worker its own default run store, so the store's cross-process job slots never make one
    worker's jobs queue behind the other's."""
    shared = os.environ.get("TOOLEVAL_TEST_CACHE")
    cache = shared or str(tmp_path_factory.mktemp("response-cache"))
    os.environ["TOOLEVAL_CACHE_DIR"] = cache
    os.environ["TOOLEVAL_STORE"] = str(tmp_path_factory.mktemp("run-store") / "runs.db")
    # the key that signs the jobs a test records (runner/trust.py), never the user's own
    os.environ["TOOLEVAL_TRUST_KEY"] = str(tmp_path_factory.mktemp("trust") / "trust.key")


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


# -- the fixture family: fake servers, a store, a suite -------------------------------------------
@pytest.fixture
def fake_server() -> Iterator[Callable[..., FakeOpenAIServer]]:
    """``fake_server(**faults)``: a started fake OpenAI-compatible server, stopped at the test's
    end. Its faults and answers are :class:`~tooleval_nb.testing.FakeOpenAIServer`'s arguments:
    ``handler``, ``latency``, ``retry_after``, ``hang``, ``schedule``, ``reject_required``,
    ``record``, ``process``, ``port``, ``model``. Call it again for a second server."""
    started: list[FakeOpenAIServer] = []

    def start(**faults: Any) -> FakeOpenAIServer:
        server = FakeOpenAIServer(**faults).start()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.stop()


@pytest.fixture
def fake(fake_server: Callable[..., FakeOpenAIServer]) -> FakeOpenAIServer:
    """One fake server that answers at once, asks for a short back-off on 429 and hangs 5 s."""
    return fake_server(retry_after=0.01, hang=5.0)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A new run store's path in the test's folder, also the default store (``TOOLEVAL_STORE``):
    nothing a test runs reaches the worker's or the user's store."""
    path = str(tmp_path / "runs.db")
    monkeypatch.setenv("TOOLEVAL_STORE", path)
    return path


@pytest.fixture
def store_path(store: str) -> str:
    """The same as :func:`store` (its older name)."""
    return store


@pytest.fixture
def make_suite() -> Callable[..., Suite]:
    """``make_suite(n, marks=None, name="weather", tools=None, categories=None)``: a suite of
    ``n`` cases the fake server answers right (:func:`tooleval_nb.testing.weather_suite`)."""
    return weather_suite
