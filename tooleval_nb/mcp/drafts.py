"""Draft cases: a model writes one realistic prompt per tool, with the call that answers it.

Prompts generated from tool descriptions are often poor (the seed warns about vague MCP
descriptions), so drafts are marked ``draft=True`` and tagged ``draft``: a person reviews them
(in the suite editor or in code) and accepts them with :func:`accept_drafts`; until then they do
not count. A draft remembers where it came from in ``metadata["draft"]``: the model, whether the
model's answer was usable or a template had to stand in, and what was dropped or is missing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

from ..aio import run_sync
from ..errors import SuiteError
from ..models import DEFAULT_MODEL, aclose, call_model_async
from ..suite import EvalCase, FunctionDef, Suite, Tool
from .extract import (
    clean_arguments,
    enum_values,
    extract_json_object,
    fill_required,
    param_schema,
    salvage_fields,
)

__all__ = [
    "draft_cases",
    "draft_cases_async",
    "draft_case_async",
    "accept_drafts",
    "discard_drafts",
    "DRAFT_TAG",
]

DRAFT_TAG = "draft"

_SYSTEM = (
    "You write test cases for a benchmark of tool-calling assistants. Given one tool, write one "
    "realistic request that a user might type and that needs this tool, and the arguments the "
    "tool should be called with to answer it. Use concrete values. Reply with only a JSON object: "
    '{"prompt": "<the user request>", "arguments": {<parameter>: <value>}}'
)
_EXAMPLE_TOOL = Tool.model_construct(
    function=FunctionDef.model_construct(
        name="get_stock_price",
        description="Get the latest price of a stock.",
        parameters={
            "type": "object",
            "required": ["symbol"],
            "properties": {
                "symbol": {"type": "string", "description": "ticker symbol"},
                "currency": {"type": "string", "enum": ["USD", "EUR"]},
            },
        },
    )
)
_EXAMPLE_PROMPT = "How much is one Apple share in euros right now?"
_EXAMPLE_ANSWER = json.dumps(
    {"prompt": _EXAMPLE_PROMPT, "arguments": {"symbol": "AAPL", "currency": "EUR"}}
)


def describe_tool(tool: Tool) -> str:
    """A compact plain-text description of a tool, easier on a small model than raw JSON.

    Local ``$ref``s are resolved, so an enum parameter shows its type and values (and
    ``Unit | None`` shows as ``string or null; one of ...``).
    """
    lines = [
        f"Tool: {tool.name}",
        f"Description: {tool.function.description or '(none)'}",
        "Parameters:",
    ]
    required = set(tool.required)
    for name in tool.properties:
        schema = param_schema(tool, name)
        bits = [_type_text(schema)]
        if name in required:
            bits.append("required")
        enum = enum_values(schema)
        if isinstance(enum, list):
            bits.append("one of " + ", ".join(json.dumps(v) for v in enum))
        if "default" in schema:
            bits.append(f"default {json.dumps(schema['default'])}")
        text = schema.get("description") or ""
        lines.append(f"- {name} ({'; '.join(bits)})" + (f": {text}" if text else ""))
    if not tool.properties:
        lines.append("- (none)")
    return "\n".join(lines)


def _type_text(schema: dict[str, Any]) -> str:
    """``string``, ``string or null`` (from ``type`` lists and ``anyOf`` / ``oneOf``), or ``any``."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list) and kind:
        return " or ".join(map(str, kind))
    kinds: list[str] = []
    for word in ("anyOf", "oneOf"):
        branches = schema.get(word)
        for branch in branches if isinstance(branches, list) else []:
            sub = branch.get("type") if isinstance(branch, dict) else None
            for k in sub if isinstance(sub, list) else [sub] if isinstance(sub, str) else []:
                if k not in kinds:
                    kinds.append(k)
    if kinds:
        return " or ".join(kinds)
    return (
        "string"
        if isinstance(schema.get("enum"), list) and all(isinstance(v, str) for v in schema["enum"])
        else "any"
    )


def _messages(tool: Tool) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": describe_tool(_EXAMPLE_TOOL)},
        {"role": "assistant", "content": _EXAMPLE_ANSWER},
        {"role": "user", "content": describe_tool(tool)},
    ]


async def draft_case_async(
    tool: Tool,
    model: Any = None,
    *,
    index: int = 0,
    timeout: float | None = None,
    temperature: float = 0.0,
    fallback: bool = True,
    **params: Any,
) -> EvalCase | None:
    """Ask ``model`` for one draft case for ``tool``.

    Returns the case (``draft=True``), or None when the model's answer is unusable and
    ``fallback`` is off; with ``fallback`` a template case stands in (and says so).
    """
    model = DEFAULT_MODEL if model is None else model
    reply = await call_model_async(
        model, _messages(tool), timeout=timeout, temperature=temperature, **params
    )
    raw = reply.raw_text if reply.raw_text is not None else reply.content
    problems: list[str] = []
    prompt: str | None = None
    arguments: dict[str, Any] = {}
    if reply.error:
        problems.append(f"the model call failed: {reply.error}")
    else:
        data = extract_json_object(raw, want="prompt")
        if data is None or not isinstance(data.get("prompt"), str):
            # JSON too broken to parse whole: pick out the fields one by one
            salvaged = salvage_fields(raw, ["prompt", *tool.properties])
            problems.append(
                "the model's JSON was malformed; fields were salvaged one by one"
                if salvaged
                else "the model's answer holds no usable JSON object"
            )
            data = {"prompt": salvaged.pop("prompt", None), "arguments": salvaged}
        prompt = _clean_prompt(data.get("prompt"), problems)
        args = data.get("arguments", data.get("parameters"))
        if args is None:  # arguments given at the top level, next to the prompt
            args = {k: v for k, v in data.items() if k in tool.properties}
        arguments, notes = clean_arguments(tool, args)
        problems.extend(notes)
    source = "model"
    if prompt is None:
        if not fallback:
            return None
        source = "template"
        prompt = _template_prompt(tool)
        arguments = {}
    arguments, missing = fill_required(tool, arguments)
    problems.extend(missing)
    model_name = model if isinstance(model, str) else getattr(model, "model", str(model))
    suffix = f"_{index + 1}" if index else ""
    return EvalCase(
        id=f"draft_{tool.api_name}{suffix}",
        name=f"{tool.name} (draft{suffix})",
        prompt=prompt,
        expected_tool=tool.name,
        expected_params=arguments or None,
        tags=[DRAFT_TAG, "mcp"],
        draft=True,
        metadata={
            "draft": {
                "model": model_name,
                "source": source,
                "problems": problems,
                "raw": (raw or "")[:2000],
            }
        },
    )


def _clean_prompt(text: Any, problems: list[str]) -> str | None:
    if not isinstance(text, str):
        problems.append("the model gave no prompt")
        return None
    text = " ".join(text.split()).strip("{}[] ")
    if len(text) < 8 or "{" in text:
        problems.append(f"the model's prompt is unusable: {text!r}")
        return None
    if text.rstrip("?.!").lower() == _EXAMPLE_PROMPT.rstrip("?.!").lower():
        problems.append("the model copied the example prompt")
        return None
    return text


def _template_prompt(tool: Tool) -> str:
    what = (tool.function.description or tool.name.replace("_", " ")).rstrip(". ")
    return f"{what[0].lower() + what[1:] if what else tool.name}: please help me with this."


async def draft_cases_async(
    suite: Suite,
    model: Any = None,
    *,
    tools: Iterable[str] | None = None,
    per_tool: int = 1,
    timeout: float | None = None,
    temperature: float | None = None,
    concurrency: int = 4,
    fallback: bool = True,
    **params: Any,
) -> Suite:
    """A copy of ``suite`` with draft cases added: ``per_tool`` for each tool.

    Args:
        suite: the suite, typically fresh from :func:`~tooleval_nb.mcp.import_mcp`.
        model: the model that writes the drafts; default the embedded one
            (``tooleval_nb.models.DEFAULT_MODEL``). Any model string or ModelSpec works.
        tools: only draft for these tool names (default: every tool).
        per_tool: drafts per tool.
        timeout: seconds allowed for each model call (None: ``models.DEFAULT_TIMEOUT``; the
            embedded model's own for the embedded one).
        temperature: sampling temperature; default 0 for one draft per tool, 0.8 for several.
        concurrency: model calls in flight at once.
        fallback: when the model's answer is unusable, add a template draft (flagged as such in
            ``metadata["draft"]["source"]``) instead of nothing.
        **params: passed to ``call_model_async`` (e.g. ``api_base``, ``max_tokens``).

    Returns:
        A new suite; the drafts have ``draft=True`` and the tag ``draft`` and never count until
        :func:`accept_drafts` accepts them.

    Raises:
        SuiteError: a name in ``tools`` is not a tool of the suite.
    """
    chosen = _chosen_tools(suite, tools)
    temp = temperature if temperature is not None else (0.0 if per_tool == 1 else 0.8)
    limit = asyncio.Semaphore(max(1, concurrency))
    params.setdefault("max_tokens", 256)

    async def one(tool: Tool, index: int) -> EvalCase | None:
        async with limit:
            return await draft_case_async(
                tool,
                model,
                index=index,
                timeout=timeout,
                temperature=temp,
                fallback=fallback,
                **params,
            )

    drafted = await asyncio.gather(*(one(t, i) for t in chosen for i in range(per_tool)))
    cases = [c for c in drafted if c is not None]
    return Suite(
        name=suite.name,
        description=suite.description,
        tools=suite.tools,
        cases=[*suite.cases, *cases],
        system_prompt=suite.system_prompt,
        source=suite.source,
    )


def draft_cases(
    suite: Suite,
    model: Any = None,
    *,
    tools: Iterable[str] | None = None,
    per_tool: int = 1,
    timeout: float | None = None,
    temperature: float | None = None,
    concurrency: int = 4,
    fallback: bool = True,
    **params: Any,
) -> Suite:
    """Sync twin of :func:`draft_cases_async` (usable in a notebook cell; it blocks)."""

    async def drafts_then_close() -> Suite:
        try:
            return await draft_cases_async(
                suite,
                model,
                tools=tools,
                per_tool=per_tool,
                timeout=timeout,
                temperature=temperature,
                concurrency=concurrency,
                fallback=fallback,
                **params,
            )
        finally:  # the HTTP session of the models package belongs to this short-lived loop
            await aclose()

    return run_sync(drafts_then_close)


def _chosen_tools(suite: Suite, names: Iterable[str] | None) -> list[Tool]:
    if names is None:
        return list(suite.tools)
    wanted = list(names)
    known = {t.name: t for t in suite.tools}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise SuiteError(
            f"suite {suite.name!r}: cannot draft cases for {unknown}: not tools of "
            f"the suite (it has: {', '.join(known) or 'none'})"
        )
    return [known[n] for n in wanted]


def _selected_drafts(suite: Suite, ids: Iterable[str] | None, verb: str) -> set[str]:
    drafts = {c.id for c in suite.cases if c.draft and c.id}
    if ids is None:
        return drafts
    wanted = set([ids] if isinstance(ids, str) else ids)
    unknown = sorted(wanted - drafts)
    if unknown:
        raise SuiteError(
            f"suite {suite.name!r}: cannot {verb} {unknown}: not draft cases "
            f"(drafts: {', '.join(sorted(drafts)) or 'none'})"
        )
    return wanted


def accept_drafts(suite: Suite, ids: Iterable[str] | None = None) -> Suite:
    """A copy of ``suite`` where the drafts ``ids`` (default: all) are ordinary cases.

    Accepted cases lose ``draft=True`` and the ``draft`` tag; ``metadata["draft"]`` is kept
    with ``accepted: True`` so their origin stays visible.

    Raises:
        SuiteError: an id is not a draft case of the suite.
    """
    chosen = _selected_drafts(suite, ids, "accept")
    cases = []
    for case in suite.cases:
        if case.id in chosen:
            meta = dict(case.metadata)
            meta["draft"] = {**meta.get("draft", {}), "accepted": True}
            case = case.model_copy(
                update={
                    "draft": False,
                    "tags": [t for t in case.tags if t != DRAFT_TAG],
                    "metadata": meta,
                }
            )
        cases.append(case)
    return suite.model_copy(update={"cases": cases})


def discard_drafts(suite: Suite, ids: Iterable[str] | None = None) -> Suite:
    """A copy of ``suite`` without the drafts ``ids`` (default: all drafts).

    Raises:
        SuiteError: an id is not a draft case of the suite.
    """
    chosen = _selected_drafts(suite, ids, "discard")
    return suite.model_copy(update={"cases": [c for c in suite.cases if c.id not in chosen]})
