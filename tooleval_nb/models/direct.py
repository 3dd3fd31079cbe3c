"""The direct transports: one HTTP POST to an OpenAI-compatible ``/chat/completions`` endpoint.

:class:`DirectTransport` serves local and self-hosted OpenAI-compatible servers (``api_base`` with
an ``openai/``-style model prefix): it does what ``litellm.acompletion`` does for them with a
fraction of the CPU (see ``benchmarks/bench_models.py``), and keeps the same error classes,
retries and reply fields. :class:`EmbeddedTransport` sends the same way to the embedded llama.cpp
server, which it starts on a call's first need and which answers one request at a time. The
requests go through our lean HTTP/1.1 client (:mod:`.http`: kept-alive connections per event
loop); :func:`aclose` closes the current loop's connections.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Sequence
from typing import Any

from ..aio import at_loop_end
from ..errors import ModelConnectionError, ModelResponseError, ModelTimeoutError
from ..jsontext import dumps_bytes, loads
from ..memo import IdentityMemo
from . import http
from .embedded import ChatFormat, embedded_server
from .spec import OPENAI_COMPATIBLE, provider_of
from .transport import ChatRequest, ChatResult, Transport, error_for_status, result_from_json

__all__ = ["DirectTransport", "EmbeddedTransport", "aclose", "complete", "post_json"]


async def aclose() -> None:
    """Close this event loop's HTTP connections (the next call opens new ones) and let litellm
    finish its queued logging; call it before a loop you created ends."""
    litellm_transport = sys.modules.get(f"{__package__}.litellm_transport")
    if litellm_transport is not None:  # never loaded: litellm has nothing queued
        await litellm_transport.aclose()
    await http.aclose()


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


async def post_json(
    url: str,
    payload: dict[str, Any],
    *,
    api_key: str | None,
    timeout: float,
    model: str,
    tools: list[dict[str, Any]] | None = None,
    extra_headers: dict[str, str] | None = None,
) -> tuple[Any, float, bool]:
    """POST ``payload``; return (decoded JSON, latency ms, secret-free?) or raise a ModelError."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    if extra_headers:
        headers.update({str(k): str(v) for k, v in extra_headers.items()})
    data = dumps_bytes(payload)
    if tools:  # spliced in: the same tools are serialised once, not on every call
        data = b"".join((data[:-1], b',"tools":', _tools_json(tools), b"}"))
    started = time.perf_counter()
    try:
        response = await http.post(url, data, headers, timeout=timeout)
    except TimeoutError as exc:
        raise ModelTimeoutError(
            f"{model} at {url} did not answer within {timeout:g} s (raise timeout= if the model "
            "is slow)",
            model=model,
        ) from exc
    except http.ConnectError as exc:
        raise ModelConnectionError(
            f"cannot connect to {url} for {model}: {exc.strerror or exc}; is the server running "
            "and is api_base right?",
            model=model,
        ) from exc
    except OSError as exc:
        raise ModelConnectionError(
            f"connection to {url} failed for {model}: {type(exc).__name__}: {exc}", model=model
        ) from exc
    except ValueError as exc:  # not an http(s) URL, or a header with a line break
        raise ModelConnectionError(
            f"cannot send to {url} for {model}: {exc}; is api_base an http(s) URL?", model=model
        ) from exc
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
        raise ModelResponseError(
            f"{model} at {url} returned a body that is not JSON: {body[:200]!r}",
            status_code=status,
            model=model,
        ) from exc


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
    )
    result = result_from_json(data, model=request.model, latency_ms=latency_ms)
    result.secret_free = secret_free
    return result


class DirectTransport:
    """Requests to an OpenAI-compatible ``api_base`` through our HTTP client (:mod:`.http`)."""

    async def open(self) -> None:
        return None

    async def send(self, request: ChatRequest) -> ChatResult:
        return await complete(request)

    def supports_required(self, model: str) -> bool:
        return True  # the endpoint's answer tells (see .fallback)

    def __repr__(self) -> str:
        return "DirectTransport()"


class EmbeddedTransport:
    """Requests to the shared embedded llama.cpp server for ``chat_format``, started by
    :meth:`open`, sent through ``inner`` (default the direct client); one request at a time (the
    server decodes one), each request's timeout counting only while it is served."""

    def __init__(self, chat_format: ChatFormat, inner: Transport | None = None):
        self.chat_format: ChatFormat = chat_format
        self.inner: Transport = inner if inner is not None else DirectTransport()

    async def open(self) -> None:
        await embedded_server(self.chat_format, start=False).start_async()

    async def send(self, request: ChatRequest) -> ChatResult:
        server = embedded_server(self.chat_format, start=False)
        request.api_base = server.api_base
        async with server.semaphore():
            return await self.inner.send(request)

    def supports_required(self, model: str) -> bool:
        return self.inner.supports_required(model)  # llama.cpp's bare 500 is learnt (.fallback)

    def __repr__(self) -> str:
        return f"EmbeddedTransport({self.chat_format!r}, {self.inner!r})"
