"""The simulated user of a τ² simulation: tau2's ``UserSimulator``, its requests ours.

:class:`Tau2User` is tau2's :class:`~tau2.user.user_simulator.UserSimulator` (tau2's user
prompt: its simulation guidelines, with the tools variant when the domain gives the user tools,
and the task's scenario; its state; its stop words) whose next message comes from the run's
``ask`` with the user's model (:class:`~.agent.Caller`), so its requests are the cell's (cache,
retries, limits) and its cost is counted.

A replayed user (``script``): the user turns of a stored simulation, said again in order
whatever the agent answers (the same conversation start for two agents); when the script ends
before the conversation does, the user's model goes on from there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .agent import Caller, tau2_message

__all__ = ["Tau2User"]


def _user_class() -> type:
    from tau2.data_model.message import MultiToolMessage, ToolCall, UserMessage
    from tau2.user.base import UserError
    from tau2.user.user_simulator import UserSimulator

    class _Tau2User(UserSimulator):  # type: ignore[misc]
        """tau2's UserSimulator whose requests go through :class:`Caller`."""

        def __init__(
            self,
            caller: Caller,
            tools: list[Any] | None,
            instructions: str,
            label: str,
            script: Sequence[Any] = (),
        ) -> None:
            super().__init__(tools=tools, instructions=instructions, llm=label, llm_args={})
            self.caller = caller
            self.script = list(script)

        def generate_next_message(self, message: Any, state: Any) -> tuple[Any, Any]:
            if isinstance(message, MultiToolMessage):
                state.messages.extend(message.tool_messages)
            else:
                state.messages.append(message)
            if self.script:  # a replayed turn: said again as stored
                said = self.script.pop(0)
                out = UserMessage(
                    role="user",
                    content=said.content,
                    tool_calls=(
                        [
                            ToolCall(id=c.id, name=c.name, arguments=c.arguments, requestor="user")
                            for c in said.tool_calls
                        ]
                        if said.tool_calls
                        else None
                    ),
                    cost=0.0,
                )
            else:
                reply = self.caller(state.system_messages + state.flip_roles())
                out = tau2_message(reply, UserMessage, requestor="user")
                if not out.has_text_content() and not out.is_tool_call():
                    raise UserError("the user's model answered with an empty message")
            state.messages.append(out)
            return out, state

    return _Tau2User


_USER: type | None = None


def Tau2User(  # noqa: N802
    caller: Caller,
    tools: list[Any] | None,
    instructions: str,
    label: str,
    script: Sequence[Any] = (),
) -> Any:
    """tau2's ``UserSimulator`` asking through ``caller`` (``script``: stored user messages
    said first, in order; see the module docstring)."""
    global _USER
    if _USER is None:
        _USER = _user_class()
    return _USER(caller, tools, instructions, label, script)
