"""``Config``: one immutable, composable description of how a model is asked.

A config names the model and everything that changes its answers: sampling parameters, the tool
choice, the system prompt and few-shot examples. Sweeps change some keys of a config, prompt tunes
change the prompt, promotions merge: ``best.merge(**winner.diff(base_new))`` keeps what each tuner
found (P4 of the design).

Keys are *flat*: the fields below plus any provider parameter (``top_p``, ``top_k``, ``min_p``,
``repeat_penalty``, ``seed`` ...) which live in :attr:`Config.params`. ``cfg.merge(top_p=0.9)``
and ``cfg.merge(params={"top_p": 0.9})`` are the same thing; a ``None`` value removes a parameter.

:meth:`Config.canonical` collapses configs that must behave the same: at ``temperature == 0`` the
sampling-only keys (:data:`SAMPLING_KEYS`) change nothing, so they are dropped; numbers are
normalised (floats rounded to 6 digits, a whole-number float written as an int, so ``top_p=1`` and
``top_p=1.0`` are one value; bools stay bools). :attr:`Config.key` hashes the canonical form, so two
configs with the same key are the same trial, the same cache entry and the same row in every table.

A config is immutable all the way down: :attr:`Config.params` and the calls of its few-shot
examples are read-only mappings (:class:`FrozenMap`) and tuples, so nothing can change a config's
key after it was built; change a config with :meth:`Config.merge`.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from typing import Any, NoReturn

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ..credentials import credential_paths, refusal, url_refusal
from ..models.spec import DEFAULT_MODEL, Mode
from ..runner.settings import ToolChoiceName

__all__ = ["SAMPLING_KEYS", "Config", "FewShot", "FrozenMap", "FIELD_KEYS", "freeze", "thaw"]

#: keys that matter only when sampling (temperature > 0)
SAMPLING_KEYS: frozenset[str] = frozenset({"top_p", "top_k", "min_p", "typical_p", "seed"})


class FrozenMap(dict):  # type: ignore[type-arg]
    """A read-only dict: every mutating method raises ``TypeError``.

    It stays a ``dict`` (JSON, pydantic dumps, ``dict(m)`` and ``**m`` work as usual); copies
    are frozen too. Build changed configs with :meth:`Config.merge` instead.
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(
            "a Config is immutable: its params and few-shot calls are read-only; "
            "use cfg.merge(key=value) for a changed copy"
        )

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMap, (dict(self),))

    def __copy__(self) -> FrozenMap:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenMap:
        return FrozenMap({k: copy.deepcopy(v, memo) for k, v in self.items()})

    def __repr__(self) -> str:
        return dict.__repr__(self)


def freeze(value: Any) -> Any:
    """``value`` with every dict made a :class:`FrozenMap` and every list a tuple (deeply)."""
    if isinstance(value, Mapping):
        return FrozenMap({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The plain (mutable) copy of a frozen value: dicts and lists again, for request bodies."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


class FewShot(BaseModel):
    """One few-shot exchange: a user message and the tool calls that answer it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user: str
    #: ``[{"name": ..., "arguments": {...}}]``; empty for a plain-text answer
    calls: tuple[dict[str, Any], ...] = ()
    #: the plain-text answer when no call is made
    content: str | None = None
    #: the dev case the example was built from (never a holdout case)
    case_id: str | None = None

    @field_validator("calls")
    @classmethod
    def _freeze_calls(cls, value: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
        return tuple(freeze(call) for call in value)


#: a Config's default tool choice (see :attr:`Config.tool_choice` for why it is not the runner's)
PRODUCTION_TOOL_CHOICE: ToolChoiceName = "auto"


class Config(BaseModel):
    """How a model is asked: immutable; compose with :meth:`merge`, compare with :meth:`diff`.

    Example:
        >>> cfg = Config(temperature=0.0)
        >>> cfg.merge(temperature=0.3, top_p=0.9).diff(cfg)
        {'temperature': (0.3, 0.0), 'top_p': (0.9, None)}
    """

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    model: str = DEFAULT_MODEL
    #: an OpenAI-compatible endpoint (local servers); part of the identity
    api_base: str | None = None
    #: how tools reach the model: native tool calling, or raw text in a named format
    mode: Mode = "native"
    temperature: float = Field(default=0.0, ge=0.0)
    #: ``auto`` (default), ``required``, ``none`` or the name of one function. This default
    #: differs on purpose from the runner's (``runner.settings.DEFAULT_TOOL_CHOICE``,
    #: ``required``, for testing tool calling): a Config describes how an agent asks its model
    #: in production, where the model decides whether to call; a sweep's default space tries
    #: ``required`` against it (``DEFAULT_SPACE``).
    tool_choice: str = PRODUCTION_TOOL_CHOICE
    max_tokens: int | None = Field(default=256, ge=1)
    system_prompt: str | None = None
    few_shot: tuple[FewShot, ...] = ()
    #: provider parameters (top_p, top_k, min_p, repeat_penalty, seed, ...); read-only
    params: dict[str, Any] = Field(default_factory=FrozenMap)

    @field_validator("api_base")
    @classmethod
    def _no_url_credentials(cls, value: str | None) -> str | None:
        refused = url_refusal(value, "api_base")
        if refused:  # a config is stored, hashed and shown
            raise ValueError(refused)
        return value

    @field_validator("params")
    @classmethod
    def _no_field_keys(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        clash = sorted(set(value) & FIELD_KEYS)
        if clash:
            raise ValueError(f"params may not hold config fields {clash}; set them directly")
        secret = credential_paths(value, "params")
        if secret:  # a config is stored, hashed and shown: a key never is
            raise ValueError(
                refusal(secret, "experiment configs", [str(info.data.get("model") or "")])
            )
        return FrozenMap({k: freeze(v) for k, v in value.items() if v is not None})

    # -- composition -------------------------------------------------------------------------
    def merge(self, **changes: Any) -> Config:
        """A new config with ``changes`` applied (flat keys; unknown keys go to ``params``)."""
        data = self.model_dump()
        params = dict(data.pop("params"))
        extra = changes.pop("params", None) or {}
        for key, value in {**extra, **changes}.items():
            if key in FIELD_KEYS:
                data[key] = value
            elif value is None:
                params.pop(key, None)
            else:
                params[key] = value
        return Config(**data, params=params)

    def get(self, key: str, default: Any = None) -> Any:
        """The value of a flat key (a field or a parameter)."""
        if key in FIELD_KEYS:
            return getattr(self, key)
        return self.params.get(key, default)

    def flat(self) -> dict[str, Any]:
        """Fields and parameters in one mapping (JSON-ready values)."""
        data = self.model_dump(mode="json")
        params = data.pop("params")
        return {**data, **params}

    def diff(self, other: Config) -> dict[str, tuple[Any, Any]]:
        """``{key: (value here, value in other)}`` for every flat key that differs."""
        mine, theirs = self.flat(), other.flat()
        out: dict[str, tuple[Any, Any]] = {}
        for key in [*mine, *[k for k in theirs if k not in mine]]:
            a, b = mine.get(key), theirs.get(key)
            if a != b:
                out[key] = (a, b)
        return out

    def describe_diff(self, base: Config) -> str:
        """A short human line, e.g. ``"temperature 0→0.3; system_prompt +2 lines"``."""
        parts = []
        for key, (new, old) in self.diff(base).items():
            if key == "system_prompt":
                parts.append(_describe_prompt(old, new))
            elif key == "few_shot":
                parts.append(f"few_shot {len(old or [])}→{len(new or [])} examples")
            else:
                parts.append(f"{key} {_short(old)}→{_short(new)}")
        return "; ".join(parts) if parts else "(same as baseline)"

    # -- identity ----------------------------------------------------------------------------
    def canonical(self, supported: set[str] | frozenset[str] | None = None) -> Config:
        """The canonical form (see the module docstring); ``supported`` limits ``params``."""
        return self.canonical_with_adjustments(supported)[0]

    def canonical_with_adjustments(
        self, supported: set[str] | frozenset[str] | None = None
    ) -> tuple[Config, list[str]]:
        """The canonical form and the adjustments made, each as a sentence."""
        notes: list[str] = []
        params: dict[str, Any] = {}
        for key, value in sorted(self.params.items()):
            if self.temperature == 0 and key in SAMPLING_KEYS:
                notes.append(f"dropped {key}={value!r}: no effect at temperature 0")
                continue
            if supported is not None and key not in supported:
                notes.append(f"dropped {key}={value!r}: not supported by the backend")
                continue
            params[key] = _round(value)
        data = self.model_dump()
        data.update(params=params, temperature=_round(self.temperature))
        return Config(**data), notes

    @property
    def key(self) -> str:
        """A 16-hex-digit hash of the canonical form (api keys are never part of a config)."""
        blob = json.dumps(
            self.canonical().model_dump(mode="json"),
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @property
    def greedy(self) -> bool:
        """True at temperature 0 (one sample per case is enough)."""
        return self.temperature == 0

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | None) -> Config:
        return cls.model_validate_json(text) if text else cls()

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return self.model_dump(mode="json") == other.model_dump(mode="json")

    def __repr__(self) -> str:
        base = Config()
        changed = ", ".join(f"{k}={_short(v)}" for k, (v, _) in self.diff(base).items())
        return f"Config({changed})" if changed else "Config()"


FIELD_KEYS: frozenset[str] = frozenset(name for name in Config.model_fields if name != "params")


def _round(value: Any) -> Any:
    """A number in canonical form: floats rounded to 6 digits, whole numbers as ints (``1.0``
    and ``1`` are one value), bools untouched; lists and dicts element by element."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        value = round(value, 6)
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_round(v) for v in value]
    return value


def _short(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def _describe_prompt(old: str | None, new: str | None) -> str:
    if not old and new:
        return f"system_prompt set ({_lines(len(new.splitlines()))})"
    if old and not new:
        return "system_prompt removed"
    old_lines = set((old or "").splitlines())
    new_lines = set((new or "").splitlines())
    added, removed = len(new_lines - old_lines), len(old_lines - new_lines)
    bits = [f"+{_lines(added)}" if added else "", f"-{_lines(removed)}" if removed else ""]
    return "system_prompt " + (" ".join(b for b in bits if b) or "reworded")
