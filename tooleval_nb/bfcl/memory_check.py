"""BFCL's verdict of one memory entry (the agentic checker), equal to the official one.

As bfcl-eval's ``eval_runner._evaluate_single_agentic_entry`` and ``agentic_checker``: the
``result`` must be a list of one turn (else ``agentic:inference_error``); each step of that turn
is decoded (:func:`.environments.decode_execute`), and the last step that holds no call (it
cannot be decoded, or decodes to none) is the model's answer; without one (or when that answer
is empty), ``agentic:no_last_message``. The answer passes when one of the possible answers,
both standardised (case, whitespace and ``,./-_*^()`` ignored, ``'`` read as ``"``), occurs in
it between word boundaries; else ``agentic:answer_not_found``. A turn that cannot be iterated
(a number) makes BFCL's checker crash: here it is an ``agentic:inference_error``.

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..bfcl_rules.decode import DecodeError
from .environments import ExecuteMode, decode_execute, is_empty_execute

__all__ = [
    "MemoryVerdict",
    "memory_verdict",
    "standardize",
    "INFERENCE_ERROR",
    "NO_LAST_MESSAGE",
    "ANSWER_NOT_FOUND",
]

INFERENCE_ERROR = "agentic:inference_error"
NO_LAST_MESSAGE = "agentic:no_last_message"
ANSWER_NOT_FOUND = "agentic:answer_not_found"

_PUNCTUATION = re.compile(r"[,./\-_*^()]")


@dataclass(frozen=True)
class MemoryVerdict:
    """``passed``, else BFCL's ``error_type`` and message; ``answer``: the model's last
    message without a call (the text checked), ``steps``: the steps of its turn."""

    passed: bool
    error_type: str | None = None
    error: str | None = None
    answer: Any = None
    steps: int = 0


def standardize(text: str) -> str:
    """BFCL's ``standardize_string``: ``,./-_*^()`` removed, lower case, ``'`` as ``"``."""
    return _PUNCTUATION.sub("", text).lower().replace("'", '"')


def memory_verdict(
    result: Any, possible_answers: Sequence[str], mode: ExecuteMode
) -> MemoryVerdict:
    """The official verdict of one memory entry's ``result``."""
    if type(result) is not list or len(result) != 1:
        return MemoryVerdict(
            False,
            INFERENCE_ERROR,
            "Error during inference phase. Model did not output a list of model responses.",
        )
    turn = result[0]
    try:
        steps = list(turn)
    except TypeError:
        return MemoryVerdict(
            False,
            INFERENCE_ERROR,
            f"The turn is a {type(turn).__name__}, "
            "not a list of steps (BFCL's checker stops on it).",
        )
    last = None
    for step in steps:
        try:
            calls = decode_execute(step, mode)
        except DecodeError:
            last = step
            continue
        if is_empty_execute(calls):
            last = step
    if not last:
        return MemoryVerdict(
            False,
            NO_LAST_MESSAGE,
            "Cannot find the last chat message that is not a function call.",
            last,
            len(steps),
        )
    text = last[0] if type(last) is list else last
    if type(text) is not str:
        text = str(text)
    found = standardize(text)
    for answer in possible_answers:
        if re.search(rf"\b{re.escape(standardize(answer))}\b", found):
            return MemoryVerdict(True, answer=last, steps=len(steps))
    return MemoryVerdict(
        False,
        ANSWER_NOT_FOUND,
        "None of the expected answers were found in the model response.",
        last,
        len(steps),
    )
