"""The suite editor's "Import from MCP" logic, without widgets.

Read the form (:func:`import_request`), import a server's tools (:func:`fetch_tools_async`, the
only function here that does I/O), merge them into the edited tools without replacing any
(:func:`merge_tools`), add drafted cases with unique ids (:func:`add_drafts`) and turn a
reviewed draft into an ordinary case (:func:`clear_draft`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import MCPImportError
from ..mcp import resolve_target
from ..mcp.client import list_tools_async
from ..mcp.importer import suite_from_listing
from ..suite import EvalCase, Suite, Tool

__all__ = [
    "TRANSPORT_CHOICES",
    "ImportRequest",
    "ImportOutcome",
    "MergeResult",
    "import_request",
    "fetch_tools_async",
    "merge_tools",
    "add_drafts",
    "clear_draft",
    "draft_label",
    "DRAFT_TAG",
]

#: the transport dropdown: label -> what ``import_mcp`` is given (None: guessed from the target)
TRANSPORT_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("auto", None),
    ("sse", "sse"),
    ("streamable-http", "streamable_http"),
    ("stdio", "stdio"),
)
DRAFT_TAG = "draft"


@dataclass(frozen=True)
class ImportRequest:
    """What to import: the target as ``import_mcp`` takes it, the transport and the timeouts."""

    target: str | list[str]
    transport: str | None = None
    #: seconds for connecting and, again, for listing (None: the importer's defaults)
    timeout: float | None = None
    label: str = ""


@dataclass
class ImportOutcome:
    """An imported suite (no cases) and the warnings the import gave, one line each."""

    suite: Suite
    warnings: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0


@dataclass
class MergeResult:
    """The edited tools after an import."""

    tools: list[Tool]
    #: names of the imported tools that were added
    added: list[str] = field(default_factory=list)
    #: names of imported tools left out because the suite already has a tool of that name
    clashes: list[str] = field(default_factory=list)


def import_request(
    target: str, transport: str | None = None, timeout: float | None = None
) -> tuple[ImportRequest | None, list[str]]:
    """The import to make from the form's values, or the problems (nothing is contacted).

    Args:
        target: a URL, or the command line of a stdio server (split like a shell would).
        transport: a value of :data:`TRANSPORT_CHOICES` (None: guess from the target).
        timeout: seconds allowed for connecting and for listing; 0 or None: the defaults.
    """
    text = target.strip()
    if not text:
        return None, [
            "give the server's URL (e.g. http://127.0.0.1:8000/mcp) or the command "
            "line that starts it (e.g. python -m tooleval_nb.mcp.demo_server)"
        ]
    if timeout is not None and timeout < 0:
        return None, [f"timeout must be positive (or 0 for the defaults), got {timeout:g}"]
    try:
        resolved = resolve_target(text, transport)  # splits a command line like a shell
    except MCPImportError as exc:
        return None, [str(exc)]
    except ValueError as exc:  # an unclosed quote
        return None, [f"cannot read the command line: {exc}"]
    return ImportRequest(
        target=resolved.url or list(resolved.command or []),
        transport=resolved.transport,
        timeout=timeout or None,
        label=resolved.label,
    ), []


async def fetch_tools_async(request: ImportRequest) -> ImportOutcome:
    """Import the tools of ``request``'s server; warnings are returned, not issued.

    The same steps as :func:`tooleval_nb.mcp.import_mcp_async` (list, then convert), with the
    warnings caught around the synchronous conversion only, so that no other task's warnings
    are swallowed while this one waits on the server.

    Raises:
        MCPImportError: the server could not be reached, timed out or listed no usable tool.
    """
    limits: dict[str, Any] = {}
    if request.timeout:
        limits = {"connect_timeout": request.timeout, "list_timeout": request.timeout}
    listing = await list_tools_async(request.target, transport=request.transport, **limits)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        suite = suite_from_listing(listing)
    lines = [line.strip(" -") for w in caught for line in str(w.message).splitlines()]
    return ImportOutcome(
        suite=suite, warnings=[line for line in lines if line], elapsed_ms=listing.elapsed_ms
    )


def merge_tools(current: Sequence[Tool], imported: Sequence[Tool]) -> MergeResult:
    """``current`` plus the imported tools whose names are new (compared case-insensitively, as
    the editor's tool check does); an imported tool never replaces one the suite has."""
    taken = {t.name.lower() for t in current}
    result = MergeResult(tools=list(current))
    for tool in imported:
        if tool.name.lower() in taken:
            result.clashes.append(tool.name)
            continue
        taken.add(tool.name.lower())
        result.tools.append(tool)
        result.added.append(tool.name)
    return result


def add_drafts(cases: Sequence[EvalCase], drafts: Sequence[EvalCase]) -> list[EvalCase]:
    """``cases`` followed by ``drafts``; a draft whose id or name a case already has gets a
    number (``draft_calculate_2``, ``calculate (draft) #2``), as a suite wants both unique."""
    ids: set[str | None] = {c.id for c in cases if c.id}
    names: set[str | None] = {c.name for c in cases if c.name}
    out = list(cases)
    for draft in drafts:
        new_id, new_name, n = draft.id, draft.name, 1
        while (new_id and new_id in ids) or (new_name and new_name in names):
            n += 1
            new_id = f"{draft.id}_{n}" if draft.id else None
            new_name = f"{draft.name} #{n}" if draft.name else None
        if n > 1:
            draft = draft.model_copy(update={"id": new_id, "name": new_name})
        ids.add(new_id)
        names.add(new_name)
        out.append(draft)
    return out


def clear_draft(case: EvalCase, how: Literal["accepted", "edited"] = "accepted") -> EvalCase:
    """``case`` as an ordinary case: ``draft`` cleared, the ``draft`` tag dropped, and
    ``metadata["draft"]`` kept with ``accepted: True`` (and ``edited: True`` after an edit)."""
    if not case.draft:
        return case
    origin = {**case.metadata.get("draft", {}), "accepted": True}
    if how == "edited":
        origin["edited"] = True
    return case.model_copy(
        update={
            "draft": False,
            "tags": [t for t in case.tags if t != DRAFT_TAG],
            "metadata": {**case.metadata, "draft": origin},
        }
    )


def draft_label(case: EvalCase) -> str:
    """How the editor marks a case: ``"draft (model)"`` / ``"draft (template)"`` for drafts,
    ``"accepted draft"`` for reviewed ones, blank for the rest."""
    origin = case.metadata.get("draft")
    if case.draft:
        source = origin.get("source") if isinstance(origin, dict) else None
        return f"draft ({source})" if source else "draft"
    return "accepted draft" if isinstance(origin, dict) and origin.get("accepted") else ""
