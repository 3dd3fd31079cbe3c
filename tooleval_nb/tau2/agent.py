"""The agent under test in a τ² simulation: tau2's ``LLMAgent``, its requests ours.

:class:`Tau2Agent` is tau2's :class:`~tau2.agent.llm_agent.LLMAgent` (its system prompt: tau2's
agent instruction and the domain's policy; its state: the messages it has seen) with one
change: its next message comes from the run's ``ask`` (:mod:`.conversation`: the cell's cache,
retries and limits) instead of tau2's litellm call. The conversion both ways is here too:
tau2's messages to the OpenAI-compatible messages our model layer sends
(:func:`request_messages`), a reply to tau2's message (:func:`tau2_message`), tau2's tools to
ours (:func:`our_tools`). The user simulator (:mod:`.user`) uses the same three.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..runner.chains import add_hop
from ..runner.record import CaseOutcome
from ..suite import Tool
from .conversation import Bridge, ModelCallFailed

__all__ = [
    "Ask",
    "Caller",
    "Tau2Agent",
    "our_tools",
    "request_messages",
    "tau2_message",
]

#: ``ask(messages, tools, tool_choice, *, model=None) -> ModelReply``: the runner cell's request
#: (``model``: another model's spec, the user simulator's)
Ask = Callable[..., Awaitable[Any]]


class Caller:
    """One participant's requests: each sent through ``ask`` on the loop (from the
    orchestrator, through ``bridge``) and recorded as a hop of ``outcome`` with its
    ``role``."""

    def __init__(
        self,
        role: str,
        ask: Ask,
        bridge: Bridge,
        outcome: CaseOutcome,
        tools: list[Tool],
        model: Any = None,
    ) -> None:
        self.role, self.ask, self.bridge, self.outcome = role, ask, bridge, outcome
        self.tools, self.model = tools, model

    def __call__(self, messages: list[Any]) -> Any:
        """The model's reply to tau2's ``messages`` (ModelCallFailed when it failed)."""
        sent = request_messages(messages)
        kwargs = {} if self.model is None else {"model": self.model}
        reply = self.bridge.call(
            lambda: self.ask(sent, self.tools, "auto" if self.tools else "none", **kwargs)
        )
        hop = add_hop(self.outcome, reply, len(self.outcome.hops))
        hop["role"] = self.role
        self.outcome.cached = self.outcome.cached and bool(reply.cached)
        if reply.error:
            raise ModelCallFailed(self.role, reply)
        return reply


def our_tools(tools: Sequence[Any] | None) -> list[Tool]:
    """tau2's tools as ours (their OpenAI schema, as tau2 sends them)."""
    return [Tool.model_validate(t.openai_schema) for t in tools or []]


def request_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """tau2's messages as tau2 sends them (``to_litellm_messages``), in the OpenAI shape our
    model layer takes: no ``tool_calls: null`` and no ``name`` beside a call's function."""
    from tau2.utils.llm_utils import to_litellm_messages

    out = []
    for message in to_litellm_messages(list(messages)):
        if message.get("role") == "assistant":
            calls = message.pop("tool_calls", None)
            if calls:
                message["tool_calls"] = [
                    {"id": c["id"], "type": "function", "function": c["function"]} for c in calls
                ]
        out.append(message)
    return out


def tau2_message(reply: Any, cls: Any, requestor: str = "assistant") -> Any:
    """A reply as tau2's message of class ``cls`` (AssistantMessage, UserMessage): its text,
    its calls (arguments that are not a JSON object are sent as ``{}``: the environment
    answers the call, and the hop keeps the parse problem), cost and usage, as tau2's
    ``generate`` builds it."""
    from tau2.data_model.message import ToolCall

    calls = []
    for call in reply.tool_calls:
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except (TypeError, ValueError):
            arguments = None
        calls.append(
            ToolCall(
                id=call.id or "",
                name=call.function.name,
                arguments=arguments if isinstance(arguments, dict) else {},
                requestor=requestor,
            )
        )
    usage = None
    if reply.prompt_tokens is not None or reply.completion_tokens is not None:
        usage = {
            "completion_tokens": reply.completion_tokens,
            "prompt_tokens": reply.prompt_tokens,
        }
    return cls(
        role="assistant" if requestor == "assistant" else "user",
        content=reply.content,
        tool_calls=calls or None,
        cost=reply.cost,
        usage=usage,
        raw_data=reply.raw or None,
    )


def _agent_class() -> type:
    from tau2.agent.base import AgentError
    from tau2.agent.llm_agent import LLMAgent
    from tau2.data_model.message import AssistantMessage, MultiToolMessage

    class _Tau2Agent(LLMAgent):  # type: ignore[misc]
        """tau2's LLMAgent whose requests go through :class:`Caller`."""

        def __init__(self, caller: Caller, tools: list[Any], policy: str, label: str) -> None:
            super().__init__(tools=tools, domain_policy=policy, llm=label, llm_args={})
            self.caller = caller

        def generate_next_message(self, message: Any, state: Any) -> tuple[Any, Any]:
            if isinstance(message, MultiToolMessage):
                state.messages.extend(message.tool_messages)
            else:
                state.messages.append(message)
            reply = self.caller(state.system_messages + state.messages)
            out = tau2_message(reply, AssistantMessage)
            if not out.has_text_content() and not out.is_tool_call():
                raise AgentError("the agent's model answered with an empty message")
            state.messages.append(out)
            return out, state

    return _Tau2Agent


_AGENT: type | None = None


def Tau2Agent(caller: Caller, tools: list[Any], policy: str, label: str) -> Any:  # noqa: N802
    """tau2's ``LLMAgent`` (its system prompt, policy and state) asking through ``caller``
    (the class is made on first use: tau2 loads with it)."""
    global _AGENT
    if _AGENT is None:
        _AGENT = _agent_class()
    return _AGENT(caller, tools, policy, label)
