"""Real loopback servers for the network-edge tests: an OpenAI-compatible endpoint that can
answer gzip, oversized or over TLS, and a forward proxy that records what it relays.

Each runs ``http.server.ThreadingHTTPServer`` on 127.0.0.1 in a thread (the model calls under
test run their own event loops), speaks HTTP/1.1 with kept-alive connections, and records what
it saw, so a test can say which requests reached which server.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Endpoint", "ForwardProxy", "Silent", "completion"]


def completion(text: str = "ok") -> dict[str, Any]:
    """A chat completion whose message says ``text``."""
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class _Server:
    """A threaded HTTP server on 127.0.0.1 with a handler class bound to ``self``."""

    handler: type[BaseHTTPRequestHandler]

    def __init__(self, tls: ssl.SSLContext | None = None):
        self.tls = tls
        self.seen: list[str] = []  # the request targets, as received
        self.lock = threading.Lock()
        owner = self

        class Handler(self.handler):  # type: ignore[misc,valid-type,name-defined]
            server_owner = owner

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def __enter__(self) -> Any:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


class _EndpointHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_owner: Endpoint

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        owner = self.server_owner
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        with owner.lock:
            owner.seen.append(self.path)
            owner.headers.append({k.lower(): v for k, v in self.headers.items()})
        if owner.redirect_to:
            self.send_response(owner.redirect_status)
            self.send_header("Location", owner.redirect_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if owner.oversized:
            self._oversized(owner.oversized)
            return
        body = json.dumps(completion(owner.text)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if owner.gzip:  # whatever the request's Accept-Encoding said, as a misconfigured proxy
            body = gzip.compress(body)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _oversized(self, size: int) -> None:
        """A JSON answer of ``size`` bytes: announced (Content-Length) or chunked, counting the
        bytes the client took before it closed the connection."""
        owner = self.server_owner
        piece = b" " * 65536
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if owner.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        sent = 0
        try:
            while sent < size:
                if owner.chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                else:
                    self.wfile.write(piece)
                sent += len(piece)
            if owner.chunked:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client refused the rest and closed
            self.close_connection = True
        finally:
            with owner.lock:
                owner.sent.append(sent)


class Endpoint(_Server):
    """An OpenAI-compatible endpoint at :attr:`api_base` answering every POST with a chat
    completion: plain, ``gzip``-encoded, ``oversized`` (that many bytes, announced or
    ``chunked``), or a redirect; over TLS when given a server context."""

    handler = _EndpointHandler

    def __init__(
        self,
        *,
        tls: ssl.SSLContext | None = None,
        gzip: bool = False,
        oversized: int = 0,
        chunked: bool = False,
        redirect_to: str = "",
        redirect_status: int = 307,
        text: str = "ok",
    ):
        self.gzip, self.oversized, self.chunked, self.text = gzip, oversized, chunked, text
        self.redirect_to, self.redirect_status = redirect_to, redirect_status
        self.headers: list[dict[str, str]] = []  # each request's, names in lower case
        self.sent: list[int] = []  # bytes of each oversized answer written before the close
        super().__init__(tls)

    @property
    def api_base(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/v1"


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_owner: ForwardProxy

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        owner = self.server_owner
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with owner.lock:
            owner.seen.append(self.path)
        target = urlsplit(self.path)  # absolute-form: http://host:port/path
        if not target.hostname:
            self.send_error(400, "not a proxy request")
            return
        upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=10)
        headers = {
            k: v
            for k, v in self.headers.items()
            if k.lower() not in ("proxy-connection", "connection", "keep-alive")
        }
        upstream.request("POST", target.path or "/", body=body, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Via", "1.1 test-proxy")
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    def do_CONNECT(self) -> None:  # noqa: N802 - a tunnel for https, as corporate proxies do
        owner = self.server_owner
        with owner.lock:
            owner.seen.append(f"CONNECT {self.path}")
        host, _, port = self.path.rpartition(":")
        upstream = socket.create_connection((host, int(port)), timeout=10)
        self.send_response(200, "Connection established")
        self.end_headers()
        self.close_connection = True
        back = threading.Thread(target=_pipe, args=(upstream, self.connection), daemon=True)
        back.start()
        _pipe(self.connection, upstream)
        back.join(10)
        upstream.close()


def _pipe(source: socket.socket, target: socket.socket) -> None:
    """Copy bytes from ``source`` to ``target`` until ``source`` ends."""
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class ForwardProxy(_Server):
    """A forward HTTP proxy at :attr:`url`: relays absolute-form requests, tunnels ``CONNECT``
    ones (https), and records both (a tunnel as ``"CONNECT host:port"``)."""

    handler = _ProxyHandler

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def proxies_cleared() -> Iterator[str]:
    """The proxy variables a test must clear first (either case)."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        yield name
        yield name.upper()


class Silent:
    """A TCP server at :attr:`api_base` that accepts connections and reads, never answering
    (until it is closed): an endpoint that hangs."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)

    def __enter__(self) -> Silent:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # close() alone does not wake the thread blocked in accept(): it would wait out the join
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        for conn in self.connections:
            conn.close()
        self.thread.join(5)
        assert not self.thread.is_alive(), "the silent server's accept thread did not end"
