"""BFCL entries as a :class:`~tooleval_nb.suite.Suite` the runner can run, in either mode.

One case per entry, its id the BFCL id, its category the BFCL category, its tools BFCL's
native-tool schemas (:func:`.prompt.bfcl_tools`) and its expected calls the possible answer
(so the runner's partial-credit scores apply). The messages depend on the mode:

* ``fc``: the entry's first turn as is; the tools are offered natively.
* ``prompt``: BFCL's system prompt (functions as JSON) then the first turn; the run sends no
  ``tools`` (``tool_choice="none"``), so the model sees only BFCL's own text.

Metadata keeps ``bfcl_mode`` and ``bfcl_language``. Pure: entries in, suite out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError

from ..errors import SuiteError
from ..suite import EvalCase, ExpectedCall, Suite, case_problems
from .categories import is_relevance, language_of
from .data import CategoryData
from .prompt import PromptFormat, bfcl_tools, fc_messages, prompt_messages

__all__ = ["BfclMode", "BFCL_MODES", "build_suite", "entry_case"]

BfclMode = Literal["fc", "prompt"]
BFCL_MODES: tuple[str, ...] = ("fc", "prompt")


def entry_case(entry: dict[str, Any], ground_truth: list[Any] | None, category: str,
               mode: BfclMode, prompt_format: PromptFormat = "python") -> EvalCase:
    """One BFCL entry as a case (SuiteError naming the entry and the field when it cannot)."""
    entry_id = entry["id"]
    try:
        tools = bfcl_tools(entry["function"], category)
    except (ValidationError, KeyError, TypeError, AttributeError) as exc:
        raise SuiteError(f"BFCL entry {entry_id!r} ({category}): field function: cannot be "
                         f"offered as tools: {exc}") from None
    messages = (fc_messages(entry) if mode == "fc"
                else prompt_messages(entry, category, prompt_format))
    data: dict[str, Any] = {
        "id": entry_id, "messages": messages, "tools": tools, "category": category,
        "tags": ["bfcl", category],
        "metadata": {"bfcl_mode": mode, "bfcl_language": language_of(category).lower()}}
    if ground_truth:
        data["expected_calls"] = [ExpectedCall(name=name, arguments=args)
                                  for call in ground_truth for name, args in call.items()]
    elif category == "live_relevance":
        data["expected_tool"] = [t.name for t in tools] or None
    elif not is_relevance(category):
        raise SuiteError(f"BFCL entry {entry_id!r} ({category}): field ground_truth: empty; "
                         "the possible-answer file does not match the questions")
    try:
        case = EvalCase.model_validate(data)
    except ValidationError as exc:
        raise SuiteError(f"BFCL entry {entry_id!r} ({category}): {exc}") from None
    own = case_problems(case, tools)
    if own:  # BFCL's data has a few inconsistencies of its own: acknowledged, as formats does
        case.metadata["bfcl_problems"] = own
    return case


def build_suite(categories: Sequence[CategoryData], mode: BfclMode, *,
                limit: int | None = None, prompt_format: PromptFormat = "python") -> Suite:
    """A suite of the first ``limit`` entries (all when None) of each category.

    The cases are interleaved across categories (the first entry of each, then the second...),
    so that a run cancelled part-way has a sample of every category, not only the first ones.
    """
    if mode not in BFCL_MODES:
        raise SuiteError(f"BFCL mode must be 'fc' (native tools) or 'prompt' (BFCL's system "
                         f"prompt, calls read from the text), not {mode!r}")
    if limit is not None and limit < 1:
        raise SuiteError(f"limit must be a positive number of entries per category, not {limit}")
    cases = []
    chosen = [data.head(limit) for data in categories]
    for i in range(max((len(q) for q in chosen), default=0)):
        for data, questions in zip(categories, chosen, strict=True):
            if i < len(questions):
                entry = questions[i]
                truth = data.answers.get(entry["id"]) if data.answers is not None else None
                cases.append(entry_case(entry, truth, data.category, mode, prompt_format))
    names = "+".join(d.category for d in categories)
    suffix = "" if mode == "fc" or prompt_format == "python" else f"_{prompt_format}"
    return Suite(name=f"bfcl_{mode}{suffix}", description=f"BFCL v4 ({mode}): {names}",
                 cases=cases)
