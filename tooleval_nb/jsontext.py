"""JSON text as the package writes it per case (compact, UTF-8 as is), and a model's reply read,
by pydantic-core's encoder and parser.

One definition for the JSON a run writes per case: the request body sent to a model, the stored
columns of a result row (``tool_calls``, ``expected``, ``tags``, ``detail``), the stored
events and the experiment tables' JSON columns (the run store's :func:`dumps`); and the reader of the model's reply on the direct path. (Stored columns read back and the
reply cache still use the standard library's ``json``; the cache's keys must stay as they are.)
pydantic-core (Rust) writes these in a third to a half of the standard library's time and reads
a reply in under half, and JSON was the largest single cost of a case's CPU (issue 31). Pure;
imports nothing of ours.

What it writes, against ``json.dumps(value, ensure_ascii=False, separators=(",", ":"),
default=str)``: the same text for the values a run builds (dicts with string keys, lists,
strings, ints, bools, None, floats), except that a float in exponent form is written without
the leading zero of its exponent (``1e-5``, not ``1e-05``; the same number) and a ``None`` key as
``"None"`` (the standard library writes ``"null"``). Other values are written as pydantic writes
them (a tuple or a set as a list, a datetime in ISO form, a pydantic model or a dataclass as an
object), and what pydantic cannot write is written as ``str(value)``.
``NaN`` and ``Infinity`` are written as the standard library writes them. The request body is
strict (:func:`dumps_bytes`): a value pydantic cannot write raises, as ``json.dumps`` did, instead
of reaching the server as its ``str()``.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json, to_json

__all__ = ["dumps", "dumps_bytes", "loads"]


def dumps_bytes(value: Any) -> bytes:
    """``value`` as compact JSON, UTF-8 encoded; a value pydantic cannot write raises
    (``pydantic_core.PydanticSerializationError``, a ``ValueError``): what is sent is sent as
    written or not at all."""
    return to_json(value, inf_nan_mode="constants")


def dumps(value: Any) -> str:
    """``value`` as compact JSON text."""
    return to_json(value, fallback=str, inf_nan_mode="constants").decode()


def loads(data: bytes | str) -> Any:
    """The value of a JSON text (``json.loads``' values: dicts, lists, str, int, float, bool,
    None; ``NaN`` and ``Infinity`` accepted). Raises ``ValueError`` on a text that is not JSON."""
    return from_json(data)
