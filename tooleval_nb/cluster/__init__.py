"""Scale out on Ray: a run's cells on many model replicas across a cluster (optional extra).

``te.run_eval(..., executor="ray")`` or ``executor=te.RayExecutor(...)``; see
``docs/cluster.md``. Modules: ``executor`` (the options, :func:`open_cluster`; no Ray import),
``backend`` (the connection, the replica pool, a job's cells streamed back: imports Ray),
``replica`` (the actor that serves a model and runs cells), ``ratelimit`` (one rpm / tpm budget
shared by every replica), ``errors`` (:class:`ClusterError`). Ray is imported only when a run asks for it.
"""

from __future__ import annotations

from .errors import ClusterError
from .executor import RayExecutor, open_cluster, resolve_executor

__all__ = ["ClusterError", "RayExecutor", "open_cluster", "resolve_executor"]
