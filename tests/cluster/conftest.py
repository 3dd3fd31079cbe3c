"""One real local Ray cluster for the executor's tests (2 CPUs, the machine's: the tests' replicas
ask for half a CPU each, at most two at once for whole ones), started once per test run: every
test of this folder runs on one xdist worker, in order (tests/conftest.py, GROUPS). It lives as
long as the module that uses it: an idle cluster costs about 4% of a core (its raylet, GCS and
idle workers), which the rest of the run would pay."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[str]:
    """A local Ray cluster of 2 CPUs, shut down after the module; yields its GCS address."""
    for attempt in (1, 2):  # a busy machine can miss the raylet's 15 s window for its agents
        try:
            # "local": a new cluster of its own, never the one Ray's cluster file names (the
            # lifecycle tests leave a half-stopped `ray start` cluster's address there)
            ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
            break
        except Exception as exc:
            if attempt == 2 or "timed out during startup" not in str(exc):
                raise
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()
