"""Why a τ²-bench simulation failed, beside its reward.

* :func:`db_diff`: the database fields that differ between the end of the conversation and the
  gold replay (the task's gold actions on a fresh environment, as tau2's evaluator builds it),
  for the agent's database and, in telecom, the user's;
* :func:`missing_communicate`: the required strings the agent never said (tau2's communicate
  checks that are not met);
* :func:`missing_actions`: the gold actions no tool call matched (tau2's action checks);
* :func:`failed_assertions`: the environment assertions that do not hold.

The last three read tau2's ``RewardInfo``; the first replays both environments with tau2's own
``Environment.set_state`` and ``make_tool_call``, and diffs their databases with DeepDiff
(a dependency of tau2's, in the ``tau2`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .domains import environment_constructor

if TYPE_CHECKING:  # pragma: no cover
    from tau2.data_model.simulation import RewardInfo, SimulationRun
    from tau2.data_model.tasks import Task

__all__ = [
    "DIFF_LIMIT",
    "db_diff",
    "failed_assertions",
    "missing_actions",
    "missing_communicate",
]

#: the most differing fields :func:`db_diff` lists per database
DIFF_LIMIT = 20


def missing_communicate(info: RewardInfo | None) -> list[str]:
    """The required strings the agent did not say."""
    return (
        [check.info for check in (info.communicate_checks or []) if not check.met] if info else []
    )


def missing_actions(info: RewardInfo | None) -> list[str]:
    """The gold actions no tool call of the conversation matched, as ``name(args)``."""
    if info is None:
        return []
    checks = info.action_checks or []
    return [check.action.get_func_format() for check in checks if not check.action_match]


def failed_assertions(info: RewardInfo | None) -> list[str]:
    """The environment assertions that do not hold (their message, else the function)."""
    if info is None:
        return []
    out = []
    for check in info.env_assertions or []:
        if not check.met:
            assertion = check.env_assertion
            out.append(assertion.message or f"{assertion.func_name}({assertion.arguments})")
    return out


def _state(task: Task) -> tuple[Any, Any, list[Any]]:
    state = task.initial_state
    if state is None:
        return None, None, []
    return state.initialization_data, state.initialization_actions, state.message_history or []


def db_diff(
    domain: str,
    task: Task,
    simulation: SimulationRun,
    *,
    solo_mode: bool = False,
    limit: int = DIFF_LIMIT,
) -> list[str]:
    """The database fields whose value at the end of ``simulation`` differs from the gold
    replay's, as ``db: path: gold -> got`` lines (``user_db: ...`` for the user's database);
    empty when they match. A replay tau2 refuses gives one line saying so."""
    from deepdiff import DeepDiff

    data, actions, history = _state(task)
    constructor = environment_constructor(domain)
    predicted = constructor(solo_mode=solo_mode)
    try:
        predicted.set_state(
            initialization_data=data,
            initialization_actions=actions,
            message_history=simulation.messages,
        )
    except Exception as exc:  # noqa: BLE001 - tau2's refusal of the replay, reported
        return [f"the conversation cannot be replayed: {str(exc).splitlines()[0]}"]
    gold = constructor()
    gold.set_state(
        initialization_data=data, initialization_actions=actions, message_history=history
    )
    criteria = task.evaluation_criteria
    for action in (criteria.actions if criteria else None) or []:
        try:
            gold.make_tool_call(
                tool_name=action.name, requestor=action.requestor, **action.arguments
            )
        except Exception:  # noqa: BLE001, S112 - tau2's evaluator skips a failing gold action too
            continue
    lines: list[str] = []
    for label, ours, theirs in (
        ("db", _dump(predicted.tools), _dump(gold.tools)),
        ("user_db", _dump(predicted.user_tools), _dump(gold.user_tools)),
    ):
        if ours == theirs:
            continue
        diff = DeepDiff(theirs, ours, verbose_level=2)
        lines.extend(f"{label}: {line}" for line in _lines(diff)[:limit])
    return lines


def _dump(tools: Any) -> Any:
    return None if tools is None else tools.db.model_dump(mode="json")


def _lines(diff: Any) -> list[str]:
    out = []
    for path, change in (diff.get("values_changed") or {}).items():
        out.append(f"{_path(path)}: gold {change['old_value']!r} -> got {change['new_value']!r}")
    for path, change in (diff.get("type_changes") or {}).items():
        out.append(f"{_path(path)}: gold {change['old_value']!r} -> got {change['new_value']!r}")
    for kind, verb in (
        ("dictionary_item_added", "only in the conversation's"),
        ("dictionary_item_removed", "only in the gold replay's"),
        ("iterable_item_added", "only in the conversation's"),
        ("iterable_item_removed", "only in the gold replay's"),
    ):
        for path in diff.get(kind) or {}:
            out.append(f"{_path(path)}: {verb}")
    return out


def _path(path: str) -> str:
    return path.removeprefix("root")
