"""``tool_choice="required"`` → ``"auto"`` when a provider cannot honour it, remembered per model.

A model is known not to support ``required`` when its transport says so before sending
(litellm's capability table) or when the provider rejects a request that used it — a 400 that
names ``tool_choice``, or a 5xx (the llama.cpp server answers a bare HTTP 500) — and the same
request with ``auto`` then succeeds. The memory is per process and per (model, api_base).

Two steps around a call: :func:`prefer_auto` before it (so the cache keys on what will be sent),
and :func:`with_required_fallback` around each try's send. Either records the change on the
:class:`~.exchange.Exchange` (``fell_back``; the request's ``tool_choice`` is what was sent).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from ..errors import ModelBadRequestError, ModelError, ModelServerError
from .exchange import Exchange, Send
from .transport import ChatResult, Transport

__all__ = [
    "forget",
    "is_rejection",
    "knows_unsupported",
    "prefer_auto",
    "remember_unsupported",
    "with_required_fallback",
]

_UNSUPPORTED: set[tuple[str, str | None]] = set()
_LOCK = threading.Lock()


def knows_unsupported(model: str, api_base: str | None) -> bool:
    """Whether ``required`` is known not to work for this model and endpoint."""
    return (model, api_base) in _UNSUPPORTED


def remember_unsupported(model: str, api_base: str | None) -> None:
    with _LOCK:
        _UNSUPPORTED.add((model, api_base))


def forget(model: str | None = None) -> None:
    """Forget what was learnt (for one model, or all)."""
    with _LOCK:
        if model is None:
            _UNSUPPORTED.clear()
        else:
            for key in [k for k in _UNSUPPORTED if k[0] == model]:
                _UNSUPPORTED.discard(key)


def is_rejection(error: ModelError, tool_choice: Any) -> bool:
    """Whether ``error`` may mean the provider rejected ``tool_choice="required"``."""
    if tool_choice != "required":
        return False
    if isinstance(error, ModelServerError):
        return True
    if isinstance(error, ModelBadRequestError):
        text = str(error).lower()
        return "tool_choice" in text or "required" in text or "tool choice" in text
    return False


def _to_auto(exchange: Exchange) -> None:
    exchange.request = dataclasses.replace(exchange.request, tool_choice="auto")
    exchange.fell_back = True


def prefer_auto(exchange: Exchange, transport: Transport) -> None:
    """Send ``auto`` instead of ``required`` when it is already known not to work."""
    if exchange.request.tool_choice != "required":
        return
    spec = exchange.spec
    if knows_unsupported(spec.model, spec.api_base):
        _to_auto(exchange)
    elif not transport.supports_required(spec.model):
        remember_unsupported(spec.model, spec.api_base)
        _to_auto(exchange)


def with_required_fallback(send: Send) -> Send:
    """``send``, resending at once with ``auto`` when ``required`` is rejected; if that works too
    the model is remembered, else the first error is raised (and ``required`` is kept)."""

    async def sending(exchange: Exchange) -> ChatResult:
        try:
            return await send(exchange)
        except ModelError as exc:
            if exchange.fell_back or not is_rejection(exc, exchange.request.tool_choice):
                raise
            asked = exchange.request
            _to_auto(exchange)
            try:
                result = await send(exchange)
            except ModelError:
                exchange.request, exchange.fell_back = asked, False
                raise exc from None
            spec = exchange.spec
            remember_unsupported(spec.model, spec.api_base)
            return result

    return sending
