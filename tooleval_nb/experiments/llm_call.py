"""Calls to helper models (the judge, the meta model) that must answer JSON, under a budget."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from ..models import DEFAULT_MODEL, call_model_async
from ..models.json_reply import extract_json_object
from .config import Config, thaw

__all__ = ["Answer", "JsonCaller", "extract_json", "logprob_content", "model_of"]


@dataclass(frozen=True)
class Answer:
    """One helper-model answer: its text, or the error; the token logprobs when asked for."""

    text: str | None
    error: str | None = None
    #: ``choices[0].logprobs.content`` of the reply (None when not asked or not given)
    logprobs: list[dict[str, Any]] | None = None


def model_of(judge_model: Any) -> dict[str, Any]:
    if isinstance(judge_model, Config):
        return {
            "model": judge_model.model,
            "api_base": judge_model.api_base,
            "params": {"temperature": judge_model.temperature, **thaw(judge_model.params)},
        }
    if judge_model is None:
        judge_model = DEFAULT_MODEL
    return {"model": judge_model, "api_base": None, "params": {}}


class JsonCaller:
    """Calls a helper model (judge, meta model) for JSON answers, under a call budget.

    The embedded model is asked in raw-text mode with a JSON-schema grammar
    (``response_format`` ``json_object`` + ``schema``, which llama.cpp turns into a grammar);
    other models get an OpenAI ``json_schema`` response format (``response_format="none"``
    sends none). The reply is never trusted: callers parse and validate it.

    ``top_logprobs`` asks for token logprobs (OpenAI ``logprobs`` / ``top_logprobs``). A provider
    that rejects them (HTTP 400) is asked again without, once per caller, and
    :attr:`logprobs_note` says why no logprobs came back.
    """

    def __init__(
        self,
        judge_model: Any,
        budget: int,
        timeout: float | None,
        response_format: str,
        params: dict[str, Any] | None,
        concurrency: int = 4,
        top_logprobs: int | None = None,
    ) -> None:
        spec = model_of(judge_model)
        self.model = spec["model"]
        self.api_base = spec["api_base"]
        self.params = {"temperature": 0.0, "max_tokens": 400, **spec["params"], **(params or {})}
        self.embedded = self.model == DEFAULT_MODEL
        self.left = budget
        self.used = 0
        self.timeout = timeout
        self.response_format = response_format
        self.gate = asyncio.Semaphore(concurrency)
        self.top_logprobs = top_logprobs
        self.logprobs_note: str | None = None
        #: the first call asking for logprobs runs alone: a provider rejecting them costs one call
        self._probe: asyncio.Lock | None = asyncio.Lock() if top_logprobs is not None else None

    def _format(self, schema: dict[str, Any], name: str) -> dict[str, Any]:
        if self.response_format == "none":
            return {}
        if self.embedded:
            return {"response_format": {"type": "json_object", "schema": schema}}
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema},
            }
        }

    async def ask(
        self, messages: list[dict[str, str]], schema: dict[str, Any], name: str
    ) -> tuple[str | None, str | None]:
        """(reply text, error); (None, "budget") when no call is left."""
        answer = await self.ask_full(messages, schema, name, logprobs=False)
        return answer.text, answer.error

    async def ask_full(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        *,
        logprobs: bool = True,
    ) -> Answer:
        """The reply with its token logprobs when ``top_logprobs`` was set and ``logprobs``."""
        if logprobs and self._probe is not None:
            async with self._probe:  # released for good once the first answer came back
                return await self._ask(messages, schema, name, logprobs=True, probing=True)
        return await self._ask(messages, schema, name, logprobs=logprobs)

    async def _ask(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        *,
        logprobs: bool,
        probing: bool = False,
    ) -> Answer:
        want = logprobs and self.top_logprobs is not None and self.logprobs_note is None
        while True:
            if self.left <= 0:
                return Answer(None, "budget")
            self.left -= 1
            extra: dict[str, Any] = (
                {"logprobs": True, "top_logprobs": self.top_logprobs} if want else {}
            )
            async with self.gate:
                self.used += 1
                reply = await call_model_async(
                    self.model,
                    messages,
                    mode="hermes" if self.embedded else None,
                    timeout=self.timeout,
                    api_base=self.api_base,
                    cache=False,
                    **self.params,
                    **self._format(schema, name),
                    **extra,
                )
            if want and reply.error and reply.error_type == "ModelBadRequestError":
                self.logprobs_note = f"the provider rejected logprobs ({reply.error[:120]})"
                want = False
                continue
            if probing and not reply.error:
                self._probe = None  # the provider takes logprobs: no need to go one by one
            if reply.error:
                return Answer(None, reply.error)
            text = reply.raw_text if reply.raw_text is not None else reply.content
            return Answer(text, None, logprob_content(reply.raw) if want else None)


def extract_json(text: str | None) -> Any:
    """The JSON value ``text`` is, else the first complete JSON object in it (code fences and
    prose around it allowed; :func:`tooleval_nb.models.json_reply.extract_json_object`), or
    None."""
    if not text:
        return None
    try:
        return json.loads(text.strip(), strict=False)  # strict=False: raw newlines in strings
    except ValueError:
        return extract_json_object(text, lenient=False)


def logprob_content(raw: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The per-token logprobs of an OpenAI chat completion (``choices[0].logprobs.content``)."""
    try:
        content = (raw or {})["choices"][0]["logprobs"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return content if isinstance(content, list) and content else None
