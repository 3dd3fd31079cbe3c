"""The direct transports: one HTTP POST to an OpenAI-compatible ``/chat/completions`` endpoint.

:class:`DirectTransport` serves local and self-hosted OpenAI-compatible servers (``api_base`` with
an ``openai/``-style model prefix): it does what ``litellm.acompletion`` does for them with a
fraction of the CPU (see ``benchmarks/bench_models.py``), and keeps the same error classes,
retries and reply fields. :class:`EmbeddedTransport` sends the same way to the embedded llama.cpp
server, which it starts on a call's first need and which answers one request at a time. The
requests go through :mod:`.client`: httpx2 (proxies, TLS settings, gzip, the size limit), or our
lean HTTP/1.1 client where it cannot differ (plain http on loopback, no proxy); :func:`aclose`
closes the current loop's connections.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..aio import at_loop_end
from ..errors import (
    ModelConfigError,
    ModelConnectionError,
    ModelResponseError,
    ModelTimeoutError,
)
from ..jsontext import dumps_bytes, loads
from ..memo import IdentityMemo
from .answer import BadEncoding, CertificateError, ConnectError, Response, ResponseTooLarge
from .client import aclose as close_clients
from .client import post
from .embedded import DEFAULT_INSTANCE, ChatFormat, EmbeddedServer, embedded_server
from .endpoint import DEFAULT_NETWORK, Network, check_api_base, check_headers
from .spec import OPENAI_COMPATIBLE, provider_of
from .transport import ChatRequest, ChatResult, Transport, error_for_status, result_from_json

__all__ = [
    "MAX_REDIRECTS",
    "DirectTransport",
    "EmbeddedTransport",
    "aclose",
    "certificate_message",
    "complete",
    "post_json",
    "too_large_message",
]


async def aclose() -> None:
    """Close this event loop's HTTP connections (the next call opens new ones) and let litellm
    finish its queued logging; call it before a loop you created ends."""
    litellm_transport = sys.modules.get(f"{__package__}.litellm_transport")
    if litellm_transport is not None:  # never loaded: litellm has nothing queued
        await litellm_transport.aclose()
    await close_clients()


# a loop that aio.run_sync created closes its HTTP connections (and litellm's logging worker)
# before it ends
at_loop_end(aclose)


_SECRET_WORDS = (
    "api_key",
    "apikey",
    "api-key",
    "secret",
    "password",
    "authorization",
    "access_token",
    "auth_token",
    "bearer",
)


@functools.lru_cache(maxsize=256)
def _secret_texts(secrets: tuple[str | None, ...]) -> tuple[str, ...]:
    """Our secrets as the latin-1 text of their UTF-8 bytes (what :func:`_secret_free` seeks)."""
    return tuple(secret.encode().decode("latin-1") for secret in secrets if secret)


def _secret_free(body: bytes, secrets: tuple[str | None, ...]) -> bool:
    """Whether a response body surely holds no secret: no secret-looking word (any case), none
    of ours. Searched in the body's bytes read as latin-1 text (one character per byte: the
    same matches as in the bytes, found several times faster)."""
    text = body.decode("latin-1")
    for secret in _secret_texts(secrets):
        if secret in text:
            return False
    low = body.lower().decode("latin-1")  # bytes.lower: ASCII letters only, as before
    for word in _SECRET_WORDS:
        if word in low:
            return False
    return True


def _dump_tools(tools: Sequence[Any]) -> bytes:
    return dumps_bytes(list(tools))


#: the JSON of a tools list, memoised by the identity of its (memoised) tool dicts
_tools_json: IdentityMemo[bytes] = IdentityMemo(_dump_tools)


#: the redirects followed for one request (307 / 308: the method and body are kept)
MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@functools.lru_cache(maxsize=256)
def _checked_headers(items: tuple[tuple[str, str], ...], model: str) -> None:
    check_headers(dict(items), model=model)


@functools.lru_cache(maxsize=256)
def _checked_url(url: str) -> str:
    return check_api_base(url, what="the endpoint URL")


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.hostname, parts.port


def _redirect(url: str, response: Response, hops: int, model: str) -> str:
    """The URL a 307 / 308 answer sends the request to; a configuration error for a redirect
    that would turn the POST into a GET (301, 302, 303) or one too many, naming the location."""
    location = response.headers.get("location", "")
    target = urljoin(url, location) if location else "(no Location given)"
    status = response.status
    if status in (307, 308) and location and hops < MAX_REDIRECTS:
        return check_api_base(target, what=f"the redirect (HTTP {status}) from {url} to")
    why = (
        f"more than {MAX_REDIRECTS} redirects"
        if status in (307, 308) and location
        else "a POST is not sent on after this redirect (it would arrive as a GET)"
    )
    raise ModelConfigError(
        f"{model} at {url} answered HTTP {status}, redirecting to {target}: {why}; set "
        "api_base to the endpoint's real address"
    )


async def post_json(
    url: str,
    payload: dict[str, Any],
    *,
    api_key: str | None,
    timeout: float,
    model: str,
    tools: list[dict[str, Any]] | None = None,
    extra_headers: dict[str, str] | None = None,
    network: Network = DEFAULT_NETWORK,
) -> tuple[Any, float, bool]:
    """POST ``payload``; return (decoded JSON, latency ms, secret-free?) or raise a ModelError.

    Redirects 307 and 308 are followed (at most :data:`MAX_REDIRECTS`; the key is not sent to
    another origin); others are a :class:`ModelConfigError` naming the new location, as are
    headers that would corrupt the request (:func:`.endpoint.check_headers`).
    """
    _checked_url(url)
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    if extra_headers:
        extra = {str(k): str(v) for k, v in extra_headers.items()}
        _checked_headers(tuple(extra.items()), model)
        headers.update(extra)
    data = dumps_bytes(payload)
    if tools:  # spliced in: the same tools are serialised once, not on every call
        data = b"".join((data[:-1], b',"tools":', _tools_json(tools), b"}"))
    started = time.perf_counter()
    hops = 0
    while True:
        response = await _send(url, data, headers, timeout, model, network)
        if response.status not in _REDIRECTS:
            break
        target = _redirect(url, response, hops, model)
        if _origin(target) != _origin(url):  # as browsers and httpx do: no key elsewhere
            headers.pop("Authorization", None)
        url, hops = target, hops + 1
    body, status, resp_headers = response.body, response.status, response.headers
    latency_ms = (time.perf_counter() - started) * 1000.0
    if status >= 300:
        raise error_for_status(
            status, body.decode("utf-8", "replace"), resp_headers, model=model, where=url
        )
    try:
        return (
            loads(body),
            latency_ms,
            _secret_free(body, (api_key, *(extra_headers or {}).values())),
        )
    except ValueError as exc:
        kind = resp_headers.get("content-type", "no Content-Type")
        raise ModelResponseError(
            f"{model} at {url} returned a body that is not JSON ({kind}, "
            f"{len(body)} bytes): {body[:200]!r}",
            status_code=status,
            model=model,
        ) from exc


async def _send(
    url: str,
    data: bytes,
    headers: dict[str, str],
    timeout: float,
    model: str,
    network: Network,
) -> Response:
    """One POST through :func:`.client.post`, its failures as model errors."""
    try:
        return await post(url, data, headers, timeout=timeout, network=network)
    except TimeoutError as exc:
        raise ModelTimeoutError(
            f"{model} at {url} did not answer within {timeout:g} s (raise timeout= if the model "
            "is slow)",
            model=model,
        ) from exc
    except CertificateError as exc:
        raise ModelConfigError(certificate_message(model, url, exc)) from exc
    except ConnectError as exc:
        raise ModelConnectionError(
            f"cannot connect to {url} for {model}: {exc.strerror or exc}; is the server running "
            "and is api_base right?",
            model=model,
        ) from exc
    except ResponseTooLarge as exc:
        error = ModelResponseError(too_large_message(model, url, exc), model=model)
        error.retryable = False  # the same request would bring the same answer
        raise error from exc
    except BadEncoding as exc:
        raise ModelResponseError(f"{model} at {url}: {exc}", model=model) from exc
    except OSError as exc:
        raise ModelConnectionError(
            f"connection to {url} failed for {model}: {type(exc).__name__}: {exc}", model=model
        ) from exc
    except ValueError as exc:  # not an http(s) URL
        raise ModelConfigError(
            f"cannot send to {url} for {model}: {exc}; is api_base an http(s) URL?"
        ) from exc


def certificate_message(model: str, url: str, exc: BaseException) -> str:
    """What a certificate failure says: the cause and the settings that fix it."""
    return (
        f"the TLS certificate of {url} could not be verified for {model} ({exc}); if the "
        "endpoint uses an internal CA or a self-signed certificate, give the model its CA "
        "bundle: ssl_verify='/path/to/ca.pem' (CLI --ssl-verify PATH, or SSL_CERT_FILE), or "
        "turn the check off with ssl_verify=False (--ssl-verify false; stored with the run)"
    )


def too_large_message(model: str, url: str, exc: BaseException) -> str:
    """What an oversized answer says: the limit and the setting that changes it."""
    return (
        f"{model} at {url}: {exc}; no chat completion is that large: check api_base, or raise "
        "the model's max_response_bytes (CLI --max-response-bytes) if it truly is"
    )


def _model_id(model: str) -> str:
    """The model name as the endpoint knows it (an OpenAI-compatible provider prefix removed)."""
    provider, model_id = provider_of(model)
    return model_id if provider and provider in OPENAI_COMPATIBLE else model


async def complete(request: ChatRequest) -> ChatResult:
    """Send one chat-completion request to ``request.api_base``."""
    if not request.api_base:
        raise ModelResponseError("the direct transport needs an api_base", model=request.model)
    payload: dict[str, Any] = {"model": _model_id(request.model), "messages": request.messages}
    if request.tools:
        if request.tool_choice is not None:
            payload["tool_choice"] = request.tool_choice
    payload.update(request.params)
    # as in the OpenAI client and litellm: extra_headers are HTTP headers, not body fields
    extra_headers = payload.pop("extra_headers", None)
    data, latency_ms, secret_free = await post_json(
        f"{request.api_base}/chat/completions",
        payload,
        api_key=request.api_key,
        extra_headers=extra_headers,
        timeout=request.timeout,
        model=request.model,
        tools=request.tools or None,
        network=request.network,
    )
    result = result_from_json(data, model=request.model, latency_ms=latency_ms)
    result.secret_free = secret_free
    return result


class DirectTransport:
    """Requests to an OpenAI-compatible ``api_base`` through :mod:`.client` (httpx2, or the
    fast path on loopback)."""

    async def open(self) -> None:
        return None

    async def send(self, request: ChatRequest) -> ChatResult:
        return await complete(request)

    def supports_required(self, model: str) -> bool:
        return True  # the endpoint's answer tells (see .fallback)

    def __repr__(self) -> str:
        return "DirectTransport()"


class EmbeddedTransport:
    """Requests to the shared embedded llama.cpp server for ``chat_format`` (and ``instance``:
    see :func:`~.embedded.embedded_server`), started by :meth:`open`, sent through ``inner``
    (default the direct client); one request at a time (the server decodes one), each
    request's timeout counting only while it is served."""

    def __init__(
        self,
        chat_format: ChatFormat,
        inner: Transport | None = None,
        *,
        instance: str = DEFAULT_INSTANCE,
    ):
        self.chat_format: ChatFormat = chat_format
        self.inner: Transport = inner if inner is not None else DirectTransport()
        self.instance = instance

    def _server(self) -> EmbeddedServer:
        return embedded_server(self.chat_format, start=False, instance=self.instance)

    async def open(self) -> None:
        await self._server().start_async()

    async def send(self, request: ChatRequest) -> ChatResult:
        server = self._server()
        request.api_base = server.api_base
        async with server.semaphore():
            return await self.inner.send(request)

    def supports_required(self, model: str) -> bool:
        return self.inner.supports_required(model)  # llama.cpp's bare 500 is learnt (.fallback)

    def __repr__(self) -> str:
        named = "" if self.instance == DEFAULT_INSTANCE else f", instance={self.instance!r}"
        return f"EmbeddedTransport({self.chat_format!r}, {self.inner!r}{named})"
