"""One model call: :func:`call_model_async` and its sync twin :func:`call_model`, composed of
small parts.

The walk of a call:

1. the **route** of the model (:func:`route_for`, once per spec): the :class:`ModelSpec`
   resolved and validated (:meth:`ModelSpec.of`), its wire format (:func:`.wire.wire_for`) and
   its transport (:func:`transport_for`);
2. the **wire format** prepares the request: tools under provider-safe names and the messages
   (native), or the tools described in the prompt (raw text); sampling parameters default to
   temperature 0;
3. ``tool_choice="required"`` becomes ``"auto"`` when the model is known not to support it
   (:func:`.fallback.prefer_auto`);
4. the **response cache** wraps the call (:func:`.cache.cached`), by default for temperature 0
   only: a hit needs no model;
5. the **transport** opens (the embedded server starts) and sends, with retries (:mod:`.retry`)
   and the ``required`` → ``auto`` fallback on rejection
   (:func:`.fallback.with_required_fallback`);
6. the wire format **reads** the reply: tool calls with their names mapped back and repaired,
   or parsed from the text; usage, cost, latency.

Provider errors never raise: they come back as a :class:`ModelReply` with ``error`` set.
Misconfiguration raises :class:`ModelConfigError`, found before sending (an unknown mode, a bad
model value) or by the transport (no API key for the provider, a provider litellm does not
know): every call would fail alike.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..aio import run_sync
from ..credentials import mask
from ..errors import EmbeddedModelError, ModelConfigError, ModelError
from ..suite import Tool
from .cache import CacheOption, cached, store_for
from .direct import DirectTransport, EmbeddedTransport
from .embedded import DEFAULT_INSTANCE, ChatFormat, EmbeddedServer
from .endpoint import Network
from .exchange import Exchange, Send
from .fallback import prefer_auto, with_required_fallback
from .reply import ModelReply, scrub_secrets
from .retry import RetryPolicy, retry_async
from .spec import DEFAULT_TIMEOUT, Mode, ModelSpec
from .transport import ChatRequest, ChatResult, Transport
from .wire import WireFormat, wire_for

__all__ = [
    "CacheOption",
    "DEFAULT_TIMEOUT",
    "EMBEDDED_TIMEOUT",
    "Route",
    "call_model",
    "call_model_async",
    "on_its_own_server",
    "route_for",
    "transport_for",
]

#: per-request timeout for the embedded model (its first call loads the weights)
EMBEDDED_TIMEOUT = 120.0
#: the embedded model's default ``max_tokens`` (it rambles; tool calls are short)
EMBEDDED_MAX_TOKENS = 256


def transport_for(spec: ModelSpec, *, instance: str = DEFAULT_INSTANCE) -> Transport:
    """The transport of ``spec``: the embedded server's (its ``instance``: see
    :func:`on_its_own_server`), the direct OpenAI-compatible client, or litellm (see
    :data:`.spec.TransportName`).

    Raises:
        ModelConfigError: ``transport="direct"`` without an endpoint.
    """
    if not isinstance(spec.transport, str):  # a Transport object given with the spec
        return spec.transport  # type: ignore[no-any-return]
    if spec.uses_direct():
        sender: Transport = DirectTransport()
    else:
        from .litellm_transport import LitellmTransport

        sender = LitellmTransport()
    if spec.embedded:
        chat_format: ChatFormat = "chatml-function-calling" if spec.mode == "native" else "chatml"
        return EmbeddedTransport(chat_format, sender, instance=instance)
    return sender


def on_its_own_server(spec: ModelSpec, instance: str) -> ModelSpec:
    """``spec`` served by an embedded server process of its own (``instance``) when it is the
    embedded model with the transport chosen for it; any other spec unchanged.

    For a second role whose requests alternate with the first's on the same embedded model
    (τ²'s user simulator beside its agent): the replies are the same model's (and the cache's
    keys the same), but each process keeps its own prompt in its KV cache instead of reading
    the other's again at every turn.
    """
    if not spec.embedded or not isinstance(spec.transport, str):
        return spec
    return spec.model_copy(update={"transport": transport_for(spec, instance=instance)})


def _counted(transport: Transport) -> Send:
    async def send(exchange: Exchange) -> ChatResult:
        exchange.tries += 1
        return await transport.send(exchange.request)

    return send


@dataclass(frozen=True, slots=True)
class Route:
    """How one spec's calls go: its wire format and transport, and the request defaults."""

    spec: ModelSpec
    wire: WireFormat
    transport: Transport
    #: the transport's send counted as a try, with the required → auto fallback
    send: Send
    #: the model name sent (the embedded server's own name for the embedded model)
    send_model: str
    #: sampling parameters every request starts from
    params: dict[str, Any]
    timeout: float
    #: TLS settings and the answers' size limit
    network: Network

    @classmethod
    def of(cls, spec: ModelSpec) -> Route:
        transport = transport_for(spec)
        params: dict[str, Any] = {"temperature": 0.0, **spec.params}
        send_model, timeout = spec.model, DEFAULT_TIMEOUT
        if spec.embedded:
            send_model, timeout = f"openai/{EmbeddedServer.model_name}", EMBEDDED_TIMEOUT
            params.setdefault("max_tokens", EMBEDDED_MAX_TOKENS)
        return cls(
            spec,
            wire_for(spec),
            transport,
            with_required_fallback(_counted(transport)),
            send_model,
            params,
            timeout,
            spec.network,
        )

    def exchange(
        self,
        messages: Sequence[dict[str, Any]],
        tools: list[Tool],
        tool_choice: Any,
        params: dict[str, Any],
        timeout: float | None,
    ) -> Exchange:
        """A call's exchange: the request the wire format prepares, the known fallback applied."""
        parts = self.wire.prepare(messages, tools, tool_choice)
        spec = self.spec
        request = ChatRequest(
            model=self.send_model,
            messages=parts.messages,
            tools=parts.tools,
            tool_choice=parts.tool_choice if parts.tools else None,
            params={**self.params, **params} if params else dict(self.params),
            api_base=spec.api_base,
            api_key=spec.call_key(),
            timeout=timeout or self.timeout,
            network=self.network,
        )
        exchange = Exchange(spec, request, tools, parts.names)
        prefer_auto(exchange, self.transport)
        return exchange

    async def answer(self, exchange: Exchange, policy: RetryPolicy) -> ModelReply:
        """Send the exchange (retried) and read the reply; a failure is a reply with ``error``."""
        try:
            await self.transport.open()
            result, _ = await retry_async(lambda _: self.send(exchange), policy)
        except ModelConfigError:
            raise  # found by the transport (no API key, an unknown provider): every call alike
        except (ModelError, EmbeddedModelError) as exc:
            return self._failed(exchange, exc)
        return self._replied(exchange, result)

    def _failed(self, exchange: Exchange, exc: ModelError | EmbeddedModelError) -> ModelReply:
        return ModelReply(
            model=self.spec.model,
            mode=self.spec.mode,
            error=mask(str(exc), self.spec.secrets()),
            error_type=type(exc).__name__,
            status_code=getattr(exc, "status_code", None),
            tries=exchange.tries,
            fallback=exchange.fell_back,
            tool_choice=exchange.request.tool_choice,
        )

    def _replied(self, exchange: Exchange, result: ChatResult) -> ModelReply:
        spec = self.spec
        reading = self.wire.read(result.message, exchange.tools, exchange.names)
        content = result.message.get("content")
        return ModelReply(
            model=spec.model,
            mode=spec.mode,
            tool_calls=reading.calls,
            content=reading.content or None,
            raw_text=content if isinstance(content, str) else None,
            reasoning_content=reading.reasoning,
            finish_reason=result.finish_reason,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            cost=result.cost if result.cost is not None else _known_cost(spec, result),
            latency_ms=result.latency_ms,
            tries=exchange.tries,
            fallback=exchange.fell_back,
            tool_choice=exchange.request.tool_choice,
            parse_problems=reading.problems,
            raw=result.raw if result.secret_free else scrub_secrets(result.raw, spec.secrets()),
        )


def _known_cost(spec: ModelSpec, result: ChatResult) -> float | None:
    """The price from litellm's table, only when litellm is loaded already (never for it)."""
    if spec.embedded or "litellm" not in sys.modules:
        return None
    from .litellm_transport import known_cost

    return known_cost(spec.model, result.prompt_tokens, result.completion_tokens)


_ROUTES: dict[tuple[Any, ...], tuple[object, Route]] = {}
#: the retry policy of a call that names none (frozen: one instance serves every call)
_DEFAULT_RETRY = RetryPolicy()


def route_for(
    model: str | ModelSpec | dict[str, Any],
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    mode: str | None = None,
    transport: str | None = None,
) -> Route:
    """The route of a model (see :meth:`ModelSpec.of` for the arguments), made once per model
    string or spec object and these overrides (specs are frozen)."""
    if isinstance(model, dict):  # a dict may change between calls: not remembered
        return Route.of(
            ModelSpec.of(model, api_base=api_base, api_key=api_key, mode=mode, transport=transport)
        )
    key = (model if isinstance(model, str) else id(model), api_base, api_key, mode, transport)
    hit = _ROUTES.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    spec = ModelSpec.of(model, api_base=api_base, api_key=api_key, mode=mode, transport=transport)
    route = Route.of(spec)
    if len(_ROUTES) > 1024:
        _ROUTES.clear()
    _ROUTES[key] = (model, route)
    return route


def _as_tool(tool: Any) -> Tool:
    if isinstance(tool, Tool):
        return tool
    try:
        return Tool.model_validate(tool)
    except Exception as exc:
        raise ModelConfigError(
            f"not a tool: {tool!r:.200}; give te.Tool objects or OpenAI tool dicts ({exc})"
        ) from exc


async def call_model_async(
    model: str | ModelSpec | dict[str, Any],
    messages: Sequence[dict[str, Any]] | str,
    tools: Sequence[Tool | dict[str, Any]] | None = None,
    tool_choice: Any = "auto",
    *,
    mode: Mode | str | None = None,
    timeout: float | None = None,
    cache: CacheOption = None,
    retry: RetryPolicy | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    transport: str | None = None,
    **params: Any,
) -> ModelReply:
    """Call a model once (with retries) and return a :class:`ModelReply`; never raises for
    provider errors.

    Args:
        model: a litellm model string, a :class:`ModelSpec` (or its dict), or
            :data:`DEFAULT_MODEL` for the embedded offline model.
        messages: OpenAI chat messages (or one user prompt string).
        tools: tools as :class:`~tooleval_nb.suite.Tool` or OpenAI dicts.
        tool_choice: ``"auto"``, ``"required"`` (falls back to ``"auto"`` when the provider
            rejects it; ``reply.fallback`` tells), ``"none"``, or a tool name.
        mode: ``"native"`` or a parser format such as ``"hermes"`` or ``"pythonic"`` (raw
            text); default the spec's.
        timeout: per-request timeout, seconds.
        cache: see :data:`CacheOption`.
        retry: the :class:`RetryPolicy` (default: 4 tries, exponential back-off with jitter).
        api_base: an OpenAI-compatible endpoint (overrides the spec's).
        api_key: the endpoint's key (overrides the spec's; never stored).
        transport: ``"auto"``, ``"direct"`` or ``"litellm"`` (see :data:`spec.TransportName`).
        **params: sampling parameters passed through (temperature defaults to 0.0; top_p,
            max_tokens, seed, ...).

    Raises:
        ModelConfigError: an unknown mode or transport, a bad model value, tool or tool_choice.
    """
    started = time.perf_counter()
    route = route_for(model, api_base=api_base, api_key=api_key, mode=mode, transport=transport)
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    exchange = route.exchange(
        messages, [_as_tool(t) for t in tools or ()], tool_choice, params, timeout
    )
    policy = retry or _DEFAULT_RETRY

    async def call(exchange: Exchange) -> ModelReply:
        return await route.answer(exchange, policy)

    store, read = store_for(cache, exchange.request.params)
    reply = await (cached(call, store, read=read) if store is not None else call)(exchange)
    reply.total_ms = (time.perf_counter() - started) * 1000
    return reply


def call_model(
    model: str | ModelSpec | dict[str, Any],
    messages: Sequence[dict[str, Any]] | str,
    tools: Sequence[Tool | dict[str, Any]] | None = None,
    tool_choice: Any = "auto",
    **kwargs: Any,
) -> ModelReply:
    """The sync twin of :func:`call_model_async` (same arguments)."""
    return run_sync(call_model_async(model, messages, tools, tool_choice, **kwargs))
