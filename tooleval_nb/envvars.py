"""The one reader of a count from an environment variable (``TOOLEVAL_LLAMA_THREADS``,
``TOOLEVAL_MAX_JOBS``): unset or empty is None, a whole number of at least 1 is that number, and
anything else is refused with the error its room raises, naming the variable (imports nothing of
ours)."""

from __future__ import annotations

import os

__all__ = ["count_from_env"]


def count_from_env(name: str, error: type[Exception], what: str, unset: str) -> int | None:
    """``$name`` as a count, None when unset or empty.

    Args:
        name: the environment variable.
        error: the exception raised for a value that is not a whole number of at least 1.
        what: what the count counts, for that error's message.
        unset: what leaving the variable unset means, for that message.
    """
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise error(
            f"{name}={value!r}: {what} must be a whole number of at least 1 (or unset: {unset})"
        )
    return int(value)
