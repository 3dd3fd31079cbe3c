"""The fast path: a lean HTTP/1.1 client for one exchange, used only where it cannot differ.

:mod:`.direct` sends a request here only when it goes to plain ``http`` on this machine (a
loopback address or ``localhost``) with no proxy variable set (:func:`.client.fast_path`): a
local vLLM, llama.cpp or fake server, where a general client's work is pure cost. Everything
else goes through httpx2 (:mod:`.client`). Over the same exchange it behaves as that client
does: the same request headers (``Accept-Encoding: gzip, deflate``), a ``gzip`` / ``deflate``
body decoded, an answer larger than ``max_bytes`` refused with its memory bounded, and a request
never sent twice (a connection that broke is the caller's error, which the retry policy may
retry). Redirects are :mod:`.direct`'s business for both.

The request's bytes are written at once, the answer is read by an :class:`asyncio.Protocol` (a
``Content-Length`` body, a chunked body or one that ends with the connection), and the
connection is kept alive for the next request to the same host, per event loop. Failures raise
the classes of :mod:`.answer` (``ConnectError``: no connection could be made;
``ConnectionLost``: the connection broke mid-answer or the answer is not HTTP;
``ResponseTooLarge``; ``BadEncoding``) or :class:`TimeoutError`; :mod:`.direct` maps them to the
model errors.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections import deque
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from .answer import (
    ACCEPT_ENCODING,
    MAX_HEAD,
    USER_AGENT,
    BadEncoding,
    ConnectError,
    ConnectionLost,
    Response,
    ResponseTooLarge,
    content_length,
    decode,
    parse_head,
)
from .endpoint import DEFAULT_MAX_RESPONSE_BYTES

__all__ = ["MAX_IDLE", "aclose", "post"]

#: idle connections kept per host (more are closed when returned)
MAX_IDLE = 256
_NO_BODY_STATUS = frozenset({204, 304})


@dataclass(frozen=True, slots=True)
class _Target:
    host: str
    port: int
    #: the request line and Host header, ready to send
    head: bytes


@functools.lru_cache(maxsize=256)
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise ValueError(f"not an http URL: {url!r}")
    port = parts.port or 80
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    host = parts.hostname
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    head = f"POST {path} HTTP/1.1\r\nHost: {netloc}\r\n".encode("ascii")
    return _Target(host, port, head)


@functools.lru_cache(maxsize=256)
def _header_lines(items: tuple[tuple[str, str], ...]) -> bytes:
    """The header lines of ``items``, then ``User-Agent`` and ``Accept-Encoding`` unless given
    (as httpx2 merges its defaults), then the start of ``Content-Length``."""
    lines = []
    given = set()
    for name, value in items:
        if any(c in name for c in "\r\n:") or "\r" in value or "\n" in value:
            raise ValueError(f"HTTP header {name!r} holds a line break or its name a colon")
        lines.append(f"{name}: {value}\r\n")
        given.add(name.lower())
    if "user-agent" not in given:
        lines.append(f"User-Agent: {USER_AGENT}\r\n")
    if "accept-encoding" not in given:
        lines.append(f"Accept-Encoding: {ACCEPT_ENCODING}\r\n")
    lines.append("Content-Length: ")
    return "".join(lines).encode("latin-1")


class _Connection(asyncio.Protocol):
    """One kept-alive connection: sends a request, parses its answer as the bytes arrive."""

    __slots__ = (
        "transport",
        "closed",
        "limit",
        "_buf",
        "_waiter",
        "_head",
        "_length",
        "_chunked",
        "_body",
        "_keep",
    )

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.limit = 0
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
        self._body.clear()
        self._keep = True

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._waiter is None or self._waiter.done():
            self._close()  # bytes nobody asked for: the connection is unusable
            return
        self._buf += data
        try:
            self._parse()
        except (ConnectionLost, ResponseTooLarge, BadEncoding) as exc:
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
            try:
                self._finish(status, headers, bytes(self._buf))
            except (ResponseTooLarge, BadEncoding) as error:
                waiter.set_exception(error)
            return
        lost = ConnectionLost(
            "the server closed the connection before the whole answer arrived"
            + (f": {exc}" if exc else "")
        )
        lost.__cause__ = exc
        waiter.set_exception(lost)

    # the exchange
    def send(self, data: bytes, waiter: asyncio.Future[Response], limit: int) -> None:
        self._reset()
        self._waiter = waiter
        self.limit = limit
        assert self.transport is not None
        self.transport.write(data)

    @property
    def reusable(self) -> bool:
        return (
            self._keep
            and not self.closed
            and self.transport is not None
            and not self.transport.is_closing()
        )

    def _close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _parse(self) -> None:
        buf = self._buf
        while self._head is None:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD:
                    raise ConnectionLost("the answer's header is longer than 64 KiB")
                return
            head = bytes(buf[:end]).decode("latin-1")
            del buf[: end + 4]
            status, http10, headers = parse_head(head)
            if 100 <= status < 200:  # an interim answer (100 Continue): the real one follows
                continue
            self._head = (status, headers)
            connection = headers.get("connection", "").lower()
            self._keep = "keep-alive" in connection if http10 else "close" not in connection
            if status in _NO_BODY_STATUS:
                self._length = 0
            elif "chunked" in headers.get("transfer-encoding", "").lower():
                self._chunked = True
            elif "content-length" in headers:
                self._length = content_length(headers["content-length"])
                if self._length > self.limit:
                    raise ResponseTooLarge(self.limit, self._length)
            else:
                self._keep = False  # the body ends with the connection
        if self._chunked:
            self._parse_chunks()
        elif self._length >= 0:
            if len(buf) >= self._length:
                status, headers = self._head
                if len(buf) > self._length:
                    self._keep = False  # more bytes than the answer: do not trust it
                self._finish(status, headers, bytes(buf[: self._length]))
        elif len(buf) > self.limit:
            raise ResponseTooLarge(self.limit)

    def _parse_chunks(self) -> None:
        """Move whole chunks from the buffer to the body (each byte held once)."""
        buf = self._buf
        while True:
            line_end = buf.find(b"\r\n")
            if line_end < 0:
                if len(buf) > MAX_HEAD:
                    raise ConnectionLost("a chunk-size line is longer than 64 KiB")
                return
            size_text = bytes(buf[:line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ConnectionLost(f"a chunk size that is not hex: {size_text[:20]!r}") from None
            if len(self._body) + size > self.limit:
                raise ResponseTooLarge(self.limit)
            if size == 0:  # the last chunk; then trailers (if any), ended by an empty line
                rest = line_end + 2
                if len(buf) < rest + 2:
                    return
                if buf[rest : rest + 2] != b"\r\n" and buf.find(b"\r\n\r\n", rest) < 0:
                    return
                assert self._head is not None
                status, headers = self._head
                self._finish(status, headers, bytes(self._body))
                return
            start = line_end + 2
            if len(buf) < start + size + 2:
                return
            self._body += buf[start : start + size]
            del buf[: start + size + 2]

    def _finish(self, status: int, headers: dict[str, str], body: bytes) -> None:
        encoding = headers.get("content-encoding")
        if encoding:  # raises before the waiter is let go: the caller sets the error on it
            body = decode(body, encoding, self.limit)
        waiter = self._waiter
        self._waiter = None
        self._buf.clear()
        self._body.clear()
        if waiter is not None and not waiter.done():
            waiter.set_result(Response(status, headers, body))


class _Pool:
    """The idle connections of one event loop, per (host, port)."""

    def __init__(self) -> None:
        self.idle: dict[tuple[str, int], deque[_Connection]] = {}
        self.closed = False

    async def connect(self, target: _Target) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, conn = await loop.create_connection(_Connection, target.host, target.port)
        except OSError as exc:  # refused, unknown host
            raise ConnectError(exc.errno, f"{type(exc).__name__}: {exc}") from exc
        return conn

    def take(self, key: tuple[str, int]) -> _Connection | None:
        idle = self.idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.reusable:
                return conn
        return None

    def give_back(self, key: tuple[str, int], conn: _Connection) -> None:
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


async def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    timeout: float,
    max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> Response:
    """POST ``body`` to the plain-http ``url`` with ``headers`` (``Host``, ``Content-Length``,
    ``User-Agent`` and ``Accept-Encoding`` are added) and return the answer, at most
    ``max_bytes`` long; the whole exchange, connecting included, within ``timeout`` seconds.
    Sent once: a connection that breaks raises, whether it was new or reused."""
    target = _target(url)
    head = b"".join(
        (
            target.head,
            _header_lines(tuple(headers.items())),
            str(len(body)).encode(),
            b"\r\n\r\n",
            body,
        )
    )
    key = (target.host, target.port)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        pool = await _pool()
        conn = pool.take(key)
        if conn is None:
            conn = await pool.connect(target)
        waiter: asyncio.Future[Response] = loop.create_future()
        conn.send(head, waiter, max_bytes)
        try:
            response = await waiter
        except BaseException:  # broken, too large, timeout, cancel: the connection is spent
            conn._close()
            raise
        pool.give_back(key, conn)
        return response
