"""One model call: :func:`call_model_async` and its sync twin :func:`call_model`.

The journey of a call:

1. resolve the model (:class:`ModelSpec`; :data:`DEFAULT_MODEL` starts the embedded server);
2. shape the request: tools under their provider-safe names (``Tool.api_name``), sampling
   parameters (temperature 0 unless given), and per mode — native: the tools field (and, for the
   embedded server, messages its chatml template keeps); raw text: the tools described in the
   system prompt (:mod:`.rawtext`);
3. ``tool_choice="required"`` becomes ``"auto"`` when the model is known not to support it
   (:mod:`.fallback`);
4. the response cache (:mod:`.cache`), by default for temperature 0 only;
5. send through the direct OpenAI-compatible client or litellm, with retries (:mod:`.retry`) and
   the ``required`` → ``auto`` fallback on rejection;
6. read the reply: tool calls with their names mapped back and repaired, usage, cost, latency.

Provider errors never raise: they come back as a :class:`ModelReply` with ``error`` set.
Misconfiguration (an unknown mode, a bad model value) raises :class:`ModelConfigError`.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Sequence
from typing import Any, Literal

from ..aio import run_sync
from ..errors import EmbeddedModelError, ModelConfigError, ModelError
from ..parsers import repair_tool_call
from ..suite import Tool
from ..toolcall import ToolCall
from . import cache as cache_mod
from . import direct, fallback, rawtext
from .embedded import ChatFormat, EmbeddedServer, embedded_server
from .messages import for_chatml_tools, merge_system
from .reply import ModelReply, scrub_secrets
from .retry import RetryPolicy, retry_async
from .spec import MODES, Mode, ModelSpec
from .transport import ChatRequest, ChatResult

__all__ = ["CacheOption", "DEFAULT_TIMEOUT", "EMBEDDED_TIMEOUT", "call_model", "call_model_async"]

#: per-request timeout for providers, seconds
DEFAULT_TIMEOUT = 60.0
#: per-request timeout for the embedded model (its first call loads the weights)
EMBEDDED_TIMEOUT = 120.0
#: the embedded model's default ``max_tokens`` (it rambles; tool calls are short)
EMBEDDED_MAX_TOKENS = 256

#: ``None``/``True``: the default cache, for temperature 0 only; ``False``: bypass;
#: ``"always"``: also at temperature > 0; ``"refresh"``: do not read, do write;
#: a :class:`~tooleval_nb.models.cache.ResponseCache`: that store (temperature 0 only).
CacheOption = bool | None | Literal["always", "refresh"] | cache_mod.ResponseCache

_CONTROL = {"api_base", "api_key", "timeout", "retry", "cache", "mode", "transport"}


def _as_tool(tool: Any) -> Tool:
    if isinstance(tool, Tool):
        return tool
    try:
        return Tool.model_validate(tool)
    except Exception as exc:
        raise ModelConfigError(
            f"not a tool: {tool!r:.200}; give te.Tool objects or OpenAI tool dicts ({exc})"
        ) from exc


_SPECS: dict[tuple[Any, ...], ModelSpec] = {}
_PAYLOADS: dict[int, tuple[Tool, dict[str, Any]]] = {}


def _payload(tool: Tool) -> dict[str, Any]:
    """``tool.to_openai(api_names=True)``, memoised per Tool object (tools are not changed once
    handed to a call; a run sends the same few tools thousands of times)."""
    hit = _PAYLOADS.get(id(tool))
    if hit is not None and hit[0] is tool:
        return hit[1]
    if len(_PAYLOADS) > 4096:
        _PAYLOADS.clear()
    data = tool.to_openai(api_names=True)
    _PAYLOADS[id(tool)] = (tool, data)
    return data


def _resolve(
    model: str | ModelSpec | dict[str, Any],
    api_base: str | None,
    api_key: str | None,
    mode: str | None,
    transport: str | None,
) -> ModelSpec:
    if isinstance(model, str):  # the common case, memoised (specs are frozen)
        key = (model, api_base, api_key, mode, transport)
        spec = _SPECS.get(key)
        if spec is None:
            if len(_SPECS) > 1024:
                _SPECS.clear()
            spec = _SPECS[key] = _resolve_spec(
                ModelSpec(model=model), api_base, api_key, mode, transport
            )
        return spec
    return _resolve_spec(ModelSpec.of(model), api_base, api_key, mode, transport)


def _resolve_spec(
    spec: ModelSpec,
    api_base: str | None,
    api_key: str | None,
    mode: str | None,
    transport: str | None,
) -> ModelSpec:
    update: dict[str, Any] = {}
    if api_base:
        update["api_base"] = api_base.rstrip("/")
    if api_key:
        update["api_key"] = api_key
    if mode is not None:
        if mode not in MODES:
            raise ModelConfigError(f"unknown mode {mode!r} for {spec.model}; use one of {MODES}")
        update["mode"] = mode
    if transport is not None:
        update["transport"] = transport
    return spec.model_copy(update=update) if update else spec


def _tool_choice(tool_choice: Any, names: dict[str, str]) -> Any:
    """Normalise tool_choice; a bare function name becomes the OpenAI dict with the API name."""
    if tool_choice is None or tool_choice in ("auto", "required", "none"):
        return tool_choice
    to_api = {orig: api for api, orig in names.items()}
    if isinstance(tool_choice, str):
        return {"type": "function", "function": {"name": to_api.get(tool_choice, tool_choice)}}
    if isinstance(tool_choice, dict):
        fn = dict(tool_choice.get("function") or {})
        if fn.get("name") in to_api:
            fn["name"] = to_api[fn["name"]]
        return {"type": "function", "function": fn}
    raise ModelConfigError(
        f"tool_choice must be 'auto', 'required', 'none', a tool name or a "
        f"dict, not {tool_choice!r:.100}"
    )


def _read_native_calls(
    message: dict[str, Any], names: dict[str, str]
) -> tuple[list[ToolCall], list[str]]:
    calls: list[ToolCall] = []
    problems: list[str] = []
    for i, raw_call in enumerate(message.get("tool_calls") or []):
        try:
            call = ToolCall.of(raw_call)
        except (ValueError, TypeError) as exc:
            problems.append(f"tool call {i} could not be read: {exc}")
            continue
        # JSON stuffed in the name; the repair is recorded
        call = repair_tool_call(call, problems)
        original = names.get(call.function.name)
        if original and original != call.function.name:
            call = call.model_copy(
                update={"function": call.function.model_copy(update={"name": original})}
            )
        if call.parsed_arguments() is None:
            problems.append(
                f"tool call {i} ({call.function.name}): arguments are not a JSON "
                f"object: {call.function.arguments[:200]!r}"
            )
        calls.append(call)
    return calls, problems


def _use_cache(
    option: CacheOption, params: dict[str, Any]
) -> tuple[cache_mod.ResponseCache | None, bool]:
    """(store, read?) for this call."""
    if option is False:
        return None, False
    deterministic = float(params.get("temperature") or 0.0) == 0.0 and (
        params.get("n") in (None, 1)
    )
    if isinstance(option, cache_mod.ResponseCache):
        return (option, True) if deterministic else (None, False)
    if option == "always":
        return cache_mod.default_cache(), True
    if option == "refresh":
        return cache_mod.default_cache(), False
    return (cache_mod.default_cache(), True) if deterministic else (None, False)


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
        mode: ``"native"``, ``"hermes"`` or ``"pythonic"`` (raw text); default the spec's.
        timeout: per-request timeout, seconds.
        cache: see :data:`CacheOption`.
        retry: the :class:`RetryPolicy` (default: 4 tries, exponential back-off with jitter).
        api_base / api_key: an OpenAI-compatible endpoint and its key (override the spec's).
        transport: ``"auto"``, ``"direct"`` or ``"litellm"`` (see :data:`spec.Transport`).
        **params: sampling parameters passed through (temperature defaults to 0.0; top_p,
            max_tokens, seed, ...).
    """
    started = time.perf_counter()
    spec = _resolve(model, api_base, api_key, mode, transport)
    sampling = {"temperature": 0.0, **spec.params, **params}
    tool_list = [_as_tool(t) for t in tools or []]
    names = {t.api_name: t.name for t in tool_list}
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    base = spec.api_base
    send_model = spec.model
    if spec.embedded:
        send_model = f"openai/{EmbeddedServer.model_name}"
        sampling.setdefault("max_tokens", EMBEDDED_MAX_TOKENS)
    fell_back = False
    if spec.mode == "native":
        choice = _tool_choice(tool_choice, names) if tool_list else None
        msgs = merge_system(messages)
        if spec.embedded:
            msgs = for_chatml_tools(msgs)
        payload_tools = [_payload(t) for t in tool_list] or None
        if choice == "required" and fallback.knows_unsupported(spec.model, base):
            choice, fell_back = "auto", True
        elif choice == "required" and not spec.uses_direct():
            from .litellm_transport import rejects_required

            if rejects_required(spec.model):
                fallback.remember_unsupported(spec.model, base)
                choice, fell_back = "auto", True
    else:
        raw_choice = (tool_choice or "none") if tool_list else "none"
        msgs = rawtext.prepare_messages(messages, tool_list, spec.mode, raw_choice)
        payload_tools, choice = None, None
    default_timeout = EMBEDDED_TIMEOUT if spec.embedded else DEFAULT_TIMEOUT
    request = ChatRequest(
        model=send_model,
        messages=msgs,
        tools=payload_tools,
        tool_choice=choice if payload_tools else None,
        params=sampling,
        api_base=base,
        api_key=spec.api_key,
        timeout=timeout or default_timeout,
    )
    store, read = _use_cache(cache, sampling)
    key = None
    if store is not None:  # looked up before the embedded server is started: a hit needs no model
        key = cache_mod.cache_key(
            model=spec.model,
            api_base=spec.api_base,
            mode=spec.mode,
            messages=request.messages,
            tools=request.tools,
            tool_choice=request.tool_choice,
            params=sampling,
        )
        hit = store.get(key) if read else None
        if hit is not None:
            hit.update(
                cached=True,
                tries=0,
                fallback=fell_back or bool(hit.get("fallback")),
                total_ms=(time.perf_counter() - started) * 1000,
            )
            return ModelReply.model_validate(hit)
    server = None
    if spec.embedded:
        chat_format: ChatFormat = "chatml-function-calling" if spec.mode == "native" else "chatml"
        try:
            server = await embedded_server(chat_format, start=False).start_async()
        except EmbeddedModelError as exc:
            return ModelReply(
                model=spec.model,
                mode=spec.mode,
                error=str(exc),
                error_type="EmbeddedModelError",
                total_ms=(time.perf_counter() - started) * 1000,
            )
        request.api_base = server.api_base

    if spec.uses_direct():
        send = direct.complete
    else:
        from .litellm_transport import complete as send
    tries = 0

    async def one(req: ChatRequest) -> ChatResult:
        nonlocal tries
        tries += 1
        if server is not None:
            async with server.semaphore():
                return await send(req)
        return await send(req)

    async def attempt(_: int) -> ChatResult:
        nonlocal request, fell_back
        try:
            return await one(request)
        except ModelError as exc:
            if fell_back or not fallback.is_rejection(exc, request.tool_choice):
                raise
            alternative = dataclasses.replace(request, tool_choice="auto")
            try:
                result = await one(alternative)
            except ModelError:
                raise exc from None
            fallback.remember_unsupported(spec.model, base)
            request, fell_back = alternative, True
            return result

    try:
        result, _ = await retry_async(attempt, retry or RetryPolicy())
    except ModelError as exc:
        return ModelReply(
            model=spec.model,
            mode=spec.mode,
            error=str(exc),
            error_type=type(exc).__name__,
            status_code=exc.status_code,
            tries=tries,
            fallback=fell_back,
            tool_choice=request.tool_choice,
            total_ms=(time.perf_counter() - started) * 1000,
        )
    reply = _make_reply(spec, result, names, tool_list, tries, fell_back, request)
    reply.total_ms = (time.perf_counter() - started) * 1000
    if store is not None and key is not None:
        store.put(key, spec.model, reply.model_dump(mode="json", exclude={"cached"}))
    return reply


def _make_reply(
    spec: ModelSpec,
    result: ChatResult,
    names: dict[str, str],
    tools: list[Tool],
    tries: int,
    fell_back: bool,
    request: ChatRequest,
) -> ModelReply:
    message = result.message
    content = message.get("content")
    raw_text = content if isinstance(content, str) else None
    if spec.mode == "native":
        calls, problems = _read_native_calls(message, names)
        text = raw_text
    else:
        calls, text, problems = rawtext.parse_reply(raw_text, spec.mode, tools)
    cost = result.cost
    if cost is None and not spec.embedded and "litellm" in sys.modules:  # never load it for this
        from .litellm_transport import known_cost

        cost = known_cost(spec.model, result.prompt_tokens, result.completion_tokens)
    secrets = (spec.api_key,) if spec.api_key else ()
    return ModelReply(
        model=spec.model,
        mode=spec.mode,
        tool_calls=calls,
        content=text or None,
        raw_text=raw_text,
        finish_reason=result.finish_reason,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cost=cost,
        latency_ms=result.latency_ms,
        tries=tries,
        fallback=fell_back,
        tool_choice=request.tool_choice,
        parse_problems=problems,
        raw=result.raw if result.secret_free else scrub_secrets(result.raw, secrets),
    )


def call_model(
    model: str | ModelSpec | dict[str, Any],
    messages: Sequence[dict[str, Any]] | str,
    tools: Sequence[Tool | dict[str, Any]] | None = None,
    tool_choice: Any = "auto",
    **kwargs: Any,
) -> ModelReply:
    """The sync twin of :func:`call_model_async` (same arguments)."""
    return run_sync(call_model_async(model, messages, tools, tool_choice, **kwargs))
