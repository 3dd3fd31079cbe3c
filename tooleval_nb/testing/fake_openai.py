"""A fast local OpenAI-compatible server for tests and benchmarks (raw asyncio, keep-alive).

It answers ``POST /v1/chat/completions`` the way a tool-calling model would, deterministically:

* **default answer**: one tool call per ``;``-separated segment of the last user message, read as
  ``<tool name> <key> <value> <key> <value> ...`` (``"get_weather city Town7"`` →
  ``get_weather(city="Town7")``); a value in quotes may hold spaces (``city 'New York'``), and
  any other quote or apostrophe is part of its word (``what's``); values are converted to the
  schema's type (integer, number, boolean) when the tool declares one. A segment whose first word is not an offered tool gives a
  text answer instead; ``tool_choice="none"`` or no tools always gives text.
* **faults** (a :data:`Fault` name): ``"429"`` (with ``Retry-After``), ``"500"`` (bare text body,
  as llama.cpp answers), ``"503"``, ``"400"``, ``"401"``, ``"404"``, ``"hang"`` (no answer until
  the client gives up), ``"disconnect"`` (connection closed without an answer), ``"malformed"``
  (200 with a body that is not JSON), ``"bad_shape"`` (200 JSON without ``choices``),
  ``"context"`` (a 400 saying the messages exceed the context window, as llama.cpp's server says).
  Chosen by, in order: the ``schedule`` (by 1-based request number), the ``handler`` hook, a marker
  in the last user message — ``[fault:429]`` on every request carrying it, ``[fault:500*2]`` on
  the first two requests carrying that exact text — and ``reject_required`` (a 500 for
  ``tool_choice="required"``, like the llama.cpp server). ``[latency:0.2]`` sets one request's
  latency. Markers are removed before the default answer is built.
* **planted answers**: ``handler(body) -> dict | str | None`` — a full completion dict (with
  ``choices``), an assistant message dict (``content`` / ``tool_calls``; tool-call arguments may be
  dicts), a fault name, or None for the default behaviour. Handlers run on the server's event loop:
  keep them quick.

Also ``GET /v1/models``, ``POST /v1/embeddings`` (deterministic vectors from a hash) and
``GET /stats`` (the request counter, and ``times``: when each chat request arrived, by the
server's monotonic clock, also :attr:`FakeOpenAIServer.request_times`). Run it in a background thread (the default; it accepts any
callable as handler) or in a subprocess (``process=True``; the handler is then given as
``"module:function"``), which is the right choice for benchmarks since it does not share the GIL::

    with FakeOpenAIServer(latency=0.2, process=True) as server:
        call_model("openai/fake", msgs, tools, api_base=server.url)
        assert server.requests == 1
"""

from __future__ import annotations

import asyncio
import json
import os
import pkgutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from .answers import FAULTS, Behaviour, Fault, Handler, default_answer, embedding

__all__ = ["Fault", "FAULTS", "FakeOpenAIServer", "default_answer"]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    503: "service_unavailable",
}


class _Protocol(asyncio.Protocol):
    """One HTTP/1.1 connection: requests answered in order, keep-alive."""

    def __init__(
        self,
        state: Behaviour,
        conns: set[_Protocol],
        times: list[float] | None = None,
        headers: list[dict[str, str]] | None = None,
    ):
        self.state = state
        self.headers = headers if headers is not None else []
        self.conns = conns
        self.times = times
        self.buf = b""
        self.transport: asyncio.Transport | None = None
        self.pending: list[asyncio.TimerHandle] = []
        self.busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.conns.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.conns.discard(self)
        for handle in self.pending:
            handle.cancel()
        self.transport = None

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if not self.busy:
            self._next()

    def _next(self) -> None:
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return
        head = self.buf[:end].decode("latin-1")
        lines = head.split("\r\n")
        try:
            method, path, _ = lines[0].split(" ", 2)
        except ValueError:
            self._send(400, b"bad request line", "text/plain")
            self.close()
            return
        length = 0
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            length = int(headers["content-length"])
        total = end + 4 + length
        if len(self.buf) < total:
            return
        raw = self.buf[end + 4 : total]
        self.buf = self.buf[total:]
        self._handle(method, path.split("?", 1)[0], raw, headers)

    def _handle(self, method: str, path: str, raw: bytes, headers: dict[str, str]) -> None:
        state = self.state
        if method == "POST" and path.endswith("/chat/completions"):
            if self.times is not None:
                self.times.append(time.monotonic())
            if state.record:
                self.headers.append(headers)
            try:
                body = json.loads(raw)
            except ValueError:
                self._error(400, "request body is not JSON")
                return
            fault, reply, latency = state.respond(body)
            if latency > 0 or fault == "hang":
                self.busy = True
                delay = state.hang if fault == "hang" else latency
                handle = asyncio.get_running_loop().call_later(delay, self._finish, fault, reply)
                self.pending.append(handle)
            else:
                self._finish(fault, reply)
            return
        state.other_requests += 1
        if method == "GET" and path.endswith("/models"):
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": state.model, "object": "model", "owned_by": "tooleval_nb"}],
                },
            )
        elif method == "GET" and path == "/stats":
            self._json(
                200,
                {
                    "requests": state.requests,
                    "marker_counts": len(state.marker_counts),
                    "times": self.times or [],
                },
            )
        elif method == "POST" and path.endswith("/embeddings"):
            body = json.loads(raw or b"{}")
            inputs = body.get("input") or []
            inputs = [inputs] if isinstance(inputs, str) else inputs
            self._json(
                200,
                {
                    "object": "list",
                    "model": body.get("model", state.model),
                    "data": [
                        {"object": "embedding", "index": i, "embedding": embedding(str(t))}
                        for i, t in enumerate(inputs)
                    ],
                    "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
                },
            )
        else:
            self._error(404, f"no route {method} {path}")
        self._continue()

    def _finish(self, fault: str | None, reply: dict[str, Any] | None) -> None:
        self.busy = False
        if self.transport is None:
            return
        if fault is None:
            self._json(200, reply)
        elif fault in ("hang", "disconnect"):
            self.close()
            return
        elif fault == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [', "application/json")
        elif fault == "bad_shape":
            self._json(200, {"id": "chatcmpl-odd", "object": "chat.completion"})
        elif fault == "500":
            self._send(500, b"Internal Server Error", "text/plain")
        elif fault == "context":
            self._error(
                400,
                "This model's maximum context length is 8192 tokens. However, you "
                "requested 8544 tokens (8288 in the messages, 256 in the completion). "
                "Please reduce the length of the messages or completion.",
            )
        elif fault == "429":
            self._error(
                429, "rate limited, slow down", extra=f"Retry-After: {self.state.retry_after:g}\r\n"
            )
        else:
            self._error(int(fault), f"fake fault {fault}")
        self._continue()

    def _continue(self) -> None:
        if self.buf and not self.busy:
            self._next()

    def _error(self, status: int, message: str, extra: str = "") -> None:
        body = {
            "error": {
                "message": message,
                "type": _ERROR_TYPES.get(status, "server_error"),
                "code": status,
            }
        }
        self._send(status, json.dumps(body).encode(), "application/json", extra)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _send(self, status: int, payload: bytes, ctype: str, extra: str = "") -> None:
        if self.transport is None:
            return
        head = (
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {len(payload)}\r\n{extra}\r\n"
        ).encode()
        self.transport.write(head + payload)


def _free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _load_handler(spec: str | None) -> Handler | None:
    if not spec:
        return None
    try:
        if ":" not in spec:
            raise ValueError("no ':' between the module and the handler")
        return pkgutil.resolve_name(spec)  # type: ignore[no-any-return]
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(
            f"the fake server's handler {spec!r} cannot be imported ({exc}); give "
            "'module:function' of a module on the Python path"
        ) from exc


class FakeOpenAIServer:
    """The fake server (see the module docstring). Use it as a context manager or start()/stop().

    Args:
        latency: seconds before each answer (per connection; requests run concurrently).
        retry_after: the ``Retry-After`` value of 429 answers, seconds (fractions allowed).
        schedule: faults by 1-based request number: a mapping, or a sequence (None = normal).
        handler: planted answers: ``body -> completion | message | fault name | None``
            (``"module:function"`` when ``process=True``).
        reject_required: answer ``tool_choice="required"`` with a bare 500, as llama.cpp does.
        hang: how long a ``"hang"`` fault holds the request before closing the connection.
        process: run in a subprocess instead of a thread (for benchmarks).
        record: keep every request body in :attr:`bodies` (thread mode only).
        model: the model id listed by ``/v1/models``.
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        retry_after: float = 0.05,
        schedule: Mapping[int, str | None] | Sequence[str | None] | None = None,
        handler: Handler | str | None = None,
        reject_required: bool = False,
        hang: float = 30.0,
        process: bool = False,
        record: bool = True,
        model: str = "fake-model",
        host: str = "127.0.0.1",
        port: int | None = None,
    ):
        if process and handler is not None and not isinstance(handler, str):
            raise ValueError("with process=True give the handler as 'module:function'")
        if not process and isinstance(handler, str):
            handler = _load_handler(handler)
        self._handler_spec = handler if isinstance(handler, str) else None
        self._state = Behaviour(
            latency=latency,
            retry_after=retry_after,
            hang=hang,
            schedule=schedule,
            handler=None if process else handler,  # type: ignore[arg-type]
            reject_required=reject_required,
            record=record and not process,
            model=model,
        )
        self._schedule_arg = schedule
        self.process = process
        self.host = host
        self.port = port or 0
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._conns: set[_Protocol] = set()
        self._times: list[float] = []
        self._headers: list[dict[str, str]] = []
        self._proc: subprocess.Popen[bytes] | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The ``api_base`` to give clients: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        if self._thread is not None or self._proc is not None:
            return self
        if self.process:
            self._start_process()
            return self
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                self._server = loop.run_until_complete(
                    loop.create_server(
                        lambda: _Protocol(self._state, self._conns, self._times, self._headers),
                        self.host,
                        self.port or 0,
                        backlog=1024,
                    )
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:  # noqa: BLE001 - reported to the starting thread
                errors.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-openai", daemon=True)
        self._thread.start()
        ready.wait(10)
        if errors:
            self._thread = None
            raise errors[0]
        return self

    def _start_process(self) -> None:
        self.port = self.port or _free_port(self.host)
        st = self._state
        config = {
            "latency": st.latency,
            "retry_after": st.retry_after,
            "hang": st.hang,
            "schedule": ({str(k): v for k, v in st.schedule.items()}),
            "handler": self._handler_spec,
            "reject_required": st.reject_required,
            "model": st.model,
            "host": self.host,
            "port": self.port,
        }
        # the child imports what this process can (the handler module included)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tooleval_nb.testing.fake_openai", json.dumps(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()  # the child prints "ready" once it listens
        if line.strip() != b"ready":
            err = self._proc.stderr.read().decode() if self._proc.stderr else ""
            self.stop()
            raise RuntimeError(f"fake OpenAI server process did not start: {err[-2000:]}")

    def stop(self) -> None:
        if self._proc is not None:
            proc, self._proc = self._proc, None
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        if self._thread is not None and self._loop is not None:
            loop = self._loop

            async def shutdown() -> None:
                if self._server is not None:
                    self._server.close()
                for conn in list(self._conns):
                    conn.close()
                for _ in range(3):  # let the transports' close callbacks run
                    await asyncio.sleep(0)
                loop.stop()

            asyncio.run_coroutine_threadsafe(shutdown(), loop)
            self._thread.join(10)
            self._thread = None
            self._loop = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeOpenAIServer:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    # -- inspection --------------------------------------------------------------------------
    @property
    def requests(self) -> int:
        """How many chat-completion requests the server has received."""
        if self._proc is not None:
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback
            with opener.open(f"http://{self.host}:{self.port}/stats", timeout=5) as r:
                return int(json.load(r)["requests"])
        return self._state.requests

    @property
    def request_times(self) -> list[float]:
        """When each chat-completion request arrived (``time.monotonic()`` of the server's
        process, in arrival order): for checking rate limits from the server's side."""
        if self._proc is not None:
            return [float(t) for t in self._stats()["times"]]
        return list(self._times)

    def _stats(self) -> dict[str, Any]:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback
        with opener.open(f"http://{self.host}:{self.port}/stats", timeout=5) as r:
            return dict(json.load(r))

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The request bodies received so far (thread mode with ``record=True``)."""
        return self._state.bodies

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """The HTTP headers of each chat-completion request, names lowercased (thread mode with
        ``record=True``): to check that a key reached the server (``authorization``)."""
        return list(self._headers)

    @property
    def last_body(self) -> dict[str, Any]:
        return self._state.bodies[-1]

    def __repr__(self) -> str:
        where = "process" if self.process else "thread"
        return f"FakeOpenAIServer(url={self.url!r}, {where}, requests={self._state.requests})"


def _serve_forever(config: dict[str, Any]) -> None:
    state = Behaviour(
        latency=config["latency"],
        retry_after=config["retry_after"],
        hang=config["hang"],
        schedule={int(k): v for k, v in config["schedule"].items()},
        handler=_load_handler(config.get("handler")),
        reject_required=config["reject_required"],
        record=False,
        model=config["model"],
    )
    conns: set[_Protocol] = set()
    times: list[float] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: _Protocol(state, conns, times), config["host"], config["port"], backlog=1024
        )
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        async with server:
            await server.serve_forever()

    try:
        import uvloop  # type: ignore[import-not-found]

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())


if __name__ == "__main__":  # pragma: no cover - exercised through FakeOpenAIServer(process=True)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    _serve_forever(json.loads(sys.argv[1]))
