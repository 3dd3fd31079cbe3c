"""Text embeddings for the ``semantic`` match mode.

The default embedding model is offline: WordLlama (PyPI ``wordllama``), whose 256-dimension
weights ship inside the package, loaded with downloads disabled and kept in memory after the
first use (about 1 s to load, then microseconds per text). Any litellm embedding model
(``"text-embedding-3-small"``, ``"ollama/nomic-embed-text"``...) can be named instead through
``scoring_config.embedding_model``; it is called through :mod:`tooleval_nb.models` (the only
module that talks to providers). Vectors are cached per (model, text).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from typing import Any

from ..errors import ModelConfigError, ScoringError
from ..extras import require_extra

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "embed",
    "similarity",
    "cosine",
    "load_wordllama",
    "clear_cache",
]

#: the offline default (weights inside the ``wordllama`` package)
DEFAULT_EMBEDDING_MODEL = "wordllama/l2_supercat_256"
_ALIASES = {None, "", "wordllama", DEFAULT_EMBEDDING_MODEL}
_CACHE_LIMIT = 50_000
_cache: dict[tuple[str, str], Any] = {}  # (model, text) -> numpy vector
_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def load_wordllama() -> Any:
    """The WordLlama model from the files inside its package (never downloads).

    Raises:
        ModelConfigError: wordllama is not installed or its bundled weights are missing.
    """
    require_extra("semantic", ModelConfigError)
    from pathlib import Path

    import wordllama
    from wordllama import WordLlama

    folder = Path(wordllama.__file__).parent
    try:
        return WordLlama.load(cache_dir=folder, disable_download=True)
    except FileNotFoundError as exc:
        raise ModelConfigError(
            f"wordllama's bundled weights were not found in {folder} ({exc}); "
            "reinstall wordllama, or set scoring_config.embedding_model to a "
            "litellm embedding model"
        ) from None


def _embed_uncached(texts: list[str], model: str | None) -> list[Any]:
    import numpy as np

    if model in _ALIASES:
        return list(np.asarray(load_wordllama().embed(texts, norm=True), dtype=np.float64))
    try:
        from ..models import embed as provider_embed
    except ImportError:
        raise ScoringError(
            f"embedding model {model!r} needs tooleval_nb.models.embed, which is "
            "not available; leave scoring_config.embedding_model unset to use "
            "the offline WordLlama model"
        ) from None
    return [np.asarray(v, dtype=np.float64) for v in provider_embed(list(texts), str(model))]


def embed(texts: Sequence[str], model: str | None = None) -> list[Any]:
    """Embedding vectors (numpy arrays) of ``texts`` with ``model`` (None: offline WordLlama)."""
    key_model = DEFAULT_EMBEDDING_MODEL if model in _ALIASES else str(model)
    missing = [t for t in dict.fromkeys(texts) if (key_model, t) not in _cache]
    if missing:
        vectors = _embed_uncached(missing, model)
        with _lock:
            if len(_cache) + len(missing) > _CACHE_LIMIT:
                _cache.clear()
            for text, vec in zip(missing, vectors, strict=True):
                _cache[(key_model, text)] = vec
    return [_cache[(key_model, t)] for t in texts]


def cosine(a: Any, b: Any) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros)."""
    import numpy as np

    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    return float(va @ vb) / (na * nb) if na and nb else 0.0


def similarity(a: str, b: str, model: str | None = None) -> float:
    """Cosine similarity of the embeddings of two texts."""
    va, vb = embed([a, b], model)
    return cosine(va, vb)


def clear_cache() -> None:
    """Forget cached vectors (the loaded model stays)."""
    with _lock:
        _cache.clear()
