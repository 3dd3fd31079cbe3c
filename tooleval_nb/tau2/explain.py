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
    "DEEPER",
    "DIFF_LIMIT",
    "db_diff",
    "failed_assertions",
    "missing_actions",
    "missing_communicate",
]

#: the most differing fields :func:`db_diff` lists per database
DIFF_LIMIT = 20
#: DeepDiff's ``threshold_to_diff_deeper`` (its default): a pair of mappings whose shared keys are
#: fewer than this share of all their keys is reported as one changed value
DEEPER = 0.33


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
        theirs, ours = _differing(theirs, ours)  # ({}, {}) or (None, None) when they match
        diff = DeepDiff(theirs, ours, verbose_level=2, threshold_to_diff_deeper=DEEPER)
        lines.extend(f"{label}: {line}" for line in _lines(diff)[:limit])
    return lines


def _differing(theirs: Any, ours: Any) -> tuple[Any, Any]:
    """The two values without most of the mapping entries they share unchanged, for DeepDiff to
    report exactly what it reports on the whole values, in the same order, walking only what
    differs (airline's database: about 160,000 entries, a few of which a conversation changes:
    seconds for the whole, a fraction of that for this).

    DeepDiff reports a mapping entry from its own two values, at a path of keys; and it reports a
    pair of mappings as one changed value, without going deeper, when the keys they share are
    fewer than :data:`DEEPER` of all their keys. So at each level: a pair DeepDiff would not go
    into is kept whole; else the entries one side lacks and the shared ones that differ (made the
    same way, level by level) are kept, with as many shared unchanged entries (the first ones) as
    keep the share of shared keys at or above :data:`DEEPER`. Lists and other values are kept
    whole, and each side's keys keep their order (DeepDiff walks them in it)."""
    if not (isinstance(theirs, dict) and isinstance(ours, dict)):
        return theirs, ours
    shared = [key for key in theirs if key in ours]
    union = len(theirs) + len(ours) - len(shared)
    if union > 1 and len(shared) / union < DEEPER:
        return theirs, ours
    only = union - len(shared)
    kept = {key for key in shared if not _same(theirs[key], ours[key])}
    unchanged = (key for key in shared if key not in kept)
    size = len(kept)
    while size < len(shared) and size + only > 1 and size / (size + only) < DEEPER:
        kept.add(next(unchanged))
        size += 1
    narrowed = {key: _differing(theirs[key], ours[key]) for key in kept}
    return (
        {
            k: narrowed[k][0] if k in narrowed else v
            for k, v in theirs.items()
            if k in kept or k not in ours
        },
        {
            k: narrowed[k][1] if k in narrowed else v
            for k, v in ours.items()
            if k in kept or k not in theirs
        },
    )


def _same(a: Any, b: Any) -> bool:
    """Whether DeepDiff finds nothing between ``a`` and ``b``: equal, and of the same types
    throughout (``1``, ``1.0`` and ``True`` are equal in Python, and each a change to DeepDiff)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return len(a) == len(b) and all(k in b and _same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


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
