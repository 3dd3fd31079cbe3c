"""A model replica: the Ray actor that runs cells on its node (``ray.remote`` is applied by
:mod:`.backend`, so this module needs no Ray).

A replica receives each job's :class:`~tooleval_nb.runner.cell.CaseRunner` once (an object
reference, unpickled on its first cell) and runs cells with it, many at a time on its own event
loop (an async actor). What it serves a model with:

* the embedded model: this process's own llama.cpp server (``embedded_server``), started before
  its first cell; a model given as a GGUF file: an :class:`~tooleval_nb.models.EmbeddedServer`
  on that file. Each server runs in its own process group and exits with the replica (even on
  SIGKILL: see :mod:`tooleval_nb.models.embedded`). A server that cannot start is tried once:
  the replica's cells of that model then fail with the server's own error text (as stored
  results, not retried);
* an ``api_base`` the driver gives with each cell (one endpoint per replica);
* otherwise the model's own endpoint, behind the group's shared rate limit
  (:mod:`.ratelimit`).
"""

from __future__ import annotations

import asyncio
import os
import socket
from typing import Any

from ..errors import EmbeddedModelError
from ..models import EmbeddedServer, embedded_server
from ..models.embedded import ChatFormat
from .ratelimit import SharedLimiter

__all__ = ["Replica"]


def _chat_format(mode: str) -> ChatFormat:
    return "chatml-function-calling" if mode == "native" else "chatml"


class Replica:
    """The actor's body.

    Args:
        index: the replica's number in its pool.
        threads: CPU threads for the llama.cpp servers it starts.
    """

    def __init__(self, index: int, threads: int = 1) -> None:
        self.name = f"r{index}@{socket.gethostname()}"
        self.threads = max(1, threads)
        self._jobs: dict[str, asyncio.Task[Any]] = {}
        self._gates: dict[tuple[str, int], asyncio.Semaphore] = {}
        self._servers: dict[tuple[str | None, ChatFormat], asyncio.Task[EmbeddedServer]] = {}
        self._owned: list[EmbeddedServer] = []

    def pid(self) -> int:
        """This replica's process id (a restarted replica has a new one)."""
        return os.getpid()

    async def run_cell(
        self,
        job_id: str,
        box: list[Any],
        target_index: int,
        case_index: int,
        sample: int,
        slots: int,
        limit: Any = None,
        api_base: str | None = None,
        gguf: str | None = None,
    ) -> Any:
        """Run one cell of ``job_id``; returns its ``CaseOutcome``.

        ``box`` holds the object reference of the job's runner (in a list, so that Ray does
        not fetch it for every cell); at most ``slots`` cells of a target run at once here
        (the driver keeps a few more queued, so that Ray's round trip never leaves the model
        idle); ``limit`` is the shared rate-limit actor or None.
        """
        gate = self._gates.get((job_id, target_index))
        if gate is None:
            gate = self._gates[(job_id, target_index)] = asyncio.Semaphore(slots)
        async with gate:  # the case's timeout starts when its turn comes, as in a local run
            return await self._run(
                job_id, box, target_index, case_index, sample, limit, api_base, gguf
            )

    async def _run(
        self,
        job_id: str,
        box: list[Any],
        target_index: int,
        case_index: int,
        sample: int,
        limit: Any,
        api_base: str | None,
        gguf: str | None,
    ) -> Any:
        runner = await self._runner(job_id, box)
        spec = runner.targets[target_index].spec
        if gguf is not None or spec.embedded:
            try:
                server = await self._server(gguf, _chat_format(spec.mode))
            except EmbeddedModelError as exc:
                return runner.failed(str(exc), "EmbeddedModelError")
            if gguf is not None:
                api_base = server.api_base
        return await runner.run_cell(
            target_index,
            case_index,
            sample,
            limiter=SharedLimiter(limit) if limit is not None else None,
            api_base=api_base,
            replica=self.name,
        )

    async def forget(self, job_id: str) -> None:
        """Drop a finished job's runner (and close the live tools it opened here)."""
        for key in [k for k in self._gates if k[0] == job_id]:
            del self._gates[key]
        task = self._jobs.pop(job_id, None)
        if task is not None and task.done() and task.exception() is None:
            await task.result().aclose()

    def stop_servers(self) -> None:
        """Stop the model servers this replica started."""
        for server in self._owned:
            server.stop()

    async def _runner(self, job_id: str, box: list[Any]) -> Any:
        task = self._jobs.get(job_id)
        if task is None:  # the first cell of a job here: fetch and unpickle its runner once
            task = self._jobs[job_id] = asyncio.ensure_future(_fetch(box[0]))
        return await task

    async def _server(self, gguf: str | None, chat_format: ChatFormat) -> EmbeddedServer:
        """The started server for a GGUF path (or the embedded model's, ``gguf`` None): one
        start per server; a failed start fails every later call the same way at once."""
        key = (gguf, chat_format)
        task = self._servers.get(key)
        if task is None:
            if gguf is None:
                server = embedded_server(chat_format, start=False)
            else:
                server = EmbeddedServer(chat_format, model_path=gguf, n_threads=self.threads)
                self._owned.append(server)
            task = self._servers[key] = asyncio.ensure_future(server.start_async())
        return await asyncio.shield(task)


async def _fetch(ref: Any) -> Any:
    return await ref
