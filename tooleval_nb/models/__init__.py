"""The edge to models: one call (:func:`call_model_async` / :func:`call_model`), the embedded
offline model (:class:`EmbeddedServer`, :func:`embedded_server`), embeddings (:func:`embed_async`).

Modules: ``spec`` (ModelSpec, modes, DEFAULT_MODEL), ``reply`` (ModelReply), ``call`` (a call
composed of the parts below: its route per spec, then wire → fallback → cache → transport →
wire), ``exchange`` (one call in flight), ``wire`` (native or raw-text: prepare the request, read
the reply), ``rawtext`` (raw-text messages), ``transport`` (the Transport contract, request/result
shapes, HTTP status → error), ``direct`` (DirectTransport, EmbeddedTransport), ``http`` (our
HTTP/1.1 client, under ``direct``), ``litellm_transport`` (the only module importing litellm: LitellmTransport, the exception map),
``retry``, ``fallback`` (required → auto), ``cache`` (SQLite response cache and its wrapper),
``messages`` (assembly), ``embedded`` (llama.cpp server lifecycle), ``embed`` (embeddings).
"""

from __future__ import annotations

from .cache import ResponseCache
from .call import call_model, call_model_async
from .direct import aclose
from .embed import embed, embed_async
from .embedded import EmbeddedServer, embedded_server
from .messages import build_messages
from .reply import ModelReply
from .retry import RetryPolicy
from .spec import DEFAULT_MODEL, Mode, ModelSpec, system_prompt_for

__all__ = [
    "DEFAULT_MODEL",
    "EmbeddedServer",
    "Mode",
    "ModelReply",
    "ModelSpec",
    "ResponseCache",
    "RetryPolicy",
    "aclose",
    "build_messages",
    "call_model",
    "call_model_async",
    "embed",
    "embed_async",
    "embedded_server",
    "system_prompt_for",
]
