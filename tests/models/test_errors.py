"""litellm's exceptions mapped to the toolkit's tree, none left out; HTTP statuses likewise.

The mapping is checked against litellm itself, not against a copy of the map: every litellm
exception class is built and must land where the HTTP status litellm gives it says, except a few
classes whose name says more than their status (listed with the reason, and checked to differ).
"""

from __future__ import annotations

import inspect

import httpx
import pytest

from tooleval_nb import errors
from tooleval_nb.models.litellm_transport import EXCEPTION_MAP, litellm, map_exception
from tooleval_nb.models.transport import error_for_status, parse_retry_after


def _litellm_exception_classes() -> list[type[BaseException]]:
    module = litellm().exceptions
    found = {
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, BaseException)
    }
    found.update(getattr(litellm(), "LITELLM_EXCEPTION_TYPES", []))
    return sorted(found, key=lambda c: c.__name__)


def test_every_litellm_exception_is_mapped():
    classes = _litellm_exception_classes()  # not at collection: litellm loads inside tests only
    assert len(classes) > 20  # the enumeration itself works
    missing = [f"{c.__module__}.{c.__name__}" for c in classes if c.__name__ not in EXCEPTION_MAP]
    assert not missing, f"add these litellm exceptions to EXCEPTION_MAP: {missing}"


def test_every_target_is_in_the_tree():
    assert all(issubclass(t, errors.ModelError) for t in EXCEPTION_MAP.values())


def _response(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(
        status,
        headers=headers or {},
        request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"),
    )


#: values for the required constructor arguments of litellm's exceptions, by argument name
_ARGS = {
    "message": "boom",
    "llm_provider": "openai",
    "custom_llm_provider": "openai",
    "model": "m",
    "current_cost": 2.0,
    "max_budget": 1.0,
    "raw_response": "{}",
    "schema": "{}",
    "request_data": {},
    "failures": [],
    "status_code": 503,
    "request": httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"),
}
#: the status of a required ``response``: the one the class is named after (OpenAI SDK names)
_NAMED_STATUS = {"PermissionDeniedError": 403, "UnprocessableEntityError": 422}


def _build(klass: type[BaseException]) -> BaseException:
    """An instance of a litellm exception class, its required arguments filled by name."""
    kwargs = {}
    for name, param in list(inspect.signature(klass.__init__).parameters.items())[1:]:
        if param.default is param.empty and param.kind not in (
            param.VAR_POSITIONAL,
            param.VAR_KEYWORD,
        ):
            kwargs[name] = _ARGS.get(name, "x")
    if "response" in kwargs:
        kwargs["response"] = _response(_NAMED_STATUS.get(klass.__name__, 400))
    return klass(**kwargs)


#: classes whose name says more than the status litellm gives them, with where they belong
DELIBERATE = {
    "APIConnectionError": errors.ModelConnectionError,  # litellm says 500; nothing answered
    "APIResponseValidationError": errors.ModelResponseError,  # 500: the answer is unusable
    "JSONSchemaValidationError": errors.ModelResponseError,  # 500: likewise
    "LiteLLMUnknownProvider": errors.ModelConfigError,  # 400: our model string is wrong
    # no status at all
    "ModelNotMappedError": errors.ModelConfigError,
    "ModifyResponseException": errors.ModelResponseError,
    "OpenAIError": errors.ModelError,
    "SensitiveDataRouteException": errors.ModelBadRequestError,
}


def _disagreement(klass: type[BaseException]) -> str | None:
    """Why ``klass`` is mapped against its litellm status (None when it is not)."""
    exc = _build(klass)
    error = map_exception(exc, "openai/m")
    assert "openai/m" in str(error) and error.__cause__ is exc
    status = getattr(exc, "status_code", None)
    by_status = error_for_status(status, "") if isinstance(status, int) else None
    name, got = klass.__name__, type(error).__name__
    if name in DELIBERATE:
        if got != DELIBERATE[name].__name__:
            return f"{name}: {got}, not {DELIBERATE[name].__name__}"
        if by_status is not None and type(by_status) is type(error):
            return f"{name}: now maps by its status {status}; drop it from DELIBERATE"
        return None
    if by_status is None:
        return f"{name}: no status; say where it belongs in DELIBERATE"
    if type(error) is not type(by_status) or error.retryable is not by_status.retryable:
        return (
            f"{name}: {got} (retryable={error.retryable}) but its status {status} is "
            f"{type(by_status).__name__} (retryable={by_status.retryable})"
        )
    return None


def test_each_litellm_exception_maps_by_its_own_status():
    classes = _litellm_exception_classes()
    wrong = [why for klass in classes if (why := _disagreement(klass))]
    assert not wrong, "\n".join(wrong)
    assert set(DELIBERATE) <= {c.__name__ for c in classes}  # no stale entries


def test_a_coarse_class_is_refined_by_its_status():
    exc = litellm().exceptions.APIError(429, "odd", "openai", "m")
    error = map_exception(exc, "openai/m")
    assert type(error) is errors.ModelRateLimitError and error.retryable


def _rate_limited() -> BaseException:
    return litellm().exceptions.RateLimitError(
        "slow down", "openai", "m", response=_response(429, {"retry-after": "7"})
    )


def test_retry_after_is_read_from_the_response():
    assert map_exception(_rate_limited()).retry_after == 7.0


@pytest.mark.parametrize(
    ("message", "target"),
    [
        ("OpenAIException - Connection error.", errors.ModelConnectionError),
        (
            "OpenAIException - Expecting value: line 1 column 39 (char 38)",
            errors.ModelResponseError,
        ),
        ("OpenAIException - Internal Server Error", errors.ModelServerError),
        (
            "GroqException - Cannot connect to host api.groq.com:443 ssl:<ssl.SSLContext> [Name "
            "or service not known]",
            errors.ModelConnectionError,
        ),
        (
            "OpenAIException - Missing credentials. Please pass an `api_key`, or set the "
            "`OPENAI_API_KEY` environment variable.",
            errors.ModelConfigError,
        ),
    ],
    ids=["connection", "bad-json", "real-500", "cannot-connect", "no-credentials"],
)
def test_litellm_synthetic_500s_are_refined(message, target):
    exc = litellm().exceptions.InternalServerError(message, "openai", "m", response=_response(500))
    assert type(map_exception(exc)) is target


def test_a_missing_api_key_is_a_configuration_error_naming_the_variable(monkeypatch):
    """Real litellm through our transport, offline: the OpenAI and Gemini SDKs refuse to send
    without a key (litellm reports one as a 500, the other as a connection error); neither is
    worth a retry, and the message says what to set."""
    import asyncio

    from tooleval_nb.models.litellm_transport import complete
    from tooleval_nb.models.transport import ChatRequest

    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for model, variable in (
        ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
        ("gemini/gemini-pro", "GEMINI_API_KEY"),
    ):
        request = ChatRequest(model=model, messages=[{"role": "user", "content": "hi"}], timeout=5)
        with pytest.raises(errors.ModelConfigError) as info:
            asyncio.run(complete(request))
        assert not info.value.retryable
        assert variable in str(info.value) and "pass api_key in the model" in str(info.value)


@pytest.mark.parametrize(
    ("status", "target"),
    [
        (400, errors.ModelBadRequestError),
        (401, errors.ModelAuthError),
        (403, errors.ModelAuthError),
        (404, errors.ModelNotFoundError),
        (408, errors.ModelTimeoutError),
        (422, errors.ModelBadRequestError),
        (429, errors.ModelRateLimitError),
        (500, errors.ModelServerError),
        (502, errors.ModelServerError),
        (503, errors.ModelServerError),
    ],
    ids=str,
)
def test_status_mapping(status, target):
    error = error_for_status(status, '{"error": {"message": "why"}}', model="m", where="http://h")
    assert type(error) is target and error.status_code == status
    assert "why" in str(error) and "http://h" in str(error)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),
        ({}, None),
    ],
    ids=["seconds", "ms", "http-date", "none"],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers) == expected
