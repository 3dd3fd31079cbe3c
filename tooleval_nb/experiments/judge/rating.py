"""G-Eval ratings: the probability-weighted expectation of a rating from the judge's top logprobs.

With ``score_mode="logprob"`` the judge is asked for ``logprobs`` with its verdict. The rating is
the digit the judge wrote for a JSON key (``"confidence": 4``); instead of that one sampled digit,
the report uses ``sum(r * p(r)) / sum(p(r))`` over the rating tokens ``1..5`` among the top
logprobs at that position (G-Eval, Liu et al. 2023). Pure functions: no model is called here.

A provider that returns no logprobs, or a reply whose rating token cannot be found among them,
gives ``None`` with the reason, and the caller keeps the written label.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Rating", "rating_expectation"]


@dataclass(frozen=True)
class Rating:
    """A rating read from logprobs: the expectation, the written label and the distribution."""

    expected: float
    label: int
    #: probability of each rating token, renormalised over the rating tokens seen
    probs: dict[int, float] = field(default_factory=dict)
    #: the probability mass the rating tokens had before renormalising (low = unreliable)
    mass: float = 1.0


def _alternatives(
    token: str, at: int, top: Sequence[dict[str, Any]], scale: Sequence[int]
) -> dict[int, float]:
    """Probabilities of the rating tokens among ``top``: tokens equal to ``token`` with its
    digit at ``at`` replaced by another rating (so ``' 4'`` matches ``' 5'``, ``'4'`` ``'5'``)."""
    prefix, suffix = token[:at], token[at + 1 :]
    wanted = {f"{prefix}{r}{suffix}": r for r in scale}
    bare = {str(r): r for r in scale}
    probs: dict[int, float] = {}
    for alt in top:
        text = str(alt.get("token", ""))
        rating = wanted.get(text)
        if rating is None:
            rating = bare.get(text.strip().strip('"'))
        lp = alt.get("logprob")
        if rating is not None and isinstance(lp, (int, float)) and rating not in probs:
            probs[rating] = math.exp(lp)
    return probs


def rating_expectation(
    content: list[dict[str, Any]] | None,
    key: str = "confidence",
    scale: Sequence[int] = (1, 2, 3, 4, 5),
) -> tuple[Rating | None, str | None]:
    """The G-Eval expectation of the integer written for ``key`` in a JSON reply.

    Args:
        content: ``choices[0].logprobs.content`` (tokens with ``token``, ``logprob`` and
            ``top_logprobs``), or None.
        key: the JSON key holding the rating.
        scale: the rating values (one digit each).

    Returns:
        ``(Rating, None)``, or ``(None, reason)`` when the logprobs cannot give a rating.
    """
    if not content:
        return None, "the provider returned no logprobs"
    tokens = [str(t.get("token", "")) for t in content]
    text = "".join(tokens)
    match = re.search(rf'"{re.escape(key)}"\s*:\s*"?(\d)', text)
    if match is None:
        return None, f"no {key!r} rating in the reply's tokens"
    pos = match.start(1)
    label = int(match.group(1))
    start = 0
    for item, token in zip(content, tokens, strict=True):
        if start <= pos < start + len(token):
            top = item.get("top_logprobs") or []
            probs = _alternatives(token, pos - start, top, scale)
            if (
                label in scale
                and label not in probs
                and isinstance(item.get("logprob"), (int, float))
            ):
                probs[label] = math.exp(item["logprob"])
            mass = sum(probs.values())
            if not probs or mass <= 0:
                return None, f"no rating token {list(scale)} among the top logprobs"
            norm = {r: p / mass for r, p in sorted(probs.items())}
            expected = sum(r * p for r, p in norm.items())
            return Rating(expected=expected, label=label, probs=norm, mass=min(1.0, mass)), None
        start += len(token)
    return None, "the rating token was not found"  # pragma: no cover - pos is inside text
