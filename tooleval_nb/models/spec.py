"""Which model to call and how: :class:`ModelSpec`, the call modes, and the embedded default.

A model is any litellm model string (``"openai/gpt-4o-mini"``, ``"anthropic/claude-..."``,
``"ollama_chat/qwen2.5"``), optionally with an ``api_base`` / ``api_key`` for a local
OpenAI-compatible server (vLLM, Ollama, LM Studio, llama.cpp), a ``mode`` and default sampling
``params``. :data:`DEFAULT_MODEL` names the embedded offline model.

Modes (recorded with every result, so one suite can be compared native vs prompted):

* ``native``: tools sent in the request's ``tools`` field, calls read from the reply's
  ``tool_calls``;
* ``hermes`` / ``pythonic``: raw-text mode — no tools field; the tools are described in the system
  prompt in that format and the calls are parsed from the reply text.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_serializer,
    field_validator,
    model_serializer,
)

from ..credentials import (
    credential_values,
    key_variable,
    redact,
    url_credentials,
    url_refusal,
    without_credentials,
)
from ..errors import ModelConfigError
from ..parsers.protocol import Compat
from ..parsers.registry import PARSER_FORMATS, ParserFormat
from .endpoint import DEFAULT_MAX_RESPONSE_BYTES, Network, check_api_base

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_TIMEOUT",
    "EMBEDDED_MODELS",
    "Mode",
    "MODES",
    "ModelSpec",
    "TransportName",
    "TRANSPORTS",
    "provider_of",
    "system_prompt_for",
]

#: The embedded offline model: SmolLM2-135M-Instruct run by llama.cpp on the CPU.
DEFAULT_MODEL = "local/smollm2-135m"
#: The per-request timeout for providers, seconds: the one definition (a transport's request, an
#: embedding, a grader, a judge or a draft call that sets none; the embedded model has its own,
#: ``models.call.EMBEDDED_TIMEOUT``).
DEFAULT_TIMEOUT = 60.0
#: Model strings served by the embedded llama.cpp server.
EMBEDDED_MODELS = frozenset({DEFAULT_MODEL})

#: How a model is offered tools: ``native`` tool calls, or raw text in one of the parsers'
#: formats (vLLM's ``--tool-call-parser`` names: the prompt describes the tools in that format and
#: the reply is parsed by it). The one definition; everything else imports it.
Mode = Literal["native"] | ParserFormat
MODES: tuple[str, ...] = ("native", *PARSER_FORMATS)

#: How requests travel: ``direct`` = our own HTTP client for OpenAI-compatible ``api_base``
#: endpoints (much less CPU per call); ``litellm`` = ``litellm.acompletion``; ``auto`` = direct when
#: the endpoint is OpenAI-compatible (an ``api_base`` with an ``openai/``-style prefix, or the
#: embedded model), litellm otherwise.
TransportName = Literal["auto", "litellm", "direct"]
TRANSPORTS: tuple[str, ...] = get_args(TransportName)

#: litellm provider prefixes whose ``api_base`` speaks the OpenAI chat-completions protocol
OPENAI_COMPATIBLE = frozenset(
    {
        "openai",
        "hosted_vllm",
        "lm_studio",
        "llamafile",
        "local",
        "openai_like",
        "custom_openai",
        "vllm_openai",
        "",
    }
)


#: an environment variable's name
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def provider_of(model: str) -> tuple[str, str]:
    """``("provider", "model_id")`` from a litellm model string (``""`` when there is no prefix)."""
    provider, sep, model_id = model.partition("/")
    return (provider, model_id) if sep else ("", model)


class ModelSpec(BaseModel):
    """A model to call: litellm model string, optional endpoint and key, mode, default params.

    ``api_key`` is never shown in reprs nor written by ``model_dump``, and neither are the
    credentials in ``params`` (an ``extra_headers`` ``Authorization``, see
    :mod:`tooleval_nb.credentials`): they reach the provider call, and stored runs hold none.
    ``api_key_env`` names an environment variable holding the key instead: it is read at each
    call (:meth:`call_key`), and only its name is stored.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    model: str = Field(min_length=1)
    api_base: str | None = None
    api_key: str | None = Field(default=None, repr=False, exclude=True)
    #: the name of an environment variable holding the API key (read at call time; stored)
    api_key_env: str | None = None
    mode: Mode = "native"
    #: how a raw-text mode reads the reply's text: our parser (``"default"``) or exactly as
    #: vLLM's ``--tool-call-parser`` of the same name serves it (``"vllm"``, docs/parsers.md)
    parser_compat: Compat = "default"
    params: dict[str, Any] = Field(default_factory=dict)
    #: ``"auto"``, ``"litellm"``, ``"direct"``, or an object implementing
    #: :class:`~.transport.Transport` (such as :class:`tooleval_nb.testing.MockTransport`): it
    #: sends this spec's requests itself, and is stored as ``"custom:<its class>"``
    transport: TransportName | Any = "auto"
    #: a display name; default ``model`` (plus ``[mode]`` when not native)
    label: str | None = None
    #: how many requests the model's server answers at once, when it is fewer than a run's
    #: ``max_concurrency`` (a local llama.cpp server: 1); see :attr:`request_slots`
    parallel_requests: int | None = Field(default=None, ge=1)
    #: TLS verification: True, False (stored with the run), or a CA bundle file or folder;
    #: None (default) follows ``SSL_VERIFY`` / ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` as litellm
    #: does (see docs/endpoints.md)
    ssl_verify: bool | str | None = None
    #: a client certificate: one PEM file with the certificate and its key, or the pair of
    #: paths ``(certificate, key)``
    ssl_cert: str | tuple[str, str] | None = None
    #: the largest answer read, bytes (default 64 MiB); a larger one is a clear error
    max_response_bytes: int | None = Field(default=None, ge=1024)

    @field_validator("api_base")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        found = url_credentials(value) if value else []
        if found:
            raise ValueError(
                f"api_base holds {' and '.join(found)}, and the endpoint is stored "
                "with the run; give the URL without it and the key as api_key (or "
                "api_key_env: the name of a variable holding it)"
            )
        if value:  # a ModelConfigError, not a ValueError: raised as it is, before any request
            check_api_base(value)
        return value.rstrip("/") if value else value

    @field_validator("ssl_verify", mode="before")
    @classmethod
    def _verify_value(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = value.strip().lower()
            if word in ("true", "false"):  # from a CLI or a YAML file given as text
                return word == "true"
            if not value.strip():
                raise ValueError("ssl_verify takes True, False or the path of a CA bundle")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _variable_name(cls, value: str | None) -> str | None:
        if value is not None and not _VARIABLE.fullmatch(value):
            # never echo the value: it may be the key itself, given in the wrong place
            raise ValueError(
                "api_key_env takes the NAME of an environment variable holding the "
                "key (letters, digits and _, e.g. 'MY_GATEWAY_KEY'), not the key; "
                "set the variable and give its name"
            )
        return value

    @field_validator("transport")
    @classmethod
    def _transport_known(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value not in TRANSPORTS:
                raise ValueError(
                    f"unknown transport {value!r}; use one of {TRANSPORTS}, or an "
                    "object with open, send and supports_required (a Transport)"
                )
            return value
        missing = [
            m
            for m in ("open", "send", "supports_required")
            if not callable(getattr(value, m, None))
        ]
        if missing:
            raise ValueError(
                f"transport {type(value).__name__} lacks {', '.join(missing)}: give "
                f"one of {TRANSPORTS} or a Transport (tooleval_nb.models.transport)"
            )
        return value

    @field_serializer("transport")
    def _transport_name(self, value: Any) -> str:
        return value if isinstance(value, str) else f"custom:{type(value).__qualname__}"

    @field_serializer("params")
    def _params_without_credentials(self, params: dict[str, Any]) -> dict[str, Any]:
        return without_credentials(params)  # type: ignore[no-any-return]

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        # as stored before they existed: the same config key for a model that sets none
        for name in ("api_key_env", "ssl_verify", "ssl_cert", "max_response_bytes"):
            if data.get(name, "") is None:
                del data[name]
        if data.get("parser_compat") == "default":  # likewise
            del data["parser_compat"]
        return data

    @property
    def network(self) -> Network:
        """How this model's endpoint is reached: its TLS settings and the answers' size limit."""
        return Network(
            self.ssl_verify,
            tuple(self.ssl_cert) if isinstance(self.ssl_cert, list) else self.ssl_cert,
            self.max_response_bytes or DEFAULT_MAX_RESPONSE_BYTES,
        )

    @classmethod
    def of(
        cls,
        obj: str | dict[str, Any] | ModelSpec,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        mode: str | None = None,
        transport: Any = None,
    ) -> ModelSpec:
        """Build a spec from a model string, a dict of fields, or a spec, with the given fields
        overriding (an empty ``api_base`` / ``api_key`` or a None keeps the spec's).

        Raises:
            ModelConfigError: a value that is not a model, an unknown mode or transport.
        """
        if isinstance(obj, ModelSpec):
            spec = obj
        elif isinstance(obj, str):
            spec = cls(model=obj)
        elif isinstance(obj, dict):
            try:
                spec = cls.model_validate(obj)
            except ValidationError as exc:
                # the problems without the values given: a key in the dict is never echoed
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'model'}: {e['msg']}" for e in exc.errors()
                )
                raise ModelConfigError(
                    f"invalid model specification {redact(obj)!r:.200}: {problems}; give at "
                    "least {'model': '<litellm model string>'}"
                ) from None
        else:
            raise ModelConfigError(
                f"a model must be a string, a dict or a ModelSpec, not {obj!r:.100}"
            )
        update: dict[str, Any] = {}
        if api_base:
            refused = url_refusal(api_base, "api_base")
            if refused:
                raise ModelConfigError(f"model {spec.model!r}: {refused}")
            update["api_base"] = check_api_base(api_base).rstrip("/")
        if api_key:
            update["api_key"] = api_key
        if mode is not None:
            if mode not in MODES:
                raise ModelConfigError(
                    f"unknown mode {mode!r} for {spec.model}; use one of {MODES}"
                )
            update["mode"] = mode
        if transport is not None:
            if isinstance(transport, str) and transport not in TRANSPORTS:
                raise ModelConfigError(
                    f"unknown transport {transport!r} for {spec.model}; use one of {TRANSPORTS}"
                )
            update["transport"] = transport
        return spec.model_copy(update=update) if update else spec

    def __repr_args__(self) -> Any:
        """The fields ``repr`` and ``str`` show: the credentials in ``params`` (an
        ``Authorization`` header) as ``***``, so that a displayed spec writes none into a
        notebook (``api_key`` is never shown)."""
        for name, value in super().__repr_args__():
            yield name, (redact(value) if name == "params" else value)

    def call_key(self) -> str | None:
        """The API key to send now: ``api_key``, else the value of ``api_key_env`` (read from
        the environment at each call), else None (the provider's own variable applies).

        Raises:
            ModelConfigError: ``api_key_env`` names a variable that is not set.
        """
        if self.api_key:
            return self.api_key
        if self.api_key_env is None:
            return None
        value = os.environ.get(self.api_key_env)
        if not value:
            raise ModelConfigError(
                f"model {self.model!r}: api_key_env names the environment variable "
                f"{self.api_key_env}, which is not set; set it to the API key (export "
                f"{self.api_key_env}=...) or give another variable's name"
            )
        return value

    def secrets(self) -> tuple[str, ...]:
        """The credential strings this spec sends (its key, the credentials in ``params``),
        to mask wherever text from the call is kept."""
        found = list(credential_values(self.params))
        key = self.api_key or (os.environ.get(self.api_key_env) if self.api_key_env else None)
        if key:
            found.insert(0, key)
        return tuple(found)

    @property
    def key_variable(self) -> str | None:
        """The variable holding this model's key: ``api_key_env``, else litellm's variable of
        its provider (``OPENAI_API_KEY`` for ``openai/...``), else None."""
        return self.api_key_env or key_variable(self.model)

    @property
    def embedded(self) -> bool:
        """Whether the embedded llama.cpp server serves this model."""
        return self.model in EMBEDDED_MODELS and self.api_base is None

    @property
    def request_slots(self) -> int | None:
        """How many requests the runner sends this model at once, at most: ``parallel_requests``
        when given, else 1 for the embedded llama.cpp server (it decodes one request at a
        time: more would only queue, with each case's timeout running, and interleaved prompts
        would spoil llama.cpp's reuse of a suite's shared prefix from its KV cache), else None
        (the run's ``max_concurrency`` rules)."""
        if self.parallel_requests is not None:
            return self.parallel_requests
        return 1 if self.embedded else None

    @property
    def provider(self) -> str:
        return provider_of(self.model)[0]

    @property
    def key(self) -> str:
        """``provider::model_id`` (seed 001's key for per-model system prompts)."""
        provider, model_id = provider_of(self.model)
        return f"{provider}::{model_id}"

    @property
    def name(self) -> str:
        """The label: ``label``, else the model string plus ``[mode]`` when not native. A run
        lists the spec under it, and the results' ``model`` column holds it (not the model
        string; see docs/models-and-labels.md)."""
        if self.label:
            return self.label
        return self.model if self.mode == "native" else f"{self.model} [{self.mode}]"

    def uses_direct(self) -> bool:
        """Whether calls go through the direct OpenAI-compatible client rather than litellm."""
        if self.transport == "direct":
            if not (self.api_base or self.embedded):
                raise ModelConfigError(
                    f"model {self.model!r}: transport='direct' needs an api_base "
                    "(an OpenAI-compatible endpoint); give api_base or use transport='auto'"
                )
            return True
        if not isinstance(self.transport, str) or self.transport == "litellm":
            return False  # a transport object sends the requests itself
        return self.embedded or (self.api_base is not None and self.provider in OPENAI_COMPATIBLE)

    def with_mode(self, mode: Mode) -> ModelSpec:
        return self if mode == self.mode else self.model_copy(update={"mode": mode})


def system_prompt_for(
    system_prompt: str | dict[str, str] | None, model: str | ModelSpec
) -> str | None:
    """The per-run system prompt for ``model``.

    ``system_prompt`` is one string for every model, or a dict keyed ``provider::model_id``
    (seed 001). A key matches a model string ``provider/model_id``, and also an unprefixed model
    string equal to ``model_id``; the model string itself, the spec's label and ``"*"`` (default)
    are accepted as keys too.
    """
    if system_prompt is None or isinstance(system_prompt, str):
        return system_prompt
    spec = ModelSpec.of(model)
    provider, model_id = provider_of(spec.model)
    for key in (spec.key, spec.model, spec.label):
        if key and key in system_prompt:
            return system_prompt[key]
    for key, text in system_prompt.items():
        if "::" not in key:
            continue
        k_provider, _, k_model = key.partition("::")
        if k_model == model_id and (not provider or k_provider == provider):
            return text
        if not provider and k_model == spec.model:
            return text
    return system_prompt.get("*")
