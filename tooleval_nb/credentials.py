"""What a credential is: the one definition, and how to keep credentials out of what is written.

A run's settings and model entries can carry credentials in many places: ``api_key``, any
``*_key``, ``*token``, ``authorization``, ``*secret*``, ``password`` and the like, as a parameter
or as a header inside ``extra_headers`` / ``headers`` (``Authorization``, ``X-Api-Key``,
``api-key``). :func:`is_credential_key` says whether a key names one; every module that stores,
caches, exports, reports or emits a structure asks it, through :func:`redact`,
:func:`without_credentials`, :func:`credential_paths` and :func:`credential_values`.

Where a credential belongs (never written anywhere):

* a model entry given in Python: ``{"model": ..., "api_key": ...}`` (or a header in its
  ``extra_headers``); it reaches the provider call, and the stored model entry leaves it out;
* the provider's environment variable (litellm's convention: :func:`key_variable`, e.g.
  ``OPENAI_API_KEY``), or another variable named by ``api_key_env`` / ``--api-key-env NAME``,
  read at call time; only the variable's *name* is stored.

Where it does not belong, it is refused (:func:`refusal` words the message): run settings'
``params`` (``--param api_key=...``), report parameters, experiment configs. Those are stored
with the run, put into the report notebook, and shown in tables.

Pure: no I/O, no imports of ours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = [
    "REDACTED",
    "KEY_VARIABLES",
    "credential_paths",
    "credential_values",
    "is_credential_key",
    "key_variable",
    "mask",
    "redact",
    "redact_command",
    "refusal",
    "url_credentials",
    "url_refusal",
    "without_credentials",
]

#: what a credential's value becomes where a structure is shown or stored with its keys
REDACTED = "***"

#: words that make a key a credential wherever they stand in it (``client_secret``,
#: ``Proxy-Authorization``, ``db_password``)
_WORDS = frozenset(
    {
        "secret",
        "secrets",
        "password",
        "passwd",
        "passphrase",
        "authorization",
        "auth",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "apikey",
    }
)
#: words before ``token`` that make it a piece of text, not a credential (``eos_token``)
_TEXT_TOKENS = frozenset(
    {
        "bos",
        "eos",
        "pad",
        "unk",
        "sep",
        "cls",
        "mask",
        "stop",
        "start",
        "end",
        "special",
        "first",
        "last",
        "next",
        "max",
        "min",
    }
)
#: keys that end in ``_key`` or hold ``token`` but name no secret (provider parameters)
_NOT_CREDENTIALS = frozenset(
    {"prompt_cache_key", "cache_key", "idempotency_key", "sort_key", "token_budget"}
)
#: last words of a key that names where a credential is, not the credential (``api_key_env``)
_WHERE = frozenset({"env", "var", "variable", "name", "file", "path"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[^a-z0-9]+")

_VERDICTS: dict[str, bool] = {}


def is_credential_key(key: object) -> bool:
    """Whether a mapping key names a credential.

    Words are split at ``_``, ``-``, spaces and camelCase (``apiKey``, ``X-Api-Key``). A key is
    a credential when a word is ``key`` with another word before it (``api_key``, ``x-api-key``,
    ``openai_key``, ``aws_access_key_id``), ends in ``token`` with another word beside it
    (``access_token``, ``hf_token``, ``X-Auth-Token``), or is one of ``secret``, ``password``,
    ``authorization``, ``auth``, ``bearer``, ``cookie``, ``credential(s)``, ``apikey``.
    A bare ``key`` or ``token`` is not (a tool's argument, a logprob entry's token), nor are
    counts (``max_tokens``), text tokens (``eos_token``), where a key is (``api_key_env``,
    ``key_file``) and the few provider parameters in :data:`_NOT_CREDENTIALS`.
    """
    if not isinstance(key, str):
        return False
    verdict = _VERDICTS.get(key)
    if verdict is None:
        verdict = _judge(key)
        if len(_VERDICTS) < 10_000:
            _VERDICTS[key] = verdict
    return verdict


def _judge(key: str) -> bool:
    words = [w for w in _SPLIT.split(_CAMEL.sub("_", key).lower()) if w]
    if "_".join(words) in _NOT_CREDENTIALS or (len(words) > 1 and words[-1] in _WHERE):
        return False
    if any(w in _WORDS for w in words):
        return True
    if len(words) < 2:
        return False
    if any(w == "key" for w in words[1:]):
        return True
    return any(
        w.endswith("token") and not (i and words[i - 1] in _TEXT_TOKENS)
        for i, w in enumerate(words)
    )


def _secret(key: object, value: Any) -> bool:
    """Whether the entry ``key: value`` is a credential: a credential's key, and text in its
    value (a flag such as ``has_api_key: true`` or an empty value is none)."""
    return is_credential_key(key) and next(iter(_strings(value)), None) is not None


def _walk(value: Any, path: str) -> Iterable[tuple[str, Any]]:
    """``(path, value)`` of every credential entry in nested mappings and lists."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            here = f"{path}[{k!r}]"
            if _secret(k, v):
                yield here, v
            else:
                yield from _walk(v, here)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]")


def credential_paths(value: Any, name: str = "") -> list[str]:
    """Where ``value`` holds credentials, as ``name['extra_headers']['Authorization']``."""
    return [path for path, _ in _walk(value, name)]


def credential_values(value: Any) -> tuple[str, ...]:
    """Every credential string in ``value`` (a ``Bearer``/``Basic`` header gives its token
    too), for masking them in text: see :func:`mask`."""
    out: list[str] = []
    for _, found in _walk(value, ""):
        for text in _strings(found):
            out.append(text)
            scheme, _, rest = text.partition(" ")
            if rest.strip() and scheme.lower() in ("bearer", "basic", "token"):
                out.append(rest.strip())
    return tuple(dict.fromkeys(out))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        if value:
            yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def redact(value: Any) -> Any:
    """A copy of ``value`` with every credential's value replaced by :data:`REDACTED` (for what
    is shown or stored to be read: a credential was given, not which)."""
    if isinstance(value, Mapping):
        return {k: (REDACTED if _secret(k, v) else redact(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    return value


def without_credentials(value: Any) -> Any:
    """A copy of ``value`` with every credential entry left out (for what is stored to be used
    again, such as a model entry: a resumed run reads the key from where it came, never a
    placeholder); a mapping emptied by it (``extra_headers``) is left out too."""
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if _secret(k, v):
                continue
            kept = without_credentials(v)
            if isinstance(v, Mapping) and v and not kept:
                continue
            out[k] = kept
        return out
    if isinstance(value, (list, tuple)):
        return [without_credentials(v) for v in value]
    return value


def url_credentials(url: str) -> list[str]:
    """What credentials a URL holds: ``a password`` (with or without a user name) or ``a user
    name`` alone in its user part (``https://TOKEN@host/v1``, as some gateways take a key), ``query parameter
    'token'`` for each credential in its query (empty for text that is not a URL)."""
    text = url.strip()
    if "://" not in text and not text.startswith("//"):
        return []
    try:
        parts = urlsplit(text)
        user, password = parts.username, parts.password
    except ValueError:
        return []
    found = ["a password"] if password else ["a user name"] if user else []
    found += [
        f"query parameter {k!r}" for k, v in parse_qsl(parts.query) if v and _named_credential(k)
    ]
    return found


def url_refusal(url: str | None, where: str) -> str | None:
    """Why the URL ``url`` given as ``where`` (``api_base``, ``endpoints['m']``) is refused, or
    None when it holds no credential: the one check every door that takes an endpoint runs
    (the message never echoes the URL)."""
    found = url_credentials(url) if url else []
    if not found:
        return None
    return (
        f"{where} holds {' and '.join(found)} (a credential), and an endpoint is stored with "
        "the run and shown in reprs and reports: refused, nothing was sent. Give the URL "
        "without it, and the key as the model entry's api_key (never written) or api_key_env "
        "(the NAME of a variable holding it; --api-key-env on the command line)"
    )


def _named_credential(name: str) -> bool:
    """A credential's name in a URL's query or a command's flags, where a bare ``token`` or
    ``key`` (``?token=...``, ``--key ...``) names one too."""
    return is_credential_key(name) or name.lower() in ("token", "key")


def _flag_name(arg: str) -> str | None:
    """``api-key`` of ``--api-key`` / ``--api-key=...`` / ``-token``; None for a non-flag."""
    if not arg.startswith("-") or arg in ("-", "--"):
        return None
    return arg.lstrip("-").partition("=")[0]


def redact_command(argv: Iterable[str]) -> list[str]:
    """A command line with the value of each credential flag (``--api-key KEY``,
    ``--token=KEY``) and each ``NAME=VALUE`` credential assignment replaced by
    :data:`REDACTED`."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next and not arg.startswith("-"):
            out.append(REDACTED)
            hide_next = False
            continue
        hide_next = False
        name = _flag_name(arg)
        if name is not None and _named_credential(name):
            if "=" in arg:
                out.append(arg.partition("=")[0] + "=" + REDACTED)
            else:
                out.append(arg)
                hide_next = True
        elif name is None and "=" in arg and _named_credential(arg.partition("=")[0]):
            out.append(arg.partition("=")[0] + "=" + REDACTED)
        else:
            out.append(arg)
    return out


def mask(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` (6 characters or more) replaced by :data:`REDACTED`."""
    for secret in secrets:
        if secret and len(secret) >= 6 and secret in text:
            text = text.replace(secret, REDACTED)
    return text


#: litellm's API key variable of each provider prefix (``openai/...`` reads ``OPENAI_API_KEY``);
#: a test checks each against ``litellm.validate_environment``
KEY_VARIABLES: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "codestral": "CODESTRAL_API_KEY",
    "cohere": "COHERE_API_KEY",
    "groq": "GROQ_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
    "azure": "AZURE_API_KEY",
    "huggingface": "HUGGINGFACE_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "deepinfra": "DEEPINFRA_API_KEY",
    "nvidia_nim": "NVIDIA_NIM_API_KEY",
    "ai21": "AI21_API_KEY",
    "replicate": "REPLICATE_API_KEY",
    "voyage": "VOYAGE_API_KEY",
}
#: unprefixed model names litellm routes to a provider by their start
_NAME_PREFIXES = (
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude", "anthropic"),
    ("gemini", "gemini"),
    ("command", "cohere"),
    ("mistral", "mistral"),
)


def key_variable(model: str) -> str | None:
    """The environment variable litellm reads the API key of ``model`` from (None: unknown,
    or a local model that needs none)."""
    provider, sep, name = model.partition("/")
    if sep:
        return KEY_VARIABLES.get(provider.lower())
    lowered = model.lower()
    for prefix, provider in _NAME_PREFIXES:
        if lowered.startswith(prefix):
            return KEY_VARIABLES[provider]
    return None


def refusal(paths: list[str], where: str, models: Iterable[str] = (), *, cli: bool = False) -> str:
    """Why the credentials at ``paths`` are refused (``where`` are stored with the run: "run
    settings", "--param values"), and the safe ways to pass a key: the variable of each of
    ``models``' providers, another variable named by ``api_key_env`` (``--api-key-env`` on the
    command line), or, in Python, the model entry."""
    variables = list(dict.fromkeys(v for v in map(key_variable, models) if v))
    env = (
        " or ".join(variables)
        if variables
        else "the provider's API key variable (litellm's names: OPENAI_API_KEY, "
        "ANTHROPIC_API_KEY, ...)"
    )
    if cli:
        other = (
            "or name another variable holding it with --api-key-env NAME (read when the "
            "models are called; only its name is stored)"
        )
    else:
        other = (
            "or name another variable holding it in the model entry, {'model': ..., "
            "'api_key_env': 'NAME'}, or give the key in the model entry itself, "
            "{'model': ..., 'api_key': ...} (it reaches the provider and is never written)"
        )
    verb = "is a credential" if len(paths) == 1 else "are credentials"
    return (
        f"{', '.join(paths)} {verb}, and {where} are stored with the run, put into reports "
        f"and shown in tables: refused, nothing was written. Set the key in the environment "
        f"as {env}, {other}"
    )
