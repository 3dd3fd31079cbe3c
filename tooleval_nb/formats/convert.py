"""Converting a suite between file formats, and listing what the target format cannot hold.

The formats are those of :mod:`tooleval_nb.formats`: seed-001 JSON, seed-002 YAML and BFCL
(question and possible-answer JSON lines in a folder). What a conversion loses is found by
reading the written file back and comparing it with the suite, case by case, on what a run uses:
the conversation, the tools offered, the expected calls, and every other case field. A field that
only moved (BFCL keeps the prompt and the system prompt as messages, and the tools per case) is
not a loss.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import SuiteError, ToolEvalError
from ..suite import EvalCase, Suite
from . import SuiteFormat, load_suite, save_bfcl, save_suite

__all__ = ["Conversion", "convert_suite", "target_format", "conversion_losses"]

#: case fields compared through what they mean rather than one by one
_VIEWED = {
    "id",
    "prompt",
    "messages",
    "tools",
    "expected_tool",
    "expected_params",
    "expected_calls",
    "metadata",
    "category",
}


class Conversion(BaseModel):
    """What :func:`convert_suite` did."""

    source: str
    format: SuiteFormat
    files: list[str]
    n_cases: int
    #: what the target format could not hold, each naming the case and the field
    lost: list[str]


def target_format(path: str | os.PathLike[str], to: SuiteFormat | None = None) -> SuiteFormat:
    """The format to write ``path`` in: ``to``, else by its ending (``.json`` seed JSON,
    ``.yaml``/``.yml`` seed-002 YAML, a folder or no ending BFCL)."""
    if to is not None:
        return to
    suffix = Path(path).suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "seed_yaml"
    if suffix == ".json":
        return "seed_json"
    if suffix == "":
        return "bfcl"
    raise ToolEvalError(
        f"{path}: cannot tell the target format from {suffix!r}; end it in "
        ".json or .yaml, give a folder for BFCL, or pass --to"
    )


def _tools(suite: Suite, case: EvalCase) -> list[dict[str, Any]]:
    return sorted(
        (t.to_openai() for t in suite.tools_for(case)), key=lambda t: t["function"]["name"]
    )


def _calls(case: EvalCase) -> list[Any]:
    return [c.model_dump(mode="json", exclude_defaults=True) for c in case.expected_call_list()]


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def conversion_losses(before: Suite, after: Suite) -> list[str]:
    """What ``before`` held that ``after`` (the same suite read back from another format) does
    not, each naming the case and the field; [] when nothing was lost."""
    lost: list[str] = []
    for field in ("name", "description"):
        if getattr(before, field) and getattr(before, field) != getattr(after, field):
            lost.append(
                f"suite field {field}: {_short(getattr(before, field))} became "
                f"{_short(getattr(after, field))}"
            )
    if len(after.cases) != len(before.cases):
        lost.append(f"cases: {len(before.cases)} written, {len(after.cases)} read back")
    for i, (old, new) in enumerate(zip(before.cases, after.cases, strict=False)):
        where = f"case {i} ({old.label!r})"
        if old.to_messages(before.system_prompt) != new.to_messages(after.system_prompt):
            lost.append(f"{where}: the conversation (prompt, messages, system prompt) changed")
        if _tools(before, old) != _tools(after, new):
            lost.append(f"{where}: field tools: the tools offered changed (names or schemas)")
        if _calls(old) != _calls(new):
            lost.append(
                f"{where}: field expected_tool/expected_params/expected_calls: "
                f"{_short(_calls(old))} became {_short(_calls(new))}"
            )
        if (
            isinstance(old.expected_tool, list)
            and len(old.expected_tool) > 1
            and (new.expected_names() != old.expected_names())
        ):
            lost.append(
                f"{where}: field expected_tool: only {new.expected_names()!r} of the "
                f"acceptable names {old.expected_tool!r} kept"
            )
        dumped_old = old.model_dump(mode="json", exclude_defaults=True)
        dumped_new = new.model_dump(mode="json", exclude_defaults=True)
        for key, value in dumped_old.items():
            if key in _VIEWED or key == "name" and new.id == old.name:
                continue
            if dumped_new.get(key) != value:
                lost.append(f"{where}: field {key}: {_short(value)} is not kept")
    return lost


def convert_suite(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    to: SuiteFormat | None = None,
    *,
    overwrite: bool = False,
) -> Conversion:
    """Read the suite file ``source`` and write it to ``target`` in format ``to`` (by default
    chosen by :func:`target_format`); returns what was written and what was lost.

    Raises:
        SuiteError: ``source`` does not load (every problem listed), or holds several suites.
        ToolEvalError: ``target`` exists (pass ``overwrite``), or its format is unclear.
    """
    fmt = target_format(target, to)
    loaded = load_suite(source)
    if isinstance(loaded, list):
        if len(loaded) != 1:
            raise SuiteError(
                f"{source} holds {len(loaded)} suites; convert one file at a time", path=str(source)
            )
        loaded = loaded[0]
    out = Path(target)
    if out.exists() and not overwrite and (out.is_file() or any(out.iterdir())):
        raise ToolEvalError(f"{out} exists; pass --force to overwrite it, or choose another OUT")
    if fmt == "bfcl":
        questions, answers = save_bfcl(loaded, out)
        files = [questions] + ([answers] if answers else [])
        try:
            back = load_suite(questions, "bfcl")
        except SuiteError as exc:  # e.g. no case expects a call: no answer file to read
            return Conversion(
                source=str(source),
                format=fmt,
                files=files,
                n_cases=len(loaded.cases),
                lost=[
                    f"the written BFCL files do not read back ({exc}); BFCL "
                    "cannot hold this suite's expectations"
                ],
            )
    else:
        if out.suffix.lower() not in ((".yaml", ".yml") if fmt == "seed_yaml" else (".json",)):
            raise ToolEvalError(
                f"{out}: a {fmt} file must end in {'.yaml' if fmt == 'seed_yaml' else '.json'}"
            )
        save_suite(loaded, out)
        files = [str(out)]
        back = load_suite(out, fmt)
    assert isinstance(back, Suite)
    return Conversion(
        source=str(source),
        format=fmt,
        files=files,
        n_cases=len(loaded.cases),
        lost=conversion_losses(loaded, back),
    )
