"""Parameter match modes: does an actual argument value match an expected one?

Modes (the ``param_scoring`` / ``scoring_config.mode`` values):

===================  ===========================================================================
``exact``            strings equal ignoring case; numbers equal as floats (``5 == 5.0``, a bool
                     is not a number); lists and dicts compared item by item with these rules
``case_insensitive`` the values' text forms equal ignoring case and surrounding blanks (so
                     ``"5"`` matches ``5``); lists and dicts compared as canonical JSON text
``contains``         one text form contains the other, ignoring case (either direction); an
                     empty expected value matches only an empty actual one
``numeric_tolerance`` ``|actual - expected| <= epsilon`` (``scoring_config.epsilon``, default
                     0.01); numeric strings count as numbers; non-numbers fall back to ``exact``
``regex``            the expected value is a pattern that must match the *whole* actual text
                     (``regex.fullmatch``), bounded by ``scoring_config.regex_timeout`` seconds
                     (default 1); a pattern that runs longer raises :class:`RegexTimeoutError`
``fuzzy``            rapidfuzz's ``ratio`` of the two texts (lowercased, trimmed) / 100 is at
                     least ``scoring_config.threshold`` (default 0.8)
``semantic``         cosine similarity of the two texts' embeddings is at least
                     ``scoring_config.threshold`` (default 0.7); see :mod:`.semantic`
===================  ===========================================================================

Non-text values (numbers, booleans, null) in ``contains``, ``fuzzy`` and ``semantic`` mode are
compared with ``exact``. Everything here is pure and fast: ``match_value`` is the inner loop of
parameter scoring.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from typing import Any

from ..errors import RegexTimeoutError, ScoringError
from ..suite import ParamScoring, ScoringConfig
from .semantic import similarity

__all__ = [
    "MATCH_MODES",
    "DEFAULT_EPSILON",
    "DEFAULT_THRESHOLD",
    "DEFAULT_SEMANTIC_THRESHOLD",
    "DEFAULT_REGEX_TIMEOUT",
    "match_value",
    "match_exact",
    "text_of",
    "regex_search",
    "regex_fullmatch",
]

#: how an argument value is matched (a parameter's ``ParamScoring``); the call modes of a model
#: (``native`` or a parser format) are ``models.spec.MODES``
MATCH_MODES: tuple[ParamScoring, ...] = (
    "exact",
    "case_insensitive",
    "contains",
    "numeric_tolerance",
    "regex",
    "fuzzy",
    "semantic",
)
DEFAULT_EPSILON = 0.01
DEFAULT_THRESHOLD = 0.8
#: the semantic default is lower: WordLlama rates "NYC" / "New York City" at 0.77
DEFAULT_SEMANTIC_THRESHOLD = 0.7
DEFAULT_REGEX_TIMEOUT = 1.0

_NUMBER = (int, float)


def _is_number(v: Any) -> bool:
    return isinstance(v, _NUMBER) and not isinstance(v, bool)


def match_exact(expected: Any, actual: Any) -> bool:
    """``exact``: strings equal ignoring case, numbers equal as floats, containers recursively."""
    te, ta = type(expected), type(actual)
    if te is str:
        return ta is str and (expected == actual or expected.lower() == actual.lower())
    if te is bool or ta is bool:
        return te is ta and expected == actual
    if (te is int or te is float) and (ta is int or ta is float):
        return float(expected) == float(actual)
    if te is list or te is tuple:
        return (
            (ta is list or ta is tuple)
            and len(expected) == len(actual)
            and all(match_exact(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if te is dict:
        return (
            ta is dict
            and expected.keys() == actual.keys()
            and all(match_exact(v, actual[k]) for k, v in expected.items())
        )
    if _is_number(expected) and _is_number(actual):
        return float(expected) == float(actual)
    return bool(expected == actual)


def text_of(value: Any) -> str:
    """The text form of a value: strings as they are, the rest as compact canonical JSON.

    Integral floats read as integers (``5.0`` -> ``"5"``), so text modes treat 5 and 5.0 alike.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if type(value) is int:
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))  # 5.0 reads as "5", as 5 does
        return repr(value)
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _case_insensitive(expected: Any, actual: Any, cfg: ScoringConfig | None) -> bool:
    if type(expected) is str and type(actual) is str:
        return expected.strip().casefold() == actual.strip().casefold()
    return text_of(expected).strip().casefold() == text_of(actual).strip().casefold()


def _contains(expected: Any, actual: Any, cfg: ScoringConfig | None) -> bool:
    if not isinstance(expected, (str, list, dict)) or not isinstance(actual, (str, list, dict)):
        return match_exact(expected, actual)
    e, a = text_of(expected).casefold(), text_of(actual).casefold()
    if not e or not a:
        return e == a
    return e in a or a in e


def _as_float(v: Any) -> float | None:
    if _is_number(v):
        return float(v)
    if isinstance(v, str):
        try:
            f = float(v.strip())
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def _numeric(expected: Any, actual: Any, cfg: ScoringConfig | None) -> bool:
    e, a = _as_float(expected), _as_float(actual)
    if e is None or a is None:
        return match_exact(expected, actual)
    eps = cfg.epsilon if cfg is not None and cfg.epsilon is not None else DEFAULT_EPSILON
    return abs(a - e) <= eps


def _threshold(cfg: ScoringConfig | None, default: float = DEFAULT_THRESHOLD) -> float:
    return cfg.threshold if cfg is not None and cfg.threshold is not None else default


def _fuzzy(expected: Any, actual: Any, cfg: ScoringConfig | None) -> bool:
    if not isinstance(expected, str) or not isinstance(actual, str):
        return match_exact(expected, actual)
    from rapidfuzz import fuzz
    from rapidfuzz.utils import default_process

    return fuzz.ratio(expected, actual, processor=default_process) / 100.0 >= _threshold(cfg)


def _semantic(expected: Any, actual: Any, cfg: ScoringConfig | None) -> bool:
    if not isinstance(expected, str) or not isinstance(actual, str):
        return match_exact(expected, actual)
    if expected.strip().casefold() == actual.strip().casefold():
        return True
    model = cfg.embedding_model if cfg is not None else None
    return similarity(expected, actual, model=model) >= _threshold(cfg, DEFAULT_SEMANTIC_THRESHOLD)


# -- regex (time-bounded) ----------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> Any:
    import regex

    try:
        return regex.compile(pattern, regex.VERSION0)
    except regex.error as exc:
        raise ScoringError(
            f"invalid regular expression {pattern!r}: {exc}; fix the pattern "
            "(in expected_params or output_matches)"
        ) from None


def _regex_timeout(cfg: ScoringConfig | None) -> float:
    if cfg is not None and cfg.regex_timeout is not None:
        return cfg.regex_timeout
    return DEFAULT_REGEX_TIMEOUT


def _run_regex(method: str, pattern: str, text: str, timeout: float) -> bool:
    compiled = _compile(pattern)
    try:
        return getattr(compiled, method)(text, timeout=timeout) is not None
    except TimeoutError:
        raise RegexTimeoutError(
            f"regular expression {pattern!r} did not finish within {timeout:g} s on a "
            f"{len(text)}-character text (catastrophic backtracking?); simplify the pattern, "
            "or raise scoring_config.regex_timeout"
        ) from None


def regex_fullmatch(pattern: str, text: str, timeout: float = DEFAULT_REGEX_TIMEOUT) -> bool:
    """Whether ``pattern`` matches all of ``text``, within ``timeout`` seconds.

    Raises:
        RegexTimeoutError: the match ran longer than ``timeout``.
        ScoringError: the pattern is not a valid regular expression.
    """
    return _run_regex("fullmatch", pattern, text, timeout)


def regex_search(pattern: str, text: str, timeout: float = DEFAULT_REGEX_TIMEOUT) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, within ``timeout`` seconds."""
    return _run_regex("search", pattern, text, timeout)


def _regex(expected: Any, actual: Any, cfg: ScoringConfig | None) -> bool:
    if not isinstance(expected, str):
        return match_exact(expected, actual)
    return regex_fullmatch(expected, text_of(actual), _regex_timeout(cfg))


_MATCHERS: dict[str, Callable[[Any, Any, ScoringConfig | None], bool]] = {
    "exact": lambda e, a, c: match_exact(e, a),
    "case_insensitive": _case_insensitive,
    "contains": _contains,
    "numeric_tolerance": _numeric,
    "regex": _regex,
    "fuzzy": _fuzzy,
    "semantic": _semantic,
}


def match_value(
    expected: Any, actual: Any, mode: ParamScoring = "exact", config: ScoringConfig | None = None
) -> bool:
    """Whether ``actual`` matches ``expected`` in ``mode`` (see the module docstring).

    Raises:
        ScoringError: unknown mode or invalid regex; RegexTimeoutError: a regex ran too long.
    """
    if mode == "exact":
        return match_exact(expected, actual)
    try:
        matcher = _MATCHERS[mode]
    except KeyError:
        raise ScoringError(
            f"unknown scoring mode {mode!r}; use one of {', '.join(MATCH_MODES)}"
        ) from None
    return matcher(expected, actual, config)
