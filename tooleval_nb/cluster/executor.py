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

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from ..credentials import url_refusal
from ..extras import install_command, require_extra
from .errors import ClusterError

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


class RayExecutor(BaseModel):
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

    Attributes:
        address: ``None`` (the Ray this process is already connected to, or that
            ``RAY_ADDRESS`` names, else a new local cluster), ``"auto"`` (a cluster running on
            this machine), ``"ray://host:10001"`` (Ray Client) or ``"host:6379"`` (the head's
            GCS address).
        replicas: replicas per model (default: the cluster's CPUs divided by
            ``num_cpus_per_replica``; for a model in ``endpoints``, one per endpoint).
        num_cpus_per_replica, num_gpus_per_replica: what Ray reserves for each replica (and
            the threads of the llama.cpp server it starts).
        max_concurrency_per_replica: cells in flight per replica (default: the run's
            ``max_concurrency``); a server answering one request at a time gets 1
            (``ModelSpec.request_slots``).
        endpoints: per model (its label or model string), the ``api_base`` of each replica.
        gguf: per model (its label or model string), a GGUF file each replica serves with its
            own llama.cpp server (the path must exist on every node).
        max_restarts: how often Ray restarts a replica that died (its cells in flight run
            again on another replica meanwhile); past that the replica is given up.
        num_cpus: the CPUs of a local cluster started by this executor (default: all).
        log_to_driver: show Ray's own output in this process (its start-up notices, the
            workers' logs); by default it stays out of the notebook.

    Lifecycle: the first run connects the process's Ray session (or starts a local cluster)
    and later runs reuse it; :func:`shutdown_cluster` ends it. ``close()`` (or leaving a
    ``with`` block, or dropping the last reference) stops this executor's replicas; a closed
    executor runs nothing more.
    """

    model_config = ConfigDict(extra="forbid")

    address: str | None = None
    replicas: int | None = Field(default=None, ge=1)
    num_cpus_per_replica: float = Field(default=1.0, ge=0)
    num_gpus_per_replica: float = Field(default=0.0, ge=0)
    max_concurrency_per_replica: int | None = Field(default=None, ge=1)
    endpoints: dict[str, list[str]] = Field(default_factory=dict)
    gguf: dict[str, str] = Field(default_factory=dict)
    max_restarts: int = Field(default=1, ge=0)
    num_cpus: int | None = Field(default=None, ge=1)
    log_to_driver: bool = False

    _backend: Any = PrivateAttr(default=None)
    _closed: bool = PrivateAttr(default=False)
    #: a run's own executor (``executor="ray"``): that run closes it when it ends
    _per_run: bool = PrivateAttr(default=False)

    @field_validator("address")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        if value is None or value == "auto":
            return value
        rest = value.removeprefix("ray://")
        host, sep, port = rest.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(
                f"address={value!r} is not a Ray address; give None, 'auto', "
                "'ray://host:10001' (Ray Client) or 'host:6379' (the head node)"
            )
        return value

    @field_validator("endpoints")
    @classmethod
    def _endpoints(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for model, urls in value.items():
            if not urls:
                raise ValueError(f"endpoints[{model!r}] is empty; give one api_base per replica")
            for i, url in enumerate(urls):
                refused = url_refusal(url, f"endpoints[{model!r}][{i}]")
                if refused:
                    raise ValueError(refused)
        return {model: [u.rstrip("/") for u in urls] for model, urls in value.items()}

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
