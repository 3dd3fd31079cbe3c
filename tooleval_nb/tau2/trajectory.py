"""Scripted τ²-bench conversations, built against tau2's own environments: the gold agent and
the agent that only greets and stops.

* :func:`gold_simulation`: the agent replays the task's gold actions (in telecom the user's own
  actions are done by the user, with the user's tools), each answered by the domain's
  environment, then says every required string; the user stops.
* :func:`noop_simulation`: the agent greets, the user asks for help, the agent stops; nothing is
  called. What this conversation passes is the task's *inaction baseline*.

Both return tau2's ``SimulationRun`` (the shape of a results file's simulations), so that
tau2's evaluator scores them as it scores any run. They are the proof of the rewards
(tests/tau2/) and the scripted conversations of the run's tests. This module is not in
``tooleval_nb.testing`` because that room may not import the tau2 room.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from .domains import environment_constructor

if TYPE_CHECKING:  # pragma: no cover
    from tau2.data_model.simulation import SimulationRun
    from tau2.data_model.tasks import Task

__all__ = [
    "AGENT_GREETING",
    "STOP",
    "USER_REQUEST",
    "gold_messages",
    "gold_simulation",
    "make_simulation",
    "noop_messages",
    "noop_simulation",
]

#: tau2's first agent message (its orchestrator's ``DEFAULT_FIRST_AGENT_MESSAGE``)
AGENT_GREETING = "Hi! How can I help you today?"
#: what the scripted user says after the greeting
USER_REQUEST = "Hi, I need help with my request."
#: the stop signal of tau2's agent and user (``###STOP###``)
STOP = "###STOP###"

Stopper = Literal["agent", "user"]


def _opening(task: Task) -> list[Any]:
    """The conversation's start: the task's own message history, else tau2's greeting and a
    request from the user."""
    from tau2.data_model.message import AssistantMessage, UserMessage

    state = task.initial_state
    if state is not None and state.message_history:
        history = deepcopy(state.message_history)
        for message in history:
            message.turn_idx = None
        return list(history)
    return [
        AssistantMessage(role="assistant", content=AGENT_GREETING, cost=0.0),
        UserMessage(role="user", content=USER_REQUEST, cost=0.0),
    ]


def _environment(domain: str, task: Task, history: list[Any]) -> Any:
    state = task.initial_state
    env = environment_constructor(domain)(solo_mode=False)
    env.set_state(
        initialization_data=state.initialization_data if state else None,
        initialization_actions=state.initialization_actions if state else None,
        message_history=history,
    )
    return env


def gold_messages(domain: str, task: Task, *, say_required: bool = True) -> list[Any]:
    """The gold agent's conversation for ``task`` (tau2 messages; see the module docstring).

    Each gold action is one tool call by its requestor (the agent, or in telecom the user),
    answered by the domain's environment as the conversation goes.
    """
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage

    messages = _opening(task)
    env = _environment(domain, task, messages)
    criteria = task.evaluation_criteria
    for n, action in enumerate((criteria.actions if criteria else None) or []):
        call = ToolCall(
            id=f"gold_{n}", name=action.name, arguments=dict(action.arguments),
            requestor=action.requestor,
        )  # fmt: skip
        role = UserMessage if action.requestor == "user" else AssistantMessage
        messages.append(role(role=action.requestor, tool_calls=[call], cost=0.0))
        messages.append(env.get_response(call))
    required = (criteria.communicate_info if criteria else None) or []
    if say_required and required:
        text = "Here is what you need to know: " + "; ".join(required) + "."
        messages.append(AssistantMessage(role="assistant", content=text, cost=0.0))
    messages.append(UserMessage(role="user", content=STOP, cost=0.0))
    return _numbered(messages)


def noop_messages(task: Task) -> list[Any]:
    """The conversation of an agent that only greets and stops (the inaction baseline)."""
    from tau2.data_model.message import AssistantMessage

    messages = _opening(task)
    messages.append(AssistantMessage(role="assistant", content=STOP, cost=0.0))
    return _numbered(messages)


def _numbered(messages: list[Any]) -> list[Any]:
    for n, message in enumerate(messages):
        message.turn_idx = n
    return messages


def make_simulation(
    task: Task,
    messages: Sequence[Any],
    *,
    trial: int = 0,
    termination: str = "user_stop",
    simulation_id: str | None = None,
    agent_cost: float | None = 0.0,
    user_cost: float | None = 0.0,
    seed: int | None = None,
) -> SimulationRun:
    """A tau2 ``SimulationRun`` of ``messages`` for ``task`` (no reward yet)."""
    from tau2.data_model.simulation import SimulationRun, TerminationReason

    now = datetime.now().isoformat()
    return SimulationRun(
        id=simulation_id or f"{task.id}_{trial}",
        task_id=task.id,
        start_time=now,
        end_time=now,
        duration=0.0,
        termination_reason=TerminationReason(termination),
        agent_cost=agent_cost,
        user_cost=user_cost,
        messages=list(messages),
        trial=trial,
        seed=seed,
    )


def gold_simulation(
    domain: str, task: Task, *, trial: int = 0, say_required: bool = True
) -> SimulationRun:
    """The gold agent's simulation of ``task`` (ended by the user)."""
    messages = gold_messages(domain, task, say_required=say_required)
    return make_simulation(task, messages, trial=trial, termination="user_stop")


def noop_simulation(task: Task, *, trial: int = 0) -> SimulationRun:
    """The greet-and-stop agent's simulation of ``task`` (ended by the agent)."""
    return make_simulation(task, noop_messages(task), trial=trial, termination="agent_stop")
