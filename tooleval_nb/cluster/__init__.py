"""Scale out on Ray: a run's cells on many model replicas across a cluster (optional extra).

``te.run_eval(..., executor="ray")`` or ``executor=te.RayExecutor(...)``; see
``docs/cluster.md``. Modules: ``executor`` (the options, :func:`open_cluster`; no Ray import),
``session`` (the process's one Ray session: connected once, watched, shut down at exit or by
:func:`shutdown_cluster`; imports Ray), ``backend`` (an executor's replica pool, a job's cells
streamed back: imports Ray),
``replica`` (the actor that serves a model and runs cells), ``ratelimit`` (one rpm / tpm budget
shared by every replica), ``errors`` (:class:`ClusterError`). Ray is imported only when a run asks for it.
"""

from __future__ import annotations

from .errors import ClusterError
from .executor import RayExecutor, open_cluster, resolve_executor, shutdown_cluster

__all__ = ["ClusterError", "RayExecutor", "open_cluster", "resolve_executor", "shutdown_cluster"]
