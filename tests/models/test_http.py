"""The lean HTTP/1.1 client (:mod:`tooleval_nb.models.http`) against real sockets.

Each server here is an ``asyncio`` TCP server that reads the request and writes the exact bytes a
test needs (a chunked body, a body ended by the close, an idle connection dropped, an answer that
never comes), so every path of the parser and the pool is crossed for real. The client against
a whole HTTP server (``FakeOpenAIServer``'s) is tested by every model test.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from tooleval_nb.errors import ModelConfigError, ModelConnectionError, ModelTimeoutError
from tooleval_nb.models import http
from tooleval_nb.models.call import call_model_async
from tooleval_nb.models.direct import post_json
from tooleval_nb.models.retry import RetryPolicy
from tooleval_nb.testing import FakeOpenAIServer

TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
    },
}

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[bool]]


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """One request's head and body (None when the client closed the connection)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head, await reader.readexactly(length)


class RawServer:
    """A TCP server answering each request with ``answer(reader, writer, n)`` (n counts the
    requests over all connections); ``answer`` returns whether to keep the connection open.
    Records the connections made and the requests' heads and bodies."""

    def __init__(self, answer: Answer):
        self.answer = answer
        self.connections = 0
        self.requests: list[tuple[bytes, bytes]] = []
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1/chat/completions"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                self.requests.append(request)
                if not await self.answer(reader, writer, len(self.requests)):
                    break
        finally:
            writer.close()


def _ok(body: bytes, extra: bytes = b"") -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        + extra
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


async def _post(url: str, payload: object = None, timeout: float = 5.0) -> http.Response:
    body = json.dumps(payload if payload is not None else {"q": 1}).encode()
    return await http.post(url, body, {"Content-Type": "application/json"}, timeout=timeout)


def test_content_length_answers_reuse_one_connection_and_send_the_request_whole():
    async def answer(reader, writer, n):
        writer.write(_ok(json.dumps({"n": n}).encode()))
        await writer.drain()
        return True

    async def main():
        async with RawServer(answer) as server:
            first = await _post(server.url, {"a": "é"})
            second = await _post(server.url)
            await http.aclose()
        assert (first.status, json.loads(first.body)) == (200, {"n": 1})
        assert json.loads(second.body) == {"n": 2}
        assert first.headers["content-type"] == "application/json"
        assert server.connections == 1  # kept alive
        head, body = server.requests[0]
        assert head.startswith(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:")
        assert b"\r\nContent-Type: application/json\r\n" in head
        assert json.loads(body) == {"a": "é"}

    asyncio.run(main())


def test_a_chunked_answer_in_pieces_with_extensions_and_trailers():
    payload = json.dumps({"choices": ["x" * 300]}).encode()

    async def answer(reader, writer, n):
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for i in range(0, len(payload), 100):
            piece = payload[i : i + 100]
            writer.write(f"{len(piece):x};ext=1\r\n".encode())
            await writer.drain()
            await asyncio.sleep(0.01)  # the chunk's line and its data in separate reads
            writer.write(piece + b"\r\n")
            await writer.drain()
        writer.write(b"0\r\nX-Trailer: done\r\n\r\n" if n == 1 else b"0\r\n\r\n")
        await writer.drain()
        return True

    async def main():
        async with RawServer(answer) as server:
            first = await _post(server.url)
            second = await _post(server.url)
            await http.aclose()
        assert first.body == payload and second.body == payload
        assert server.connections == 1

    asyncio.run(main())


def test_a_body_that_ends_with_the_connection_and_connection_close():
    async def until_close(reader, writer, n):
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nthe whole body")
        await writer.drain()
        return False  # closes: the body's end

    async def close_header(reader, writer, n):
        writer.write(_ok(b"{}", b"Connection: close\r\n"))
        await writer.drain()
        await asyncio.sleep(0.05)  # the client must not wait for the close to reuse nothing
        return False

    async def main():
        async with RawServer(until_close) as server:
            assert (await _post(server.url)).body == b"the whole body"
            assert (await _post(server.url)).body == b"the whole body"
            assert server.connections == 2
        async with RawServer(close_header) as server:
            await _post(server.url)
            await _post(server.url)
            assert server.connections == 2  # "Connection: close" is never reused
        await http.aclose()

    asyncio.run(main())


def test_http_1_0_without_keep_alive_is_not_reused_and_interim_answers_are_skipped():
    async def answer(reader, writer, n):
        if n == 1:
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n" + _ok(b'{"interim": "skipped"}'))
        else:
            writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        await writer.drain()
        return True

    async def main():
        async with RawServer(answer) as server:
            assert json.loads((await _post(server.url)).body) == {"interim": "skipped"}
            assert (await _post(server.url)).body == b"{}"
            assert (await _post(server.url)).body == b"{}"
            assert server.connections == 2  # the HTTP/1.0 answer's connection was dropped
        await http.aclose()

    asyncio.run(main())


async def _closed(conn: http._Connection) -> None:
    """Until the server's close of ``conn`` has reached the client (loop turns, no timer)."""
    while not conn.closed:
        await asyncio.sleep(0)


def test_an_idle_connection_the_server_dropped_is_replaced():
    """The server answers, then closes the idle connection: once the close has arrived, the
    next request goes out on a new connection; a fresh connection closed without an answer is
    an error, not a retry loop."""

    async def answer(reader, writer, n):
        writer.write(_ok(b"{}"))
        await writer.drain()
        return False  # closes after answering, with no "Connection: close" said

    async def silent(reader, writer, n):
        return False  # closes without a byte

    async def main():
        async with RawServer(answer) as server:
            for _ in range(3):
                assert (await _post(server.url)).body == b"{}"
                pool = http._POOLS[asyncio.get_running_loop()][0]
                for idle in pool.idle.values():
                    for conn in idle:
                        await asyncio.wait_for(_closed(conn), 5)
            assert len(server.requests) == 3 and server.connections == 3
        async with RawServer(silent) as server:
            with pytest.raises(http.ConnectionLost, match="before the whole answer"):
                await _post(server.url)
            assert len(server.requests) == 1
        await http.aclose()

    asyncio.run(main())


def test_a_request_on_a_kept_connection_that_breaks_is_not_sent_again():
    """The server reads the second request on its kept-alive connection, then closes without
    answering: the client raises (the request may have been acted on) instead of sending it
    again on its own; through a model call, the retry policy decides."""

    async def answer(reader, writer, n):
        if n % 2 == 0:
            return False  # read, never answered
        writer.write(_ok(json.dumps(completion_body(n)).encode()))
        await writer.drain()
        return True

    async def main():
        async with RawServer(answer) as server:
            await _post(server.url)
            with pytest.raises(http.ConnectionLost):
                await _post(server.url)
            assert len(server.requests) == 2 and server.connections == 1  # sent once
            url = server.url.removesuffix("/chat/completions")
            spec = {"model": "openai/m", "api_base": url}
            once = await call_model_async(spec, "hi", cache=False, retry=RetryPolicy(max_tries=1))
            assert once.content == "3" and once.tries == 1
            failed = await call_model_async(spec, "hi", cache=False, retry=RetryPolicy(max_tries=1))
            assert failed.error_type == "ModelConnectionError" and len(server.requests) == 4
            await call_model_async(spec, "hi", cache=False, retry=RetryPolicy(max_tries=1))
            retried = await call_model_async(
                spec, "hi", cache=False, retry=RetryPolicy(max_tries=2, base_delay=0)
            )
            assert (retried.content, retried.tries) == ("7", 2)  # the policy sent it again
        await http.aclose()

    asyncio.run(main())


def completion_body(n: int) -> dict[str, object]:
    return {"choices": [{"message": {"role": "assistant", "content": str(n)}}]}


def test_timeout_refused_not_http_and_bad_headers():
    async def never(reader, writer, n):
        await asyncio.sleep(30)
        return False

    async def garbage(reader, writer, n):
        writer.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
        await writer.drain()
        return True

    async def truncated(reader, writer, n):
        writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial')
        await writer.drain()
        return False

    async def main():
        async with RawServer(never) as server:
            started = asyncio.get_running_loop().time()
            with pytest.raises(TimeoutError):
                await _post(server.url, timeout=0.3)
            assert asyncio.get_running_loop().time() - started < 2
        async with RawServer(garbage) as server:
            with pytest.raises(http.ConnectionLost, match="not an HTTP/1.x answer"):
                await _post(server.url)
        async with RawServer(truncated) as server:
            with pytest.raises(http.ConnectionLost, match="before the whole answer"):
                await _post(server.url)
        async with RawServer(never) as server:
            url = server.url
        with pytest.raises(http.ConnectError):  # the port is closed now
            await _post(url)
        with pytest.raises(ValueError, match="line break"):
            await http.post(url, b"{}", {"X-Evil": "a\r\nInjected: 1"}, timeout=1)
        with pytest.raises(ValueError, match="not an http"):
            await http.post("ftp://example.com/x", b"{}", {}, timeout=1)
        await http.aclose()

    asyncio.run(main())


def test_post_json_maps_the_clients_failures_to_model_errors():
    async def never(reader, writer, n):
        await asyncio.sleep(30)
        return False

    async def main():
        async with RawServer(never) as server:
            with pytest.raises(ModelTimeoutError, match="did not answer within 0.3 s"):
                await post_json(server.url, {"a": 1}, api_key=None, timeout=0.3, model="m")
            url = server.url
        with pytest.raises(ModelConnectionError, match="cannot connect to .* is the server"):
            await post_json(url, {"a": 1}, api_key=None, timeout=2, model="m")
        # a URL that is not http(s) is a configuration error: every call would fail alike
        with pytest.raises(ModelConfigError, match="endpoint URL .* is not an http"):
            await post_json(
                "localhost:8000/v1/chat/completions", {"a": 1}, api_key=None, timeout=2, model="m"
            )
        await http.aclose()

    asyncio.run(main())


def test_concurrent_requests_on_a_real_http_server_in_two_loops():
    """64 requests at once on the fake OpenAI server, in two ``asyncio.run`` in one process (as a
    notebook runs twice): every answer right, and each loop's connections closed at its end."""
    with FakeOpenAIServer() as server:
        url = f"{server.url}/chat/completions"

        async def main() -> int:
            bodies = await asyncio.gather(
                *(
                    _post(
                        url,
                        {
                            "model": "fake",
                            "tools": [TOOL],
                            "messages": [{"role": "user", "content": f"get_time tz Zone{i}"}],
                        },
                    )
                    for i in range(64)
                )
            )
            for i, response in enumerate(bodies):
                call = json.loads(response.body)["choices"][0]["message"]["tool_calls"][0]
                assert json.loads(call["function"]["arguments"]) == {"tz": f"Zone{i}"}
            pool = http._POOLS[asyncio.get_running_loop()][0]
            return sum(len(idle) for idle in pool.idle.values())

        for _ in range(2):
            idle = asyncio.run(main())
            assert 1 <= idle <= 64
