"""BFCL entries as a :class:`~tooleval_nb.suite.Suite` the runner can run, in either mode.

One case per entry, its id the BFCL id, its category the BFCL category, its tools BFCL's
native-tool schemas (:func:`tooleval_nb.bfcl_rules.prompt.bfcl_tools`) and its expected calls
the possible answer (so the runner's partial-credit scores apply). The messages depend on the mode:

* ``fc``: the entry's first turn as is; the tools are offered natively.
* ``prompt``: BFCL's system prompt (functions as JSON) then the first turn; the run sends no
  ``tools`` (``tool_choice="none"``), so the model sees only BFCL's own text.

Metadata keeps ``bfcl_mode`` and ``bfcl_language``. Pure: entries in, suite out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError

from ..bfcl_rules.categories import is_relevance, language_of
from ..bfcl_rules.data import CategoryData
from ..bfcl_rules.prompt import PromptFormat, bfcl_tools, fc_messages, prompt_messages
from ..errors import SuiteError
from ..suite import EvalCase, ExpectedCall, Suite, Tool, case_problems

__all__ = ["BfclMode", "BFCL_MODES", "build_suite", "entry_case"]

BfclMode = Literal["fc", "prompt"]
BFCL_MODES: tuple[str, ...] = ("fc", "prompt")


def entry_case(
    entry: dict[str, Any],
    ground_truth: list[Any] | None,
    category: str,
    mode: BfclMode,
    prompt_format: PromptFormat = "python",
    *,
    tools: list[Tool] | None = None,
) -> EvalCase:
    """One BFCL entry as a case (SuiteError naming the entry and the field when it cannot).

    ``tools``: the entry's tools when the caller built them already (:func:`build_suite`
    builds them once per distinct function list); else built here.
    """
    entry_id = entry["id"]
    if tools is None:
        tools = _entry_tools(entry, category)
    messages = (
        fc_messages(entry) if mode == "fc" else prompt_messages(entry, category, prompt_format)
    )
    data: dict[str, Any] = {
        "id": entry_id,
        "messages": messages,
        "tools": tools,
        "category": category,
        "tags": ["bfcl", category],
        "metadata": {"bfcl_mode": mode, "bfcl_language": language_of(category).lower()},
    }
    if ground_truth:
        data["expected_calls"] = [
            ExpectedCall(name=name, arguments=args)
            for call in ground_truth
            for name, args in call.items()
        ]
    elif category == "live_relevance":
        data["expected_tool"] = [t.name for t in tools] or None
    elif not is_relevance(category):
        raise SuiteError(
            f"BFCL entry {entry_id!r} ({category}): field ground_truth: empty; "
            "the possible-answer file does not match the questions"
        )
    try:
        case = EvalCase.model_validate(data)
    except ValidationError as exc:
        raise SuiteError(f"BFCL entry {entry_id!r} ({category}): {exc}") from None
    own = case_problems(case, tools)
    if own:  # BFCL's data has a few inconsistencies of its own: acknowledged, as formats does
        case.metadata["bfcl_problems"] = own
    return case


def _entry_tools(entry: dict[str, Any], category: str) -> list[Tool]:
    try:
        return bfcl_tools(entry["function"], category)
    except (ValidationError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SuiteError(
            f"BFCL entry {entry['id']!r} ({category}): field function: cannot be "
            f"offered as tools: {exc}"
        ) from None


def build_suite(
    categories: Sequence[CategoryData],
    mode: BfclMode,
    *,
    limit: int | None = None,
    prompt_format: PromptFormat = "python",
) -> Suite:
    """A suite of the first ``limit`` entries (all when None) of each category.

    The cases are interleaved across categories (the first entry of each, then the second...),
    so that a run cancelled part-way has a sample of every category, not only the first ones.

    Entries with the same functions (the live categories repeat a few function lists many
    times) share one list of :class:`Tool` objects, built once. The suite equals
    ``Suite(name=..., cases=...)``, without running its cross-checks a second time: each case
    was checked against its tools when built, and kept what BFCL's own data gets wrong as
    acknowledged problems, which the suite's checks skip (ids are BFCL's, unique; a repeated
    id goes through the suite's own validation, which makes it unique).
    """
    if mode not in BFCL_MODES:
        raise SuiteError(
            f"BFCL mode must be 'fc' (native tools) or 'prompt' (BFCL's system "
            f"prompt, calls read from the text), not {mode!r}"
        )
    if limit is not None and limit < 1:
        raise SuiteError(f"limit must be a positive number of entries per category, not {limit}")
    cases = []
    built: dict[tuple[str, str], list[Tool]] = {}
    chosen = [data.head(limit) for data in categories]
    for i in range(max((len(q) for q in chosen), default=0)):
        for data, questions in zip(categories, chosen, strict=True):
            if i < len(questions):
                entry = questions[i]
                truth = data.answers.get(entry["id"]) if data.answers is not None else None
                key = (language_of(data.category), _functions_key(entry))
                tools = built.get(key)
                if tools is None:
                    tools = built[key] = _entry_tools(entry, data.category)
                cases.append(
                    entry_case(entry, truth, data.category, mode, prompt_format, tools=tools)
                )
    names = "+".join(d.category for d in categories)
    suffix = "" if mode == "fc" or prompt_format == "python" else f"_{prompt_format}"
    name, description = f"bfcl_{mode}{suffix}", f"BFCL v4 ({mode}): {names}"
    if len({c.id for c in cases}) < len(cases):
        return Suite(name=name, description=description, cases=cases)
    return Suite.model_construct(name=name, description=description, cases=cases)


def _functions_key(entry: dict[str, Any]) -> str:
    """An entry's function list as text: entries with the same text get the same tools (keys
    in their own order: a model is sent them in that order)."""
    try:
        return json.dumps(entry.get("function"))
    except (TypeError, ValueError):
        return f"entry:{entry.get('id')}"  # not JSON data: its own tools (or its own error)
