"""A lean HTTP/1.1 client for one job: POST a JSON body, read the whole answer.

The direct transports (:mod:`.direct`) send every chat-completion request through
:func:`post`. It is what a general client such as aiohttp does for this one exchange, without
what the exchange never uses (redirects, cookies, proxies, compression, multipart, tracing,
middlewares): the request's bytes are written at once, the answer is read by an
:class:`asyncio.Protocol` (a ``Content-Length`` body, a chunked body or one that ends with the
connection), and the connection is kept alive for the next request to the same host. It costs
about a third of aiohttp's CPU per request (``benchmarks/bench_runner.py``), which at thousands of
cases per second is most of the runner's model-call cost.

Connections are pooled per event loop and per (scheme, host, port); ``https`` uses the system's
certificates (:func:`ssl.create_default_context`). A request sent on a kept-alive connection that
the server closed before answering a byte is sent once more on a new connection (the server
dropped an idle connection; the request was never read). Failures raise :class:`ConnectError`
(no connection could be made), :class:`ConnectionLost` (the connection broke mid-answer or the
answer is not HTTP) or :class:`TimeoutError`; :mod:`.direct` maps them to the model errors.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import weakref
from collections import deque
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["ConnectError", "ConnectionLost", "Response", "aclose", "post"]

#: idle connections kept per host (more are closed when returned)
MAX_IDLE = 256
_USER_AGENT = b"tooleval_nb"
_NO_BODY_STATUS = frozenset({204, 304})


class ConnectError(OSError):
    """No connection could be made (refused, unknown host, TLS handshake failed)."""


class ConnectionLost(OSError):
    """The connection closed or broke before the whole answer arrived, or the answer is not
    HTTP/1.x."""


@dataclass(slots=True)
class Response:
    """An answer: the status, the headers (names in lower case; repeated ones joined by ``, ``)
    and the whole body."""

    status: int
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class _Target:
    scheme: str
    host: str
    port: int
    #: the request line and Host header, ready to send
    head: bytes


@functools.lru_cache(maxsize=256)
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    port = parts.port or (443 if scheme == "https" else 80)
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    host = parts.hostname
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    head = f"POST {path} HTTP/1.1\r\nHost: {netloc}\r\n".encode("ascii")
    return _Target(scheme, host, port, head)


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    return ssl.create_default_context()


@functools.lru_cache(maxsize=256)
def _header_lines(items: tuple[tuple[str, str], ...]) -> bytes:
    lines = []
    for name, value in items:
        if any(c in name for c in "\r\n:") or "\r" in value or "\n" in value:
            raise ValueError(f"HTTP header {name!r} holds a line break or its name a colon")
        lines.append(f"{name}: {value}\r\n")
    return "".join(lines).encode("latin-1")


class _Connection(asyncio.Protocol):
    """One kept-alive connection: sends a request, parses its answer as the bytes arrive."""

    __slots__ = (
        "transport",
        "closed",
        "_buf",
        "_waiter",
        "_head",
        "_length",
        "_chunked",
        "_pos",
        "_body",
        "_keep",
        "_got",
    )

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._waiter: asyncio.Future[Response] | None = None
        self._buf = bytearray()
        self._body = bytearray()
        self._reset()

    def _reset(self) -> None:
        """Ready for the next answer: nothing of it received or parsed yet."""
        self._buf.clear()
        self._head: tuple[int, dict[str, str]] | None = None
        self._length = -1  # Content-Length, or -1: chunked (``_chunked``) or until the close
        self._chunked = False
        self._pos = 0  # where the chunk parser stands in ``_buf``
        self._body.clear()
        self._keep = True
        self._got = False  # any byte of this request's answer arrived

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._waiter is None or self._waiter.done():
            self._close()  # bytes nobody asked for: the connection is unusable
            return
        self._got = True
        self._buf += data
        try:
            self._parse()
        except ConnectionLost as exc:
            self._close()
            self._waiter.set_exception(exc)

    def eof_received(self) -> bool | None:
        self.closed = True
        return None  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        if self._head is not None and self._length < 0 and not self._chunked:
            status, headers = self._head  # a body that ends with the connection
            waiter.set_result(Response(status, headers, bytes(self._buf)))
            return
        lost = ConnectionLost(
            "the server closed the connection before the whole answer arrived"
            + (f": {exc}" if exc else "")
        )
        lost.__cause__ = exc
        waiter.set_exception(lost)

    # the exchange
    def send(self, data: bytes, waiter: asyncio.Future[Response]) -> None:
        self._reset()
        self._waiter = waiter
        assert self.transport is not None
        self.transport.write(data)

    @property
    def answered_nothing(self) -> bool:
        return not self._got

    @property
    def reusable(self) -> bool:
        return self._keep and not self.closed

    def _close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _parse(self) -> None:
        buf = self._buf
        if self._head is None:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > 65536:
                    raise ConnectionLost("the answer's header is longer than 64 KiB")
                return
            head = bytes(buf[:end]).decode("latin-1")
            del buf[: end + 4]
            lines = head.split("\r\n")
            status_line = lines[0]
            if not status_line.startswith("HTTP/1.") or len(status_line) < 12:
                raise ConnectionLost(f"not an HTTP/1.x answer: {status_line[:80]!r}")
            try:
                status = int(status_line[9:12])
            except ValueError:
                raise ConnectionLost(f"not an HTTP status line: {status_line[:80]!r}") from None
            if 100 <= status < 200:  # an interim answer (100 Continue): the real one follows
                self._parse()
                return
            headers: dict[str, str] = {}
            for line in lines[1:]:
                name, sep, value = line.partition(":")
                if not sep:
                    continue
                key = name.strip().lower()
                value = value.strip()
                headers[key] = f"{headers[key]}, {value}" if key in headers else value
            self._head = (status, headers)
            connection = headers.get("connection", "").lower()
            if status_line.startswith("HTTP/1.0"):
                self._keep = "keep-alive" in connection
            else:
                self._keep = "close" not in connection
            if status in _NO_BODY_STATUS:
                self._length = 0
            elif "chunked" in headers.get("transfer-encoding", "").lower():
                self._chunked = True
            elif "content-length" in headers:
                try:
                    self._length = int(headers["content-length"])
                except ValueError:
                    raise ConnectionLost(
                        f"a Content-Length that is not a number: {headers['content-length']!r}"
                    ) from None
            else:
                self._keep = False  # the body ends with the connection
        if self._chunked:
            self._parse_chunks()
        elif self._length >= 0 and len(buf) >= self._length:
            status, headers = self._head
            if len(buf) > self._length:
                self._keep = False  # more bytes than the answer: do not trust the connection
            self._finish(Response(status, headers, bytes(buf[: self._length])))

    def _parse_chunks(self) -> None:
        buf = self._buf
        while True:
            line_end = buf.find(b"\r\n", self._pos)
            if line_end < 0:
                return
            size_text = bytes(buf[self._pos : line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ConnectionLost(f"a chunk size that is not hex: {size_text[:20]!r}") from None
            if size == 0:  # the last chunk; then trailers (if any), ended by an empty line
                rest = line_end + 2
                if len(buf) < rest + 2:
                    return
                if buf[rest : rest + 2] != b"\r\n" and buf.find(b"\r\n\r\n", rest) < 0:
                    return
                assert self._head is not None
                status, headers = self._head
                self._finish(Response(status, headers, bytes(self._body)))
                return
            start = line_end + 2
            if len(buf) < start + size + 2:
                return
            self._body += buf[start : start + size]
            self._pos = start + size + 2

    def _finish(self, response: Response) -> None:
        waiter = self._waiter
        self._waiter = None
        self._buf.clear()
        if waiter is not None and not waiter.done():
            waiter.set_result(response)


class _Pool:
    """The idle connections of one event loop, per (scheme, host, port)."""

    def __init__(self) -> None:
        self.idle: dict[tuple[str, str, int], deque[_Connection]] = {}
        self.closed = False

    async def connect(self, target: _Target) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, conn = await loop.create_connection(
                _Connection,
                target.host,
                target.port,
                ssl=_ssl_context() if target.scheme == "https" else None,
            )
        except OSError as exc:  # refused, unknown host, TLS (ssl.SSLError is an OSError)
            raise ConnectError(exc.errno, f"{type(exc).__name__}: {exc}") from exc
        return conn

    def take(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self.idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.reusable:
                return conn
        return None

    def give_back(self, key: tuple[str, str, int], conn: _Connection) -> None:
        if self.closed or not conn.reusable:
            conn._close()
            return
        idle = self.idle.setdefault(key, deque())
        if len(idle) >= MAX_IDLE:
            conn._close()
            return
        idle.append(conn)

    def close(self) -> None:
        self.closed = True
        for idle in self.idle.values():
            for conn in idle:
                conn._close()
        self.idle.clear()


_POOLS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, tuple[_Pool, AsyncGenerator[None, None]]
]
_POOLS = weakref.WeakKeyDictionary()


async def _closer(pool: _Pool) -> AsyncGenerator[None, None]:
    """Held open for the loop's lifetime: ``asyncio.run`` finalises async generators before it
    closes its loop, which closes the pool's connections with it (no unclosed transports)."""
    try:
        yield
    finally:
        pool.close()


async def _pool() -> _Pool:
    loop = asyncio.get_running_loop()
    entry = _POOLS.get(loop)
    if entry is not None and not entry[0].closed:
        return entry[0]
    pool = _Pool()
    keeper = _closer(pool)
    await keeper.__anext__()
    _POOLS[loop] = (pool, keeper)
    return pool


async def aclose() -> None:
    """Close this event loop's connections (the next request opens new ones)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    entry = _POOLS.pop(loop, None)
    if entry is not None:
        await entry[1].aclose()  # runs the keeper's finally


async def post(url: str, body: bytes, headers: Mapping[str, str], *, timeout: float) -> Response:
    """POST ``body`` to ``url`` with ``headers`` (``Host``, ``Content-Length`` and
    ``User-Agent`` are added) and return the answer; the whole exchange, connecting included,
    within ``timeout`` seconds."""
    target = _target(url)
    head = b"".join(
        (
            target.head,
            _header_lines(tuple(headers.items())),
            b"User-Agent: ",
            _USER_AGENT,
            b"\r\nContent-Length: ",
            str(len(body)).encode(),
            b"\r\n\r\n",
            body,
        )
    )
    key = (target.scheme, target.host, target.port)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        pool = await _pool()
        while True:
            conn = pool.take(key)
            reused = conn is not None
            if conn is None:
                conn = await pool.connect(target)
            waiter: asyncio.Future[Response] = loop.create_future()
            conn.send(head, waiter)
            try:
                response = await waiter
            except ConnectionLost:
                conn._close()
                if reused and conn.answered_nothing:
                    continue  # an idle connection the server had dropped: once more, anew
                raise
            except BaseException:  # timeout, cancel: the answer is unread, the connection spent
                conn._close()
                raise
            pool.give_back(key, conn)
            return response
