"""The transport contract: :class:`Transport` sends a :class:`ChatRequest` and gives a
:class:`ChatResult`.

A transport sends one request and either returns a :class:`ChatResult` or raises a
:class:`~tooleval_nb.errors.ModelError` subclass; retries (:mod:`.retry`), the ``required`` →
``auto`` fallback (:mod:`.fallback`), the response cache (:mod:`.cache`) and reading the reply
(:mod:`.wire`) wrap it, in :mod:`.call`. The transports: :class:`~.direct.DirectTransport` (our
HTTP/1.1 client for OpenAI-compatible endpoints), :class:`~.direct.EmbeddedTransport` (the same,
to the embedded llama.cpp server it starts) and :class:`~.litellm_transport.LitellmTransport`;
:func:`~.call.transport_for` picks one per :class:`~.spec.ModelSpec`. HTTP status codes map to
the error tree with :func:`error_for_status`, shared by the direct client and the litellm mapping
so both paths classify alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import (
    ModelAuthError,
    ModelBadRequestError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
    ModelServerError,
    ModelTimeoutError,
)
from .endpoint import DEFAULT_NETWORK, Network
from .spec import DEFAULT_TIMEOUT

__all__ = [
    "ChatRequest",
    "ChatResult",
    "Transport",
    "error_for_status",
    "parse_retry_after",
    "result_from_json",
]


@dataclass(slots=True)
class ChatRequest:
    """One chat-completion request as sent (tools already under their API names)."""

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    tool_choice: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    #: how the endpoint is reached: TLS settings and the size limit of answers
    network: Network = DEFAULT_NETWORK


@dataclass(slots=True)
class ChatResult:
    """The parts of a provider's answer that the toolkit uses."""

    message: dict[str, Any]
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    latency_ms: float = 0.0
    #: the transport checked that ``raw`` holds no secret (so it need not be scrubbed)
    secret_free: bool = False


class Transport(Protocol):
    """How requests reach a model. Chosen once per spec; shared by concurrent calls."""

    async def open(self) -> None:
        """Make the endpoint ready before a call's first request (the embedded server starts
        here); raises :class:`~tooleval_nb.errors.EmbeddedModelError` when it cannot be."""

    async def send(self, request: ChatRequest) -> ChatResult:
        """Send one request; raise a :class:`~tooleval_nb.errors.ModelError` on failure."""

    def supports_required(self, model: str) -> bool:
        """False when ``tool_choice="required"`` is known not to work for ``model`` before
        anything is sent (litellm's capability table); True lets the answer tell."""


def parse_retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (seconds; HTTP dates are ignored)."""
    if not headers:
        return None
    getter = headers.get
    value = getter("retry-after-ms") or getter("Retry-After-Ms")
    if value:
        try:
            return float(value) / 1000.0
        except ValueError:
            pass
    value = getter("retry-after") or getter("Retry-After")
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            return None
    return None


def _error_message(body: str) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:500]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or "").strip()[:500]
        return str(err)[:500]
    return body.strip()[:500]


def error_for_status(
    status: int, body: str, headers: Any = None, *, model: str = "", where: str = ""
) -> ModelError:
    """The :class:`ModelError` for a non-2xx HTTP answer."""
    detail = _error_message(body) or "(empty body)"
    text = f"{model or 'model'}{f' at {where}' if where else ''} answered HTTP {status}: {detail}"
    retry_after = parse_retry_after(headers)
    kwargs: dict[str, Any] = {"status_code": status, "retry_after": retry_after, "model": model}
    if status == 429:
        return ModelRateLimitError(text + " (rate limited; retried with back-off)", **kwargs)
    if status in (401, 403):
        return ModelAuthError(text + " (check the api_key for this model)", **kwargs)
    if status == 404:
        return ModelNotFoundError(text + " (check the model name and api_base)", **kwargs)
    if status == 408:
        return ModelTimeoutError(text, **kwargs)
    if 400 <= status < 500:
        return ModelBadRequestError(text, **kwargs)
    if status >= 500:
        return ModelServerError(text, **kwargs)
    return ModelResponseError(text, **kwargs)


def result_from_json(data: Any, *, model: str = "", latency_ms: float = 0.0) -> ChatResult:
    """Read an OpenAI chat-completion JSON object; raise ModelResponseError if it is not one."""
    try:
        choice = data["choices"][0]
        message = choice["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (KeyError, IndexError, TypeError) as exc:
        raise ModelResponseError(
            f"{model or 'model'} returned a body that is not a chat completion "
            f"(no choices[0].message): {json.dumps(data)[:300]}",
            model=model,
        ) from exc
    usage = data.get("usage") or {}
    return ChatResult(
        message=message,
        finish_reason=choice.get("finish_reason"),
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        raw=data,
        latency_ms=latency_ms,
    )
