"""The one module that imports litellm: completions, embeddings, capabilities, error mapping.

litellm is imported lazily (about 2 s) with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so it never
reaches the network, and quietened once: no debug banners, no telemetry, no message logging, no
callbacks of ours. Its own retries are off (``num_retries=0``, ``max_retries=0``): retries happen
in :mod:`.retry`, once, for every transport.

:data:`EXCEPTION_MAP` translates each of litellm's exception classes to the toolkit's tree; the
test ``tests/models/test_errors.py`` enumerates ``litellm.exceptions`` and fails when a class is
missing here.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
import warnings
import weakref
from typing import Any

from openai import AsyncOpenAI  # litellm's own client for OpenAI-compatible endpoints

from ..errors import (
    ModelAuthError,
    ModelBadRequestError,
    ModelConfigError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
    ModelServerError,
    ModelTimeoutError,
)
from .answer import CertificateError, ResponseTooLarge
from .client import http_client
from .direct import certificate_message, too_large_message
from .endpoint import Network, check_headers
from .spec import DEFAULT_TIMEOUT
from .transport import ChatRequest, ChatResult, error_for_status, parse_retry_after

__all__ = [
    "EXCEPTION_MAP",
    "LitellmTransport",
    "aclose",
    "complete",
    "embed",
    "known_cost",
    "litellm",
    "map_exception",
    "rejects_required",
]

#: litellm exception class name → toolkit error class (checked complete by a test)
EXCEPTION_MAP: dict[str, type[ModelError]] = {
    "AuthenticationError": ModelAuthError,
    "CallerCredentialAuthenticationError": ModelAuthError,
    "PermissionDeniedError": ModelAuthError,
    "NotFoundError": ModelNotFoundError,
    "BadRequestError": ModelBadRequestError,
    "InvalidRequestError": ModelBadRequestError,
    "UnsupportedParamsError": ModelBadRequestError,
    "MalformedRequestFieldError": ModelBadRequestError,
    "EndpointNotSupportedByModelError": ModelBadRequestError,
    "UnsupportedEndpointError": ModelBadRequestError,
    "ContextWindowExceededError": ModelBadRequestError,
    "ContentPolicyViolationError": ModelBadRequestError,
    "ImageFetchError": ModelBadRequestError,
    "VectorStoreSearchError": ModelBadRequestError,
    "RejectedRequestError": ModelBadRequestError,
    "UnprocessableEntityError": ModelBadRequestError,
    "PaymentRequiredError": ModelBadRequestError,
    "BudgetExceededError": ModelBadRequestError,
    "GuardrailRaisedException": ModelBadRequestError,
    "BlockedPiiEntityError": ModelBadRequestError,
    "SensitiveDataRouteException": ModelBadRequestError,
    "ModifyResponseException": ModelResponseError,
    "LiteLLMUnknownProvider": ModelConfigError,
    "ModelNotMappedError": ModelConfigError,
    "RateLimitError": ModelRateLimitError,
    "CallerCredentialRateLimitError": ModelRateLimitError,
    "Timeout": ModelTimeoutError,
    "APITimeoutError": ModelTimeoutError,
    "APIConnectionError": ModelConnectionError,
    "InternalServerError": ModelServerError,
    "ServiceUnavailableError": ModelServerError,
    "BadGatewayError": ModelServerError,
    "MidStreamFallbackError": ModelServerError,
    "APIError": ModelServerError,
    "MockException": ModelServerError,
    "APIResponseValidationError": ModelResponseError,
    "JSONSchemaValidationError": ModelResponseError,
    "OpenAIError": ModelError,
    "APIStatusError": ModelServerError,
}

_LITELLM: Any = None


def litellm() -> Any:
    """The litellm module, imported once, offline and quiet."""
    global _LITELLM
    if _LITELLM is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        try:
            import litellm as module
        except ImportError as exc:  # pragma: no cover - a hard dependency
            raise ModelConfigError("litellm is not installed; run: pip install litellm") from exc
        module.suppress_debug_info = True
        module.telemetry = False
        module.turn_off_message_logging = True
        module.disable_streaming_logging = True
        module.drop_params = False
        _quiet_litellm_notices()
        _build_response_types(module)
        _LITELLM = module
    return _LITELLM


def _build_response_types(module: Any) -> None:
    """Build litellm's response models now, with pydantic's notice about their ``ReadOnly``
    TypedDict items silenced: built lazily later, under ``-W error`` (our tests, a strict user),
    that notice would break every completion as an ``APIConnectionError``."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_READONLY_NOTICE, category=UserWarning)
        try:
            types = sys.modules.get("litellm.types.utils") or module.types.utils
            for name in ("Message", "Delta", "ModelResponse"):
                model = getattr(types, name, None)
                if model is not None and hasattr(model, "model_rebuild"):
                    model.model_rebuild()
        except Exception:  # noqa: BLE001 - internals moved: litellm builds them itself
            pass


#: the RuntimeWarning of a provider coroutine litellm made for a call that was cancelled
_UNAWAITED_CALL = r"coroutine '[\w.]*\.a(sync_)?(completion|embedding)' was never awaited"
#: pydantic's notice about ``ReadOnly`` TypedDict items, which litellm's own types raise when
#: built (its response models, and provider modules it imports on a first call)
_READONLY_NOTICE = r".*`ReadOnly` qualifier"


def _quiet_litellm_notices() -> None:
    """Ignore two notices of litellm's that say nothing to our users, in front of the current
    filters (so also under ``-W error`` or a test runner's ``filterwarnings = error``, which is
    why this runs before every call: such a runner resets the filters per test):

    * pydantic's ``ReadOnly`` notice: a provider module imported on the first call would
      otherwise turn that call into ``ModelResponseError: UserWarning: Items 'device_code' ...``;
    * "coroutine '...acompletion' was never awaited": a call cancelled while litellm dispatches
      it in its executor thread leaves the provider's coroutine, made in that thread, unawaited
      (expected when a job fails at once or is cancelled, and harmless).

    Only those messages are ignored; a repeat replaces the entries, so the list does not grow.
    """
    warnings.filterwarnings("ignore", message=_READONLY_NOTICE, category=UserWarning)
    warnings.filterwarnings("ignore", message=_UNAWAITED_CALL, category=RuntimeWarning)


def _status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _retry_after_of(exc: BaseException) -> float | None:
    for source in (getattr(exc, "headers", None), getattr(exc, "litellm_response_headers", None)):
        value = parse_retry_after(source) if source else None
        if value is not None:
            return value
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return parse_retry_after(headers) if headers is not None else None


_CONNECTION_HINTS = (
    "connection error",
    "connecterror",
    "connection refused",
    "server disconnected",
    "remoteprotocolerror",
    "cannot connect to host",  # aiohttp's ClientConnectorError, as litellm's providers word it
)
#: a provider's SDK found no API key before sending (litellm reports it as a 500 or as a
#: connection error, depending on the provider): a configuration problem, not worth a retry
_NO_CREDENTIALS = re.compile(
    r"missing credentials|missing [\w ]{0,30}api[ _-]?key|no (api )?key is set", re.IGNORECASE
)
_RESPONSE_HINTS = (
    "expecting value",
    "jsondecodeerror",
    "invalid json",
    "returned 'choices'",
    "with no 'choices'",  # litellm 1.110: "provider returned a response with no 'choices'"
    "unterminated string",
    "extra data",
)


def _refine_server_error(message: str) -> type[ModelError] | None:
    low = message.lower()
    if any(h in low for h in _CONNECTION_HINTS):
        return ModelConnectionError
    if any(h in low for h in _RESPONSE_HINTS):
        return ModelResponseError
    return None


def map_exception(exc: BaseException, model: str = "") -> ModelError:
    """The toolkit error for a litellm (or openai / httpx) exception: class by the first class of
    the exception's MRO found in :data:`EXCEPTION_MAP`, refined by the HTTP status when the class
    alone is too coarse (``APIError`` with 429 is a rate limit)."""
    if isinstance(exc, ModelError):
        return exc
    target: type[ModelError] | None = None
    for klass in type(exc).__mro__:
        target = EXCEPTION_MAP.get(klass.__name__)
        if target is not None:
            break
    status = _status_of(exc)
    if target in (None, ModelServerError, ModelError) and status is not None:
        target = type(error_for_status(status, ""))
    if target is None:
        if isinstance(exc, TimeoutError):
            target = ModelTimeoutError
        elif isinstance(exc, (ConnectionError, OSError)):
            target = ModelConnectionError
        else:
            target = ModelResponseError
    message = str(exc).strip() or type(exc).__name__
    no_credentials = (
        target in (ModelServerError, ModelConnectionError, ModelResponseError)
        and _NO_CREDENTIALS.search(message) is not None
    )
    if no_credentials:
        target, status = ModelConfigError, None
    elif target is ModelServerError:  # litellm wraps client-side failures as a synthetic 500
        refined = _refine_server_error(message)
        if refined is not None:
            target, status = refined, None
    if no_credentials:
        message += (
            " (no API key for this provider: set the environment variable named above, "
            "or pass api_key in the model, e.g. {'model': ..., 'api_key': ...})"
        )
    elif target is ModelConfigError:
        message += " (check the model string: 'provider/model', e.g. 'openai/gpt-4o-mini')"
    elif target is ModelAuthError:
        message += " (check the api_key / the provider's API key environment variable)"
    error = target(
        f"{model}: {type(exc).__name__}: {message}" if model else message,
        status_code=status,
        retry_after=_retry_after_of(exc),
        model=model or None,
    )
    error.__cause__ = exc
    return error


_OPENAI_CLIENTS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Any]]
_OPENAI_CLIENTS = weakref.WeakKeyDictionary()


def _openai_client(model: str, api_base: str, api_key: str, network: Network) -> Any | None:
    """For an endpoint litellm reaches through the OpenAI SDK (``openai/...`` or an unprefixed
    model with ``api_base``): that SDK's client on our httpx2 client (:func:`.client.http_client`),
    so this path meets proxies, TLS settings and the size limit as the direct path does; None
    for other providers (litellm's own clients, given ``ssl_verify``)."""
    provider, sep, _ = model.partition("/")
    if sep and provider != "openai":
        return None
    httpx_client = http_client(network)
    loop = asyncio.get_running_loop()
    clients = _OPENAI_CLIENTS.get(loop)
    if clients is None:
        clients = _OPENAI_CLIENTS[loop] = {}
    key = (id(httpx_client), api_base, api_key)
    found = clients.get(key)
    if found is None or found[0] is not httpx_client:
        if len(clients) > 256:
            clients.clear()
        sdk = AsyncOpenAI(
            base_url=api_base, api_key=api_key, http_client=httpx_client, max_retries=0
        )
        found = clients[key] = (httpx_client, sdk)
    return found[1]


def _network_error(exc: BaseException, model: str, where: str) -> ModelError | None:
    """The error the direct path gives for the same failure, found in ``exc``'s causes: a
    certificate that cannot be verified, an answer over the size limit."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ResponseTooLarge):
            error = ModelResponseError(too_large_message(model, where, current))
            error.retryable = False
            return error
        if isinstance(current, CertificateError) or "CERTIFICATE_VERIFY_FAILED" in str(current):
            return ModelConfigError(certificate_message(model, where, current))
        current = current.__cause__ or current.__context__
    return None


def _dump(response: Any) -> dict[str, Any]:
    try:
        data = response.model_dump()
    except Exception:  # noqa: BLE001 - any object litellm returns
        data = dict(getattr(response, "__dict__", {}))
    return data if isinstance(data, dict) else {"response": data}


async def complete(request: ChatRequest) -> ChatResult:
    """One ``litellm.acompletion`` call; litellm exceptions are mapped to the error tree."""
    lib = litellm()
    kwargs: dict[str, Any] = dict(request.params)
    if request.tools:
        kwargs["tools"] = request.tools
        if request.tool_choice is not None:
            kwargs["tool_choice"] = request.tool_choice
    if request.api_base:
        kwargs["api_base"] = request.api_base
        if "/" not in request.model:
            kwargs.setdefault("custom_llm_provider", "openai")
    if request.api_key:
        kwargs["api_key"] = request.api_key
    elif request.api_base:
        kwargs["api_key"] = "sk-no-key-required"  # OpenAI-compatible local servers ignore it
    if kwargs.get("extra_headers"):  # refused as on the direct path, naming the header
        check_headers(
            {str(k): str(v) for k, v in kwargs["extra_headers"].items()}, model=request.model
        )
    if request.api_base:
        own = _openai_client(request.model, request.api_base, kwargs["api_key"], request.network)
        if own is not None:
            kwargs["client"] = own
        elif request.network.ssl_verify is not None:
            kwargs["ssl_verify"] = request.network.ssl_verify
    _quiet_litellm_notices()
    started = time.perf_counter()
    try:
        response = await lib.acompletion(
            model=request.model,
            messages=request.messages,
            timeout=request.timeout,
            num_retries=0,
            max_retries=0,
            **kwargs,
        )
    except Exception as exc:  # noqa: BLE001 - every provider error becomes a ModelError
        error = _network_error(exc, request.model, request.api_base or "the provider")
        raise (error or map_exception(exc, request.model)) from exc
    latency_ms = (time.perf_counter() - started) * 1000.0
    try:
        choice = response.choices[0]
        message = choice.message
        msg: dict[str, Any] = {"role": "assistant", "content": message.content}
        calls = getattr(message, "tool_calls", None)
        if calls:
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in calls
            ]
    except (AttributeError, IndexError, TypeError) as exc:
        raise ModelResponseError(
            f"{request.model} returned no choices[0].message", model=request.model
        ) from exc
    usage = getattr(response, "usage", None)
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    return ChatResult(
        message=msg,
        finish_reason=getattr(choice, "finish_reason", None),
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        cost=float(cost) if isinstance(cost, (int, float)) and cost else None,
        raw=_dump(response),
        latency_ms=latency_ms,
    )


class LitellmTransport:
    """Requests through ``litellm.acompletion`` (any provider litellm knows)."""

    async def open(self) -> None:
        return None

    async def send(self, request: ChatRequest) -> ChatResult:
        return await complete(request)

    def supports_required(self, model: str) -> bool:
        return not rejects_required(model)

    def __repr__(self) -> str:
        return "LitellmTransport()"


#: per-model facts from litellm's tables, looked up once per model (an unknown model makes
#: ``get_model_info`` raise and search again on every call: ~0.5 ms each)
_REJECTS_REQUIRED: dict[str, bool] = {}
_PRICES: dict[str, tuple[float, float] | None] = {}
_MAX_MODELS = 4096


def rejects_required(model: str) -> bool:
    """Whether litellm's capability table says ``model`` does not support ``tool_choice``.

    Only an explicit ``supports_tool_choice: false`` counts: unknown models (local servers) and
    entries without the flag are judged by the provider's answer instead. Cached per model.
    """
    known = _REJECTS_REQUIRED.get(model)
    if known is not None:
        return known
    lib = litellm()
    try:
        info = lib.get_model_info(model)
    except Exception:  # noqa: BLE001 - unknown to the table
        info = None
    known = isinstance(info, dict) and info.get("supports_tool_choice") is False
    if len(_REJECTS_REQUIRED) >= _MAX_MODELS:
        _REJECTS_REQUIRED.clear()
    _REJECTS_REQUIRED[model] = known
    return known


def _price(model: str) -> tuple[float, float] | None:
    """``(input, output)`` cost per token from litellm's table, once per model; None when
    litellm is not loaded (not remembered: it may be loaded later) or does not price the model."""
    if model in _PRICES:
        return _PRICES[model]
    lib = sys.modules.get("litellm") if _LITELLM is None else _LITELLM
    table = getattr(lib, "model_cost", None) if lib is not None else None
    if not table:
        return None
    entry = table.get(model) or table.get(model.partition("/")[2])
    price = None
    if isinstance(entry, dict):
        try:
            price = (
                float(entry.get("input_cost_per_token") or 0),
                float(entry.get("output_cost_per_token") or 0),
            )
        except (TypeError, ValueError):
            price = None
    if len(_PRICES) >= _MAX_MODELS:
        _PRICES.clear()
    _PRICES[model] = price
    return price


def known_cost(
    model: str, prompt_tokens: int | None, completion_tokens: int | None
) -> float | None:
    """The price of a call from litellm's table, only if litellm is already loaded (never imports
    it: the direct transport stays light) and knows the model."""
    if prompt_tokens is None:
        return None
    price = _price(model)
    if price is None:
        return None
    return (prompt_tokens * price[0] + (completion_tokens or 0) * price[1]) or None


async def embed(
    model: str,
    texts: list[str],
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    **params: Any,
) -> tuple[list[list[float]], dict[str, Any]]:
    """``litellm.aembedding``: one vector per text, plus the usage dict."""
    lib = litellm()
    kwargs: dict[str, Any] = dict(params)
    if api_base:
        kwargs["api_base"] = api_base
        kwargs["api_key"] = api_key or "sk-no-key-required"
    elif api_key:
        kwargs["api_key"] = api_key
    _quiet_litellm_notices()
    try:
        response = await lib.aembedding(
            model=model, input=texts, timeout=timeout, num_retries=0, max_retries=0, **kwargs
        )
    except Exception as exc:  # noqa: BLE001
        raise map_exception(exc, model) from exc
    try:
        rows = sorted(response.data, key=lambda d: d["index"] if isinstance(d, dict) else d.index)
        vectors = [list(d["embedding"] if isinstance(d, dict) else d.embedding) for d in rows]
    except (AttributeError, KeyError, TypeError) as exc:
        raise ModelResponseError(f"{model} returned no embeddings", model=model) from exc
    usage = getattr(response, "usage", None)
    return vectors, {"prompt_tokens": getattr(usage, "prompt_tokens", None)}


async def aclose() -> None:
    """Let litellm finish its queued logging on this loop and stop its worker (a no-op when
    litellm was never loaded). Called before a temporary event loop ends."""
    if _LITELLM is None:
        return
    try:
        from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER
    except ImportError:  # pragma: no cover - litellm internals moved
        return
    try:
        async with asyncio.timeout(2.0):
            await GLOBAL_LOGGING_WORKER.flush()
    except (TimeoutError, RuntimeError):
        pass
    await GLOBAL_LOGGING_WORKER.stop()
