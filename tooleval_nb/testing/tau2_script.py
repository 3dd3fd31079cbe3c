"""Scripted τ² participants for the fake server and ``MockTransport``: an agent that replays a
task's gold actions and then says its required strings, a user that names its task and does
its own gold actions (telecom's dual control), and a greet-and-stop agent. For tests,
benchmarks and the notebook's fake mode; never a model's score.

Give :func:`answer` (gold agent) or :func:`answer_inaction` (greet-and-stop agent) as the
handler (``MockTransport(answer)``, ``FakeOpenAIServer(handler=answer)``); both answer the user
simulator's requests too (a request whose system prompt holds tau2's ``<scenario>``), so one
model plays both roles.

The dialogue, by marker words in the messages:

* the user's first turn says ``task:<domain>/<id>`` (the task is the one whose scenario its system
  prompt holds, or the one :func:`answer_for` was told: some tasks share their scenario's text);
* the agent calls the gold actions in order; at a user action it says ``PLEASE_DO <k>`` (k the
  action's index); the user then calls its actions from k on, one per turn, and says
  ``DONE <n>`` at the next agent action (n its index);
* after the last action the agent says ``ALL_DONE`` and the task's ``communicate_info``
  strings (the greet-and-stop agent: ``GOODBYE``); the user answers ``###STOP###``.
"""

from __future__ import annotations

import importlib
import json
import re
import threading
from typing import Any

from ..models.transport import ChatRequest

__all__ = ["answer", "answer_for", "answer_inaction", "task_of_scenario", "reset"]

_DOMAINS = ("mock", "airline", "retail", "telecom")
_SPLITS = {"telecom": "small"}
_lock = threading.Lock()
_tasks: dict[str, Any] = {}
_scenarios: dict[str, Any] = {}
_TASK = re.compile(r"task:(\S+)")
_DONE = re.compile(r"DONE (\d+)")
_PLEASE = re.compile(r"PLEASE_DO (\d+)")


def reset() -> None:
    """Forget the task index."""
    with _lock:
        _tasks.clear()
        _scenarios.clear()


def _index() -> None:
    """Every domain's tasks, from tau2's domain modules (the wheel's: a test helper sits below
    the τ² room), once."""
    with _lock:
        if _tasks:
            return
        from loguru import logger  # tau2's dependency: quiet, as tooleval_nb.tau2 keeps it

        logger.disable("tau2")
        for domain in _DOMAINS:
            module = importlib.import_module(f"tau2.domains.{domain}.environment")
            for task in module.get_tasks(_SPLITS.get(domain, "base")):
                key = f"{domain}/{task.id}"  # task ids repeat across domains
                _tasks[key] = task
                _scenarios.setdefault(str(task.user_scenario), key)


def task_of_scenario(system: str) -> str:
    """``<domain>/<task id>`` of the task whose user scenario the user simulator's system
    prompt holds (the longest that it holds)."""
    _index()
    found = [scenario for scenario in _scenarios if scenario and scenario in system]
    if not found:
        raise LookupError("no τ² task's scenario is in this user prompt")
    return _scenarios[max(found, key=len)]  # one task's scenario may hold another's


def _actions(task: Any) -> list[Any]:
    criteria = task.evaluation_criteria
    return list(criteria.actions or []) if criteria is not None else []


def _call(action: Any, k: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{k}_{action.name}",
                "type": "function",
                "function": {"name": action.name, "arguments": json.dumps(action.arguments)},
            }
        ],
    }


def _say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _messages(request: ChatRequest | dict[str, Any]) -> list[dict[str, Any]]:
    """The request's messages (a ChatRequest from MockTransport, a body from the fake server)."""
    messages = request.get("messages") if isinstance(request, dict) else request.messages
    return list(messages or [])


def _is_user(request: ChatRequest | dict[str, Any]) -> bool:
    messages = _messages(request)
    first = messages[0] if messages else {}
    return first.get("role") == "system" and "<scenario>" in str(first.get("content"))


def _user_answer(request: ChatRequest | dict[str, Any], key: str | None = None) -> dict[str, Any]:
    """The user's turn: ``task:<id>``, its own actions after ``PLEASE_DO``, ``###STOP###``
    (``key``: the task, when the handler was told it)."""
    messages = _messages(request)
    _index()
    key = key or task_of_scenario(str(messages[0]["content"]))
    task = _tasks[key]
    # the user's view: its own messages are "assistant", the agent's "user"
    messages = messages[1:]
    heard = [m for m in messages if m.get("role") == "user"]
    last = str(heard[-1].get("content") or "") if heard else ""
    if "ALL_DONE" in last or "GOODBYE" in last:
        return _say("###STOP###")
    said_task = any(
        m.get("role") == "assistant" and "task:" in str(m.get("content") or "") for m in messages
    )
    if not said_task:
        return _say(f"Hello. task:{key}")
    asked = _PLEASE.search(last)
    if asked is None:
        return _say("Please go on.")
    since = 0  # my calls since the agent's last message
    for m in reversed(messages):
        if m.get("role") == "user":
            break
        if m.get("role") == "assistant" and m.get("tool_calls"):
            since += len(m["tool_calls"])
    k = int(asked.group(1)) + since
    actions = _actions(task)
    if k < len(actions) and actions[k].requestor == "user":
        return _call(actions[k], k)
    return _say(f"DONE {k}")


def _agent_state(request: ChatRequest | dict[str, Any]) -> tuple[Any, int]:
    """The task (from the user's ``task:<id>``) and the index of the next gold action."""
    _index()
    messages = _messages(request)
    task, start, anchor = None, 0, 0
    for i, m in enumerate(messages):
        if m.get("role") != "user":
            continue
        text = str(m.get("content") or "")
        named = _TASK.search(text)
        if named is not None:
            task, start, anchor = _tasks.get(named.group(1)), 0, i
        done = _DONE.search(text)
        if done is not None:
            start, anchor = int(done.group(1)), i
    if task is None:
        raise LookupError("no task:<id> in the conversation")
    made = sum(len(m.get("tool_calls") or []) for m in messages[anchor + 1 :])
    return task, start + made


def answer(request: ChatRequest | dict[str, Any], *, key: str | None = None) -> dict[str, Any]:
    """The gold agent (and the scripted user): see the module docstring."""
    if _is_user(request):
        return _user_answer(request, key)
    task, k = _agent_state(request)
    actions = _actions(task)
    if k < len(actions):
        if actions[k].requestor == "user":
            return _say(f"PLEASE_DO {k}")
        return _call(actions[k], k)
    criteria = task.evaluation_criteria
    info = list(criteria.communicate_info or []) if criteria is not None else []
    return _say(" ".join(["ALL_DONE", *map(str, info)]))


def answer_inaction(
    request: ChatRequest | dict[str, Any], *, key: str | None = None
) -> dict[str, Any]:
    """An agent that only greets and says goodbye, at which the scripted user stops (tau2's
    agent never stops a conversation itself: its user does)."""
    if _is_user(request):
        return _user_answer(request, key)
    return _say("Hello! GOODBYE")


def answer_for(domain: str, task_id: str, *, inaction: bool = False) -> Any:
    """A handler whose user is told its task (``domain``'s ``task_id``): for tasks whose user
    scenarios are the same text (16 of telecom's 20 small tasks share theirs in pairs; the
    scenario cannot tell them apart), run one task per run with this."""
    key = f"{domain}/{task_id}"
    chosen = answer_inaction if inaction else answer

    def handler(request: ChatRequest | dict[str, Any]) -> dict[str, Any]:
        return chosen(request, key=key)

    return handler
