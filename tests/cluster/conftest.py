"""One real local Ray cluster for the session (4 CPUs: several worker processes), a fake
OpenAI-compatible server, a store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """A local Ray cluster of 4 CPUs, shut down after the session; yields its GCS address."""
    for attempt in (1, 2):  # a busy machine can miss the raylet's 15 s window for its agents
        try:
            # "local": a new cluster of its own, never the one Ray's cluster file names (the
            # lifecycle tests leave a half-stopped `ray start` cluster's address there)
            ray.init(address="local", num_cpus=4, include_dashboard=False, log_to_driver=False)
            break
        except Exception as exc:
            if attempt == 2 or "timed out during startup" not in str(exc):
                raise
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()
