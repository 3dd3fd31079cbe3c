"""Embeddings through litellm (used by the scoring engine's ``semantic`` match mode).

Any litellm embedding model string works (``"openai/text-embedding-3-small"``, or
``"openai/<name>"`` with an ``api_base`` for a local OpenAI-compatible server), with the same
retries and error classes as chat calls. Unlike :func:`~tooleval_nb.models.call_model`, failures
raise (a :class:`~tooleval_nb.errors.ModelError` subclass): a score cannot be computed without the
vectors, so the caller decides what to record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..aio import run_sync
from .retry import RetryPolicy, retry_async
from .spec import DEFAULT_TIMEOUT

__all__ = ["embed", "embed_async"]


async def embed_async(
    texts: Sequence[str] | str,
    model: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    retry: RetryPolicy | None = None,
    **params: Any,
) -> list[list[float]]:
    """One embedding vector per text (a single string gives a list of one vector).

    Raises:
        ModelError: the provider failed after the retries (subclass by cause).
    """
    from .litellm_transport import embed as litellm_embed

    items = [texts] if isinstance(texts, str) else list(texts)
    if not items:
        return []

    async def attempt(_: int) -> list[list[float]]:
        vectors, _usage = await litellm_embed(
            model, items, api_base=api_base, api_key=api_key, timeout=timeout, **params
        )
        return vectors

    vectors, _tries = await retry_async(attempt, retry or RetryPolicy())
    return vectors


def embed(texts: Sequence[str] | str, model: str, **kwargs: Any) -> list[list[float]]:
    """The sync twin of :func:`embed_async`."""
    return run_sync(embed_async(texts, model, **kwargs))
