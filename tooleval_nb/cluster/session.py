"""The process's one Ray session: connected (or started) once, kept for every later run, shut
down at exit or by :func:`shutdown_cluster` (imports Ray).

Who owns the session decides who ends it:

* **the user's**: Ray was initialised before the first run (``ray.init(...)`` in a cell): every
  run attaches to it, and nothing here ever shuts it down;
* **ours**: the first run connected (to ``address``, to ``RAY_ADDRESS``) or started a new local
  cluster (``address=None``). It serves every later run of the process, and ends at exit or on
  :func:`shutdown_cluster`; the next run then starts a new one.

Every ``ray.init`` and ``ray.shutdown`` runs on one daemon thread that lives as long as the
process. On Linux the processes of a local cluster (GCS, raylet, ...) are started with
``PR_SET_PDEATHSIG``: they are killed when the **thread** that started them ends. A run's
``asyncio.to_thread`` worker ends with its loop (each ``run_sync``), so a cluster started there
died with the first run, and the second found its GCS gone: Ray's core worker waits 60 s, then
terminates the process (a dead kernel).

A watchdog thread probes our session's GCS every :data:`WATCH_EVERY` seconds. When it stops
answering (Ray killed from outside), the session is let go (``ray.shutdown``) within seconds,
before Ray's own 60 s timer would end the process; the next run then starts a new one (or, for
an ``address``, fails naming it). A new process (a restarted kernel) never attaches to what a
dead one left: ``address=None`` starts a new local cluster (``ray.init(address="local")``),
whatever stale cluster files or half-stopped processes lie around.

Replica pools (:class:`~.backend.RayBackend`) register here: a session that ends drops their
actor handles first, so a pool never outlives the session its actors lived in.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import logging
import os
import queue
import socket
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import ray

from .errors import ClusterError

__all__ = ["Session", "connect", "current", "probe", "shutdown_cluster", "WATCH_EVERY"]

T = TypeVar("T")

#: seconds between two probes of our session's GCS (a lost one is let go after two misses)
WATCH_EVERY = 2.0

#: starts of a local cluster before giving up (a loaded machine can miss Ray's start windows)
START_ATTEMPTS = 3

#: Ray's loggers, quieted to errors while it starts (its notices are not the user's output)
_RAY_LOGGERS = (
    "ray",
    "ray._private.worker",
    "ray._private.node",
    "ray._private.services",
    "ray._private.authentication.authentication_token_setup",
)


class _Pool(Protocol):
    def drop(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Session:
    """The Ray session runs go to.

    Attributes:
        gcs_address: the GCS address of its cluster.
        ours: this module connected or started it (and ends it); False: the user's.
        local: ours and a local cluster this process started.
        generation: counts sessions in this process (a pool of an older one is stale).
        cpus: the cluster's CPUs when it connected.
    """

    gcs_address: str
    ours: bool
    local: bool
    generation: int
    cpus: float


class _Owner(threading.Thread):
    """The daemon thread every ``ray.init`` / ``ray.shutdown`` of the process runs on."""

    def __init__(self) -> None:
        super().__init__(name="tooleval-ray", daemon=True)
        self._calls: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]]
        self._calls = queue.SimpleQueue()

    def run(self) -> None:
        while True:
            fn, future = self._calls.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:  # handed to the caller
                future.set_exception(exc)

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._calls.put((fn, future))
        return future


_LOCK = threading.Lock()
_OWNER: _Owner | None = None
_SESSION: Session | None = None
_GENERATION = 0
_POOLS: weakref.WeakSet[Any] = weakref.WeakSet()
_JOBS: set[str] = set()
#: why our last session was let go (said by the next run that cannot reconnect)
_LOST: str | None = None
_WATCH_STOP = threading.Event()


def _on_owner(fn: Callable[[], T]) -> concurrent.futures.Future[T]:
    global _OWNER
    with _LOCK:
        if _OWNER is None or not _OWNER.is_alive():
            _OWNER = _Owner()
            _OWNER.start()
        owner = _OWNER
    if threading.current_thread() is owner:  # already there: run inline
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        future.set_result(fn())
        return future
    return owner.submit(fn)


def current() -> Session | None:
    """The session runs go to now (None before the first run or after a shutdown)."""
    return _SESSION


def register(pool: _Pool) -> None:
    """Have ``pool.drop()`` called when the session ends (held weakly)."""
    _POOLS.add(pool)


def job_started(job_id: str) -> None:
    _JOBS.add(job_id)


def job_ended(job_id: str) -> None:
    _JOBS.discard(job_id)


def connect(
    address: str | None, *, num_cpus: int | None = None, log_to_driver: bool = False
) -> concurrent.futures.Future[Session]:
    """The live session for ``address`` (see the module docstring), connected on the owner
    thread: await ``asyncio.wrap_future(connect(...))`` from a loop, ``.result()`` elsewhere.
    Fails with :class:`ClusterError` naming the address."""
    return _on_owner(lambda: _connect(address, num_cpus, log_to_driver))


def _connect(address: str | None, num_cpus: int | None, log_to_driver: bool) -> Session:
    global _SESSION, _LOST
    if address == "auto" and not ray.is_initialized():
        _probe_auto()
    elif address is not None and address != "auto":
        probe(address)
    session = _SESSION
    if session is not None and not ray.is_initialized():  # shut down behind our back
        _end(session, shutdown=False)
        session = None
    if session is not None and session.ours and not _answers(session.gcs_address):
        _end(session, shutdown=True)  # killed from outside: start again
        session = None
    if session is None and ray.is_initialized():  # the user's: attach, never shut down
        session = _SESSION = _new(_address_of(None), ours=False, local=False)
    if session is not None:
        _check_same(session, address)
        return session
    where = address or os.environ.get("RAY_ADDRESS") or "a new local cluster"
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": log_to_driver,
        "configure_logging": log_to_driver,
    }
    local = address is None and not os.environ.get("RAY_ADDRESS")
    if local:
        kwargs["num_cpus"] = num_cpus
    target = "local" if local else address
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            with _quiet(not log_to_driver):
                ray.init(address=target, **kwargs)
            break
        except Exception as exc:
            with contextlib.suppress(Exception), _quiet(not log_to_driver):
                ray.shutdown()
            # a local start on a busy machine can miss the raylet's 15 s window for its agents;
            # a later start finds their code in the page cache
            if local and attempt < START_ATTEMPTS and "timed out during startup" in str(exc):
                continue
            lost = f" (the last session was lost: {_LOST})" if _LOST else ""
            raise ClusterError(
                f"could not connect to the Ray cluster at {where}: {exc}{lost}; "
                "start it (`ray start --head`) or fix "
                "RayExecutor(address=...)"
            ) from exc
    _LOST = None
    session = _SESSION = _new(_address_of(address), ours=True, local=local)
    _watch(session)
    return session


def _address_of(address: str | None) -> str:
    """The connected cluster's GCS address (through Ray Client: its server's address)."""
    try:
        return str(ray.get_runtime_context().gcs_address)
    except Exception:  # Ray Client: no GCS address here
        return (address or "").removeprefix("ray://")


def _new(gcs_address: str, *, ours: bool, local: bool) -> Session:
    global _GENERATION
    _GENERATION += 1
    return Session(
        gcs_address, ours, local, _GENERATION, float(ray.cluster_resources().get("CPU", 1.0))
    )


def _check_same(session: Session, address: str | None) -> None:
    if address in (None, "auto"):
        return
    if address.removeprefix("ray://") != session.gcs_address:
        how = (
            "te.shutdown_cluster() first"
            if session.ours
            else "ray.shutdown() first (you started it)"
        )
        raise ClusterError(
            f"this process is connected to the Ray cluster at "
            f"{session.gcs_address}, not {address}; one process talks to one "
            f"cluster: give address=None (that cluster), or {how}"
        )


def shutdown_cluster() -> bool:
    """Stop the replicas of every executor and end the process's Ray session if tooleval_nb
    connected or started it (a session the user started with ``ray.init`` stays up).

    The next Ray run connects (or starts a local cluster) again. Returns whether a session was
    ended. Raises :class:`ClusterError` while a job runs on Ray (cancel it or wait first).
    """
    if _JOBS:
        raise ClusterError(
            f"{len(_JOBS)} job(s) still run on Ray ({', '.join(sorted(_JOBS))}); "
            "cancel them (job.cancel()) or wait for them, then shut down"
        )
    session = _SESSION
    if session is None:
        return False
    _on_owner(lambda: _end(session, shutdown=True)).result()
    return session.ours


def _end(session: Session, *, shutdown: bool) -> None:
    """Drop every pool's handles, then (ours) ``ray.shutdown()``. On the owner thread."""
    global _SESSION
    if _SESSION is not session:
        return
    for pool in list(_POOLS):
        with contextlib.suppress(Exception):
            pool.drop()
    _SESSION = None
    if session.ours:
        _WATCH_STOP.set()
        if shutdown:
            with contextlib.suppress(Exception), _quiet(True):
                ray.shutdown()


# -- watching our session --------------------------------------------------------------------
def _watch(session: Session) -> None:
    global _WATCH_STOP
    _WATCH_STOP = stop = threading.Event()

    def loop() -> None:
        misses = 0
        while not stop.wait(WATCH_EVERY):
            if _SESSION is not session:
                return
            misses = 0 if _answers(session.gcs_address) else misses + 1
            if misses >= 2:
                _lose(session, f"its GCS at {session.gcs_address} stopped answering")
                return

    threading.Thread(target=loop, name="tooleval-ray-watch", daemon=True).start()


def _lose(session: Session, why: str) -> None:
    global _LOST
    _LOST = why
    logging.getLogger("tooleval_nb").warning(
        "the Ray session was lost (%s); the next Ray run starts a new one", why
    )
    _on_owner(lambda: _end(session, shutdown=True)).result()


def _answers(gcs_address: str, timeout: float = 2.0) -> bool:
    host, _, port = gcs_address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def probe(address: str) -> None:
    """ClusterError naming ``address`` when nothing answers there (checked before Ray tries,
    which would otherwise wait for its own long timeouts)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except OSError as exc:
        raise ClusterError(
            f"the Ray cluster at {address} cannot be reached ({exc}); start it "
            "(`ray start --head`) or fix RayExecutor(address=...)"
        ) from exc


def _probe_auto() -> None:
    """For ``address="auto"``: the cluster Ray would pick must answer (a dead kernel's or a
    stopped ``ray start`` leaves its address behind; Ray would wait for it)."""
    try:
        found = ray._private.services.canonicalize_bootstrap_address("auto")
    except Exception as exc:  # nothing running: Ray's own message says so
        raise ClusterError(
            f"no Ray cluster runs on this machine for address='auto' ({exc}); "
            "start one (`ray start --head`) or give address=None (a new "
            "local cluster)"
        ) from exc
    if found:
        probe(found)


@contextlib.contextmanager
def _quiet(on: bool) -> Any:
    """Ray's loggers at ERROR while ``on`` (its start-up notices are not the user's output)."""
    if not on:
        yield
        return
    loggers = [logging.getLogger(name) for name in _RAY_LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


@atexit.register
def _at_exit() -> None:
    _WATCH_STOP.set()
    session = _SESSION
    if session is not None and session.ours:
        with contextlib.suppress(Exception):
            _end(session, shutdown=True)
