"""The direct path's HTTP: httpx2 for every endpoint, the fast path where it cannot differ.

:func:`post` sends one request. It goes through :mod:`.http` (our lean HTTP/1.1 client) only
when :func:`fast_path` holds: plain ``http`` to this machine (``localhost`` or a loopback
address) with no proxy variable set, where no proxy, TLS setting or certificate store can apply
and the lean client answers exactly as httpx2 would, for a quarter of its CPU. Every other
request goes through an ``httpx2.AsyncClient`` (:func:`http_client`): the proxy variables
(``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``), the model's TLS settings
(:class:`.endpoint.Network`: ``ssl_verify``, ``ssl_cert``; ``SSL_VERIFY``, ``SSL_CERT_FILE``,
``SSL_CERT_DIR``), gzip / deflate, and the size limit, counted as the bytes arrive.

The same clients serve litellm's path for OpenAI-compatible endpoints
(:mod:`.litellm_transport` hands litellm an OpenAI client built on :func:`http_client`), so
both transports meet a proxy, a certificate or an oversized answer alike. Clients are kept per
event loop and per (network settings, proxy and TLS variables); :func:`aclose` closes the
current loop's.

httpx2 is imported at the first request that needs it, not with this module: a run against a
local server never loads it (the direct path stays as light as before to import).
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
import weakref
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from .answer import (
    ACCEPT_ENCODING,
    USER_AGENT,
    BadEncoding,
    CertificateError,
    ConnectError,
    ConnectionLost,
    Response,
    ResponseTooLarge,
)
from .endpoint import Network, is_loopback, proxy_environment, ssl_context, tls_environment
from .http import MAX_IDLE, _target
from .http import aclose as close_lean
from .http import post as post_lean

if TYPE_CHECKING:
    import httpx2

__all__ = ["aclose", "fast_path", "http_client", "post", "response_hook"]

#: the variables that can route a plain-http request elsewhere (either case)
_PROXY_NAMES = ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY")


def fast_path(url: str) -> bool:
    """Whether ``url`` goes through the lean client: plain ``http`` to a loopback host, with no
    ``HTTP_PROXY`` / ``ALL_PROXY`` set (read at each call, as httpx2's clients are keyed)."""
    environ = os.environ
    for name in _PROXY_NAMES:
        if name in environ:
            return False
    return _loopback_http(url)


def _loopback_http(url: str) -> bool:
    try:
        target = _target(url)  # lru-cached: the parsed URL of the fast path
    except ValueError:
        return False
    return is_loopback(target.host)


@functools.cache
def _httpx2() -> Any:
    """httpx2, imported on first need (about 50 ms that a local run never pays)."""
    import httpx2

    return httpx2


@functools.cache
def _limited_stream() -> type:
    """The class of an answer's raw stream refused once it passes its limit (an httpx2
    ``AsyncByteStream``, made when httpx2 is loaded)."""

    class Limited(_httpx2().AsyncByteStream):  # type: ignore[misc]
        def __init__(self, stream: Any, limit: int):
            self.stream, self.limit = stream, limit

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in self.stream:
                seen += len(chunk)
                if seen > self.limit:
                    raise ResponseTooLarge(self.limit)
                yield chunk

        async def aclose(self) -> None:
            await self.stream.aclose()

    return Limited


def response_hook(limit: int) -> Any:
    """An httpx2 response hook refusing an answer over ``limit`` bytes: at once when its
    ``Content-Length`` says so, else as its bytes arrive (the memory held stays bounded)."""

    async def hook(response: httpx2.Response) -> None:
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise ResponseTooLarge(limit, int(length))
        response.stream = _limited_stream()(response.stream, limit)

    return hook


_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Any, httpx2.AsyncClient]]
_CLIENTS = weakref.WeakKeyDictionary()


def http_client(network: Network) -> httpx2.AsyncClient:
    """This loop's httpx2 client for ``network`` under the current proxy and TLS variables.

    Raises:
        ModelConfigError: a CA bundle or client certificate that cannot be loaded.
    """
    loop = asyncio.get_running_loop()
    clients = _CLIENTS.get(loop)
    if clients is None:
        clients = _CLIENTS[loop] = {}
    key = (network, proxy_environment(), tls_environment())
    client = clients.get(key)
    if client is None or client.is_closed:
        httpx2 = _httpx2()
        client = clients[key] = httpx2.AsyncClient(
            verify=ssl_context(network),
            trust_env=True,  # the proxy variables, NO_PROXY included
            follow_redirects=False,  # .direct decides, naming the new location
            timeout=None,  # the caller's asyncio.timeout bounds the whole exchange
            limits=httpx2.Limits(max_connections=None, max_keepalive_connections=MAX_IDLE),
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
            event_hooks={"response": [response_hook(network.max_response_bytes)]},
        )
    return client


async def aclose() -> None:
    """Close this event loop's clients and lean connections (the next request opens anew)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    clients = _CLIENTS.pop(loop, None)
    for client in (clients or {}).values():
        await client.aclose()
    await close_lean()


def _certificate_failure(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLCertVerificationError):
            return True
        if "CERTIFICATE_VERIFY_FAILED" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


async def post(
    url: str, body: bytes, headers: Mapping[str, str], *, timeout: float, network: Network
) -> Response:
    """POST ``body`` to ``url`` (through the fast path when :func:`fast_path` holds) and return
    the whole answer, decoded, within ``timeout`` seconds; raises the errors of :mod:`.answer`
    (``ConnectError``, ``CertificateError``, ``ConnectionLost``, ``ResponseTooLarge``,
    ``BadEncoding``), ``TimeoutError`` or ``ValueError`` (a URL or header httpx2 refuses)."""
    limit = network.max_response_bytes
    if fast_path(url):
        return await post_lean(url, body, headers, timeout=timeout, max_bytes=limit)
    client = http_client(network)
    httpx2 = _httpx2()
    try:
        async with asyncio.timeout(timeout):
            async with client.stream("POST", url, content=body, headers=headers) as response:
                chunks = []
                size = 0
                async for chunk in response.aiter_bytes():  # decoded
                    size += len(chunk)
                    if size > limit:
                        raise ResponseTooLarge(limit)
                    chunks.append(chunk)
                return Response(response.status_code, dict(response.headers), b"".join(chunks))
    except httpx2.ProxyError as exc:
        raise ConnectError(None, f"the proxy refused or failed: {exc}") from exc
    except httpx2.ConnectError as exc:
        if _certificate_failure(exc):
            raise CertificateError(None, str(exc)) from exc
        raise ConnectError(None, f"{type(exc).__name__}: {exc}") from exc
    except httpx2.DecodingError as exc:
        raise BadEncoding(f"the answer's body does not decode: {exc}") from exc
    except httpx2.TimeoutException as exc:
        raise TimeoutError(str(exc)) from exc
    except (httpx2.UnsupportedProtocol, httpx2.InvalidURL, httpx2.LocalProtocolError) as exc:
        raise ValueError(str(exc)) from exc
    except httpx2.TransportError as exc:  # read / write errors, a malformed answer
        raise ConnectionLost(f"{type(exc).__name__}: {exc}") from exc
