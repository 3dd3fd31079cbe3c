"""A transport without a server: a function from request to reply (as httpx's MockTransport).

Give it where a transport is accepted (``{"model": ..., "transport": MockTransport(handler)}``,
``ModelSpec(transport=...)``): every request of that model goes to ``handler`` instead of the
network. The rest of a model call (wire format, retries, the ``required`` fallback, the cache,
reading the reply) and of the run (scoring, the store, events) is the real one.

``handler(request)`` gets the :class:`~tooleval_nb.models.transport.ChatRequest` and returns
(or, being a coroutine function, resolves to) one of:

* a :class:`~tooleval_nb.models.transport.ChatResult`;
* a dict: a chat-completion JSON object (``{"choices": [...]}``) or just the assistant message
  (``{"role": "assistant", ...}``);
* raises a :class:`~tooleval_nb.errors.ModelError` to answer with that failure (a
  ``ModelRateLimitError`` is retried as a 429 would be).

Without a handler it answers as :class:`~.fake_openai.FakeOpenAIServer` does by default
(:func:`~.answers.default_answer`: ``"get_weather city Paris"`` calls ``get_weather`` with
``city="Paris"``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..models.transport import ChatRequest, ChatResult, result_from_json
from .answers import default_answer

__all__ = ["MockTransport"]

#: what a handler may return (see the module docstring)
Handler = Callable[[ChatRequest], Any]


class MockTransport:
    """A :class:`~tooleval_nb.models.transport.Transport` answering from ``handler``.

    Attributes:
        requests: every request sent, in order (to assert on what the toolkit sent).
    """

    def __init__(self, handler: Handler | None = None, *, required: bool = True) -> None:
        self.handler = handler
        self.required = required
        self.requests: list[ChatRequest] = []

    def __repr__(self) -> str:
        return f"MockTransport({getattr(self.handler, '__name__', 'default_answer')})"

    async def open(self) -> None:
        return None

    def supports_required(self, model: str) -> bool:
        """``required`` (default True) as given: False makes the toolkit send ``auto``."""
        return self.required

    async def send(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        if self.handler is None:
            reply: Any = default_answer(_body(request))
        else:
            reply = self.handler(request)
            if inspect.isawaitable(reply):
                reply = await reply
        if isinstance(reply, ChatResult):
            return reply
        if isinstance(reply, dict):
            if "choices" not in reply:  # an assistant message alone
                reply = {
                    "choices": [
                        {
                            "index": 0,
                            "message": reply,
                            "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0},
                }
            return result_from_json(reply, model=request.model)
        raise TypeError(
            f"MockTransport handler {self!r} returned {type(reply).__name__}; "
            "return a ChatResult, a chat-completion dict or an assistant message"
        )


def _body(request: ChatRequest) -> dict[str, Any]:
    """The request as an OpenAI-compatible body (what the fake server would read)."""
    return {
        "model": request.model,
        "messages": request.messages,
        "tools": request.tools,
        "tool_choice": request.tool_choice,
        **request.params,
    }
