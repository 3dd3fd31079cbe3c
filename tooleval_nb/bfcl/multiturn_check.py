"""BFCL's multi-turn verdict, equal to the official checker's, and the per-turn credit it lacks.

The official path (bfcl-eval's ``eval_runner._evaluate_single_multi_turn_entry`` then
``multi_turn_checker``), on the ``result`` a result file holds (a list of turns, each a list
of steps, each step what the model answered):

1. a ``result`` that is not a list: ``multi_turn:inference_error`` (a failed inference);
2. fewer (or more) turns than the ground truth: ``multi_turn:force_terminated`` (the loop hit
   BFCL's step limit and stopped);
3. each step decoded (:func:`.environments.decode_execute`); a step that cannot be decoded or
   holds no call is skipped (the model was talking);
4. turn by turn, the model's calls and the ground truth's run against two sets of BFCL's
   environments (:class:`.environments.Environments`); a turn whose ground truth has calls
   fails when the model made none (``multi_turn:empty_turn_model_response``), when an
   instance's public state differs (``multi_turn:instance_state_mismatch``), or when the
   ground truth's execution results are not all among the model's results so far, as a
   multiset (``multi_turn:execution_response_mismatch``). A turn whose ground truth is empty
   (miss_func / miss_param: the model should ask) is not checked. The first failure decides.

A turn that is not a list is iterated as BFCL iterates it (a string step by step, character by
character, none of which decodes); a turn that cannot be iterated at all (a number, ``None``)
makes BFCL's checker crash: here it is an ``multi_turn:inference_error`` naming the turn.

Beside the verdict (:class:`MultiTurnVerdict`): every turn checked as BFCL checks the first
failing one, so ``turns_passed`` of ``turns_run`` (an entry passes exactly when every one of
its turns does and none is missing), the first failing turn and why; and with ``replay=True``
each turn checked from the ground truth's state after the turns before it (the model's
calls of that turn alone, its results alone), so that one early mistake does not hide the
later turns (gorilla #920). A force-terminated entry's turns run are checked; its last turn
(the one stopped) counts as failed, and so does any turn beyond the ground truth's.

Pure but for BFCL's environment classes (which memory's write files; multi-turn's do not).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bfcl_rules.decode import DecodeError
from .collector import collector_paused
from .environments import Environments, ExecuteMode, decode_execute, is_empty_execute

__all__ = [
    "MultiTurnVerdict",
    "TurnCheck",
    "multi_turn_verdict",
    "decode_turns",
    "INFERENCE_ERROR",
    "FORCE_TERMINATED",
    "EMPTY_TURN",
    "STATE_MISMATCH",
    "RESPONSE_MISMATCH",
]

INFERENCE_ERROR = "multi_turn:inference_error"
FORCE_TERMINATED = "multi_turn:force_terminated"
EMPTY_TURN = "multi_turn:empty_turn_model_response"
STATE_MISMATCH = "multi_turn:instance_state_mismatch"
RESPONSE_MISMATCH = "multi_turn:execution_response_mismatch"

_NOT_A_LIST = "Error during inference phase. Model did not output a list of model responses."


@dataclass(frozen=True)
class TurnCheck:
    """One turn's check: ``passed``, else BFCL's ``error_type`` and message, and the detail
    (the differing attributes, or the ground truth's results the model's lack)."""

    passed: bool
    error_type: str | None = None
    error: str | None = None
    detail: Any = None


@dataclass(frozen=True)
class MultiTurnVerdict:
    """BFCL's verdict of one multi-turn entry, with our per-turn credit beside it.

    Attributes:
        passed, error_type, error: the official checker's verdict (``error`` its message).
        turns_expected: turns in the ground truth.
        turns_run: turns the model answered (fewer when force-terminated).
        turns: each turn run, checked as BFCL checks turns (the state carried on).
        first_failed_turn, first_failure: the first turn that failed and why
            (``"<error_type>: <message>"``), or None.
        replay: with ``replay=True``, each turn checked from the ground truth's state
            before it (None otherwise).
    """

    passed: bool
    error_type: str | None
    error: str | None
    turns_expected: int
    turns_run: int
    turns: tuple[TurnCheck, ...] = ()
    replay: tuple[TurnCheck, ...] | None = None
    decoded: list[list[list[str]]] | None = field(default=None, repr=False)

    @property
    def turns_passed(self) -> int:
        return sum(t.passed for t in self.turns)

    @property
    def replay_turns_passed(self) -> int | None:
        return None if self.replay is None else sum(t.passed for t in self.replay)

    @property
    def first_failed_turn(self) -> int | None:
        """The first turn that failed; for a failed entry none of whose turns could be
        checked (a result that is not turns), the first turn not checked."""
        found = next((i for i, t in enumerate(self.turns) if not t.passed), None)
        if found is None and not self.passed:
            return len(self.turns)
        return found

    @property
    def first_failure(self) -> str | None:
        i = self.first_failed_turn
        if i is None:
            return None
        if i == len(self.turns):
            return f"{self.error_type}: {self.error}"
        t = self.turns[i]
        return f"{t.error_type}: {t.error}"


def decode_turns(result: Sequence[Any], mode: ExecuteMode) -> list[list[list[str]]]:
    """Each turn's decoded steps (the call texts of each step with a call), as BFCL's runner
    decodes them. Raises TypeError for a turn that cannot be iterated."""
    out = []
    for turn in result:
        steps = []
        for step in turn:
            try:
                calls = decode_execute(step, mode)
            except DecodeError:
                continue
            if not is_empty_execute(calls):
                steps.append(calls)
        out.append(steps)
    return out


def multi_turn_verdict(
    result: Any,
    entry: Mapping[str, Any],
    truth: Sequence[Sequence[str]],
    mode: ExecuteMode,
    *,
    model_name: str = "tooleval",
    replay: bool = False,
    credit: bool = True,
) -> MultiTurnVerdict:
    """The official verdict of one entry's ``result`` and, with ``credit``, every turn's
    check (and with ``replay``, the replayed turns).

    Args:
        result: the entry's ``result`` as written in the result file.
        entry: the question entry (``id``, ``involved_classes``, ``initial_config``).
        truth: the ground truth: per turn, the call texts.
        mode: ``fc`` or ``prompt``: how the steps are decoded (BFCL's handler's decoder).
        model_name: the result folder's model name, as BFCL's checker names its instances
            (it matters only where a string argument contains ``method(``).
        credit: check every turn (False: stop at the first failure, as BFCL).
    """
    with collector_paused(collect_young=True):  # the environments allocate much, keep none
        return _verdict(result, entry, truth, mode, model_name, replay, credit)


def _verdict(
    result: Any,
    entry: Mapping[str, Any],
    truth: Sequence[Sequence[str]],
    mode: ExecuteMode,
    model_name: str,
    replay: bool,
    credit: bool,
) -> MultiTurnVerdict:
    n_truth = len(truth)
    if type(result) is not list:
        return MultiTurnVerdict(
            False, INFERENCE_ERROR, _NOT_A_LIST, n_truth, 0, replay=() if replay else None
        )
    forced = len(result) != n_truth
    try:
        decoded = decode_turns(result, mode)
    except TypeError:
        if forced:  # BFCL tells this before it decodes
            return MultiTurnVerdict(
                False,
                FORCE_TERMINATED,
                _forced_message(len(result), n_truth),
                n_truth,
                len(result),
                replay=() if replay else None,
            )
        bad = next(i for i, t in enumerate(result) if not _iterable(t))
        return MultiTurnVerdict(
            False,
            INFERENCE_ERROR,
            f"{_NOT_A_LIST} Turn {bad} is a {type(result[bad]).__name__}, "
            "not a list of steps (BFCL's checker stops on it).",
            n_truth,
            len(result),
            replay=() if replay else None,
        )
    if forced and not credit:
        return MultiTurnVerdict(
            False, FORCE_TERMINATED, _forced_message(len(result), n_truth), n_truth, len(result)
        )
    turns = _check_turns(decoded, truth, entry, model_name, stop=not credit)
    replayed = _replay_turns(decoded, truth, entry, model_name) if replay else None
    if forced:
        if turns and len(result) <= n_truth:  # the last turn run is the one stopped
            turns[-1] = TurnCheck(False, FORCE_TERMINATED, "the step limit stopped this turn")
        turns += [TurnCheck(False, FORCE_TERMINATED, "a turn the ground truth does not have")] * (
            len(result) - n_truth
        )
        return MultiTurnVerdict(
            False,
            FORCE_TERMINATED,
            _forced_message(len(result), n_truth),
            n_truth,
            len(result),
            tuple(turns),
            replayed,
            decoded,
        )
    failed = next((t for t in turns if not t.passed), None)
    if failed is None:
        return MultiTurnVerdict(True, None, None, n_truth, n_truth, tuple(turns), replayed, decoded)
    return MultiTurnVerdict(
        False, failed.error_type, failed.error, n_truth, n_truth, tuple(turns), replayed, decoded
    )


def _iterable(value: Any) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _forced_message(n_model: int, n_truth: int) -> str:
    return (
        "Model was force-terminated during inference phase. The length of the model result "
        f"turns ({n_model}) does not match the length of the ground truth turns "
        f"({n_truth})."
    )


def _environments(entry: Mapping[str, Any], model_name: str) -> Environments:
    return Environments.from_entry(entry, model_name=model_name, evaluation=True)


def _check_turns(
    decoded: list[list[list[str]]],
    truth: Sequence[Sequence[str]],
    entry: Mapping[str, Any],
    model_name: str,
    stop: bool,
) -> list[TurnCheck]:
    """BFCL's ``multi_turn_checker``, turn by turn (``stop``: at the first failure, as BFCL;
    else every turn, the model's state carried on)."""
    model = _environments(entry, model_name)
    # the ground truth's instances start as the model's do: a copy of them is what loading
    # the entry's configuration again makes, in less time
    ground = model.copy(model_name=_eval_name(model_name + "_ground_truth"))
    so_far: list[str] = []
    out: list[TurnCheck] = []
    for i, (steps, calls) in enumerate(zip(decoded, truth, strict=False)):
        for step in steps:
            so_far.extend(model.execute(step))
        expected = ground.execute(calls)
        check = _turn(i, steps, calls, model, ground, so_far, expected)
        out.append(check)
        if stop and not check.passed:
            break
    return out


def _turn(
    i: int,
    steps: list[list[str]],
    calls: Sequence[str],
    model: Environments,
    ground: Environments,
    results: list[str],
    expected: list[str],
) -> TurnCheck:
    if not calls:
        return TurnCheck(True)  # the model should not act here: BFCL does not check it
    if not steps:
        return TurnCheck(False, EMPTY_TURN, f"Model response list is empty for turn {i}")
    differences = model.differences(ground)
    if differences:
        name = next(iter(differences))
        return TurnCheck(
            False,
            STATE_MISMATCH,
            f"Model instance for {name} does not match the state with ground truth instance.",
            differences,
        )
    missing = _missing(expected, results)
    if missing:
        return TurnCheck(
            False,
            RESPONSE_MISMATCH,
            "Model response execution results so far "
            "does not contain all the ground truth response execution results "
            f"for turn {i}.",
            missing,
        )
    return TurnCheck(True)


def _missing(expected: list[str], results: list[str]) -> list[str]:
    """BFCL's ``_is_subsequence_unordered``: the expected results not among ``results``
    (each result used once)."""
    have = Counter(results)
    missing = []
    for item in expected:
        if have[item] > 0:
            have[item] -= 1
        else:
            missing.append(item)
    return missing


def _replay_turns(
    decoded: list[list[list[str]]],
    truth: Sequence[Sequence[str]],
    entry: Mapping[str, Any],
    model_name: str,
) -> tuple[TurnCheck, ...]:
    """Each turn from the ground truth's state after the turns before it."""
    ground = _environments(entry, model_name + "_ground_truth")
    out = []
    for i, (steps, calls) in enumerate(zip(decoded, truth, strict=False)):
        model = ground.copy(model_name=_eval_name(model_name))
        results: list[str] = []
        for step in steps:
            results.extend(model.execute(step))
        expected = ground.execute(calls)
        out.append(_turn(i, steps, calls, model, ground, results, expected))
    return tuple(out)


def _eval_name(model_name: str) -> str:
    return model_name + "_eval"
