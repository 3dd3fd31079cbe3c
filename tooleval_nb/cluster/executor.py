"""Where a run's cells execute: ``executor="local"`` (this process's loop) or a Ray cluster.

:class:`RayExecutor` holds the options (validated; Ray itself is not imported here, so building
one costs nothing and a missing Ray is reported when a run uses it). ``executor="ray"`` is one
process-wide ``RayExecutor()`` with its defaults, so its replicas (and the llama.cpp servers they
started) stay warm from one run to the next, as a sweep's configurations follow each other.

:func:`open_cluster` is what the runner calls when a job starts: ``None`` for the local
executor, else the job's :class:`~.backend.ClusterJob`, connected before any cell runs.
"""

from __future__ import annotations

import sys
import weakref
from typing import TYPE_CHECKING, Any, Literal

from pydantic import PrivateAttr

from ..extras import install_command, require_extra
from .errors import ClusterError
from .options import RayOptions

if TYPE_CHECKING:  # pragma: no cover
    from .backend import ClusterJob, RayBackend

__all__ = [
    "ClusterError",
    "ExecutorArg",
    "RayExecutor",
    "open_cluster",
    "resolve_executor",
    "RAY_EXTRA",
    "shutdown_cluster",
]

#: what installs the Ray executor's dependency
RAY_EXTRA = install_command("ray")


class RayExecutor(RayOptions):
    """Run a job's cells on a Ray cluster: ``te.run_eval(..., executor=te.RayExecutor(...))``.

    Each model is served by **replicas**, Ray actors that run cells (the model calls, chains and
    agent loops) and stream each cell's outcome back; the driver (this process) scores and
    stores every cell, as a local run does.

    * the embedded model: each replica starts its own llama.cpp server on its node (stopped
      when the replica dies); a model in ``gguf`` likewise serves the GGUF file at that path;
    * a model in ``endpoints``: one replica per endpoint (``api_base``), e.g. one vLLM server
      per GPU node;
    * any other model (a hosted API): ``replicas`` replicas call it; the run's ``rpm`` /
      ``tpm`` budget is held by one Ray actor, so together they never exceed it.

    Its options (``address``, ``replicas``, ``endpoints``, ``gguf``, ...) are those of
    :class:`~.options.RayOptions`, which the replica pool copies.

    Lifecycle: the first run connects the process's Ray session (or starts a local cluster)
    and later runs reuse it; :func:`shutdown_cluster` ends it. ``close()`` (or leaving a
    ``with`` block, or dropping the last reference) stops this executor's replicas; a closed
    executor runs nothing more.
    """

    _backend: Any = PrivateAttr(default=None)
    _closed: bool = PrivateAttr(default=False)
    #: a run's own executor (``executor="ray"``): that run closes it when it ends
    _per_run: bool = PrivateAttr(default=False)

    def backend(self) -> RayBackend:
        """This executor's replica pool (created on first use)."""
        if self._closed:
            raise ClusterError(
                "this RayExecutor was closed (executor.close()); create a new "
                "one for the next run: executor=te.RayExecutor(...), or "
                "executor='ray'"
            )
        if self._backend is None:
            require_ray()
            # ray is an optional extra: the backend (which imports it) loads only for a run
            # that asks for the Ray executor
            from .backend import RayBackend

            backend = self._backend = RayBackend(self)
            # collected without close(): its replicas stop (the pool holds no reference back)
            weakref.finalize(self, backend.close).atexit = False
        return self._backend  # type: ignore[no-any-return]

    def shutdown(self) -> None:
        """Stop this executor's replicas (and the model servers they started). The cluster
        itself stays up; the executor's next run starts new replicas."""
        if self._backend is not None:
            self._backend.shutdown()

    def close(self) -> None:
        """Stop this executor's replicas for good: a later run on it fails, naming what to
        create. The Ray session stays up (:func:`shutdown_cluster` ends it). Closing twice is
        harmless."""
        self._closed = True
        if self._backend is not None:
            self._backend.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def shutdown_cluster(self) -> bool:
        """:func:`tooleval_nb.shutdown_cluster`: stop every executor's replicas and end the Ray
        session this process connected or started."""
        return shutdown_cluster()

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.model_dump(exclude_defaults=True).items())
        return f"RayExecutor({fields})"


#: what ``executor=`` accepts
ExecutorArg = Literal["local", "ray"] | RayExecutor


def require_ray() -> None:
    """ClusterError naming the extra to install when Ray is not importable."""
    require_extra("ray", ClusterError)


def resolve_executor(executor: Any) -> Literal["local"] | RayExecutor:
    """``"local"``, or the :class:`RayExecutor` that ``executor`` names (``"ray"``: a new one
    with the defaults, which the run closes when it ends). Checks that Ray is installed; never
    imports it."""
    if executor is None or executor == "local":
        return "local"
    if executor == "ray":
        require_ray()
        own = RayExecutor()
        own._per_run = True
        return own
    if isinstance(executor, RayExecutor):
        require_ray()
        if executor.closed:
            executor.backend()  # the error naming what to create
        return executor
    raise TypeError(
        f"executor={executor!r:.80} is not an executor; give 'local' (the default), "
        "'ray' or a te.RayExecutor(...)"
    )


async def open_cluster(executor: Any, runner: Any, job_id: str) -> ClusterJob | None:
    """The job's cluster (connected, its runner shipped), or None for the local executor.

    ``runner`` is the job's :class:`tooleval_nb.runner.cell.CaseRunner` (it pickles). A run's
    own executor (``executor="ray"``) is closed when the job's cluster is.
    """
    resolved = resolve_executor(executor)
    if resolved == "local":
        return None
    return await resolved.backend().open_job(job_id, runner, owned=resolved._per_run)


def shutdown_cluster() -> bool:
    """Stop every Ray executor's replicas and end the process's Ray session if tooleval_nb
    connected or started it; a session the user started (``ray.init``) stays up. The next Ray
    run connects (or starts a local cluster) again. Returns whether a session was ended.

    Raises :class:`ClusterError` while a job runs on Ray (cancel it or wait for it first).
    Without Ray installed, or before any Ray run, there is nothing to end: returns False.
    """
    # the session module (which imports Ray) is loaded by the first Ray run: none, nothing to end
    session = sys.modules.get(f"{__package__}.session")
    if session is None:
        return False
    return session.shutdown_cluster()  # type: ignore[no-any-return]
