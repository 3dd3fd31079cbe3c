"""The suite editor's "Import from MCP" section (thin ipywidgets over :mod:`.mcp_import`).

Importing and drafting never block the kernel: each starts through :mod:`.background`, inside a
running event loop (a notebook) as a task on that loop (``box.task``, awaitable; it never raises
the work's error, which the status line shows) while the buttons are disabled and the status line
says what is going on; outside a loop (a script) they run to the end before returning.

The section knows its editor only as a :class:`SuiteHost` (what it reads and feeds): the
:class:`~tooleval_nb.widgets.SuiteEditor` holds the section and is one.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Protocol

import ipywidgets as W

from ..errors import ToolEvalError
from ..mcp import draft_cases_async
from ..models import DEFAULT_MODEL
from ..suite import EvalCase, Suite, Tool
from .background import start
from .editing import parse_tools
from .mcp_import import (
    TRANSPORT_CHOICES,
    ImportOutcome,
    fetch_tools_async,
    import_request,
    merge_tools,
)

__all__ = ["MCPImportBox", "SuiteHost"]


class SuiteHost(Protocol):
    """What the MCP section reads and feeds in the editor that holds it (a
    :class:`~tooleval_nb.widgets.SuiteEditor`): the tools JSON box and the suite's name (read),
    the cases (read), and the three ways it changes the suite."""

    @property
    def tools_input(self) -> W.Textarea: ...

    @property
    def name_input(self) -> W.Text: ...

    @property
    def cases(self) -> list[EvalCase]: ...

    def set_tools(self, tools: list[Tool], adopt: Suite | None = None) -> None: ...

    def add_cases(self, cases: list[EvalCase]) -> None: ...

    def accept_drafts(self, indices: list[int] | None = None) -> int: ...


def _list_html(messages: list[str], color: str) -> str:
    items = "".join(f"<li>{html.escape(m)}</li>" for m in messages)
    return f"<ul style='color:{color};margin:2px 0'>{items}</ul>" if messages else ""


class MCPImportBox(W.VBox):
    """Target (URL or command line), transport, timeout and **Import**; then a model box and
    **Draft cases**, and **Accept all drafts**. Imported tools are added to the editor's tools
    (a tool whose name the suite already has is reported, never replaced); drafts are added to
    its cases, marked as drafts until accepted or edited.

    Args:
        editor: the :class:`~tooleval_nb.widgets.SuiteEditor` this section feeds.
        draft_model: the model shown in the model box (default the embedded one).
        model_specs: ``{name: spec}`` used for names typed into the model box (an ``api_base``,
            keys...).
        draft_timeout: seconds allowed for each drafting model call.
    """

    def __init__(
        self,
        editor: SuiteHost,
        *,
        draft_model: str | None = None,
        model_specs: Mapping[str, Any] | None = None,
        draft_timeout: float = 120.0,
        **kwargs: Any,
    ) -> None:
        self.editor = editor
        self.model_specs = dict(model_specs or {})
        self.draft_timeout = draft_timeout
        self.task: asyncio.Task[Any] | None = None
        #: names of the tools the last import added (the ones "Draft cases" drafts for)
        self.imported: list[str] = []
        self.last_outcome: ImportOutcome | None = None
        wide = W.Layout(width="95%")
        self.target_input = W.Text(
            description="server",
            layout=wide,
            placeholder=("http://127.0.0.1:8000/mcp, .../sse, or a command: python -m my_server"),
        )
        self.transport_input = W.Dropdown(
            description="transport", options=list(TRANSPORT_CHOICES), value=None
        )
        self.timeout_input = W.BoundedFloatText(
            description="timeout (s)",
            value=0.0,
            min=0.0,
            max=3600.0,
            style={"description_width": "initial"},
            tooltip="0: the defaults (20 s to connect, 30 s to list)",
        )
        self.import_button = W.Button(description="Import tools", icon="plug")
        self.model_input = W.Text(description="model", value=draft_model or DEFAULT_MODEL)
        self.draft_button = W.Button(description="Draft cases", disabled=True, icon="pencil")
        self.accept_all_button = W.Button(description="Accept all drafts", disabled=True)
        self.status = W.HTML()
        self.import_button.on_click(lambda _: self.import_tools())
        self.draft_button.on_click(lambda _: self.draft())
        self.accept_all_button.on_click(lambda _: self.editor.accept_drafts())
        super().__init__(
            [
                self.target_input,
                W.HBox([self.transport_input, self.timeout_input, self.import_button]),
                W.HBox([self.model_input, self.draft_button, self.accept_all_button]),
                self.status,
            ],
            **kwargs,
        )

    @property
    def busy(self) -> bool:
        """Whether an import or a drafting is going on."""
        return self.task is not None and not self.task.done()

    def _show(
        self, progress: str = "", warnings: list[str] | None = None, errors: list[str] | None = None
    ) -> None:
        self.status.value = (
            html.escape(progress)
            + _list_html(warnings or [], "#8a5a00")
            + _list_html(errors or [], "#b00020")
        )

    def _launch(
        self, work: Coroutine[Any, Any, Any], done: Callable[[Any], None]
    ) -> asyncio.Task[Any] | None:
        """Start ``work`` through :func:`.background.start` (a task on the running loop,
        returned; with no loop, run to the end); ``done`` gets the result or the exception."""

        def finished(result: Any, error: BaseException | None) -> None:
            self._settle()
            if isinstance(error, asyncio.CancelledError):
                self._show(errors=["cancelled"])
            else:
                done(result if error is None else error)

        self.import_button.disabled = self.draft_button.disabled = True
        self.task = start(work, finished, name="tooleval-mcp-editor")
        return self.task

    def _settle(self) -> None:
        self.import_button.disabled = False
        self.draft_button.disabled = not self.imported
        self.accept_all_button.disabled = not any(c.draft for c in self.editor.cases)

    # -- importing ---------------------------------------------------------------------------
    def import_tools(self) -> Any:
        """What **Import tools** does: returns the task (None when the form has a problem; with
        no running loop the import is finished on return)."""
        if self.busy:
            self._show(errors=["an import or drafting is going on; wait for it to finish"])
            return None
        request, problems = import_request(
            self.target_input.value, self.transport_input.value, self.timeout_input.value
        )
        _, tool_problems = parse_tools(self.editor.tools_input.value)
        if tool_problems:
            problems.append(
                "the suite's tools JSON has problems (shown under it): fix them "
                "first, the imported tools are added to it"
            )
        if request is None or problems:
            self._show(errors=problems)
            return None
        self._show(f"importing tools from {request.label} ({request.transport})...")
        return self._launch(fetch_tools_async(request), self._imported)

    def _imported(self, outcome: ImportOutcome | BaseException) -> None:
        if isinstance(outcome, BaseException):
            message = (
                str(outcome)
                if isinstance(outcome, ToolEvalError)
                else (f"the import failed: {type(outcome).__name__}: {outcome}")
            )
            self._show(errors=[message])
            return
        current, problems = parse_tools(self.editor.tools_input.value)
        if current is None:
            self._show(
                errors=[
                    "the suite's tools JSON was changed and has problems; fix it, then import again"
                ]
                + problems
            )
            return
        self.last_outcome = outcome
        suite = outcome.suite
        merge = merge_tools(current, suite.tools)
        self.editor.set_tools(merge.tools, adopt=None if current or self.editor.cases else suite)
        self.imported = merge.added
        lines = []
        if merge.clashes:
            lines.append(
                f"not added, the suite already has a tool named: "
                f"{', '.join(merge.clashes)} (rename or remove yours to import it)"
            )
        self._settle()
        self._show(
            f"imported {len(suite.tools)} tool(s) from {suite.name!r} in "
            f"{outcome.elapsed_ms / 1000:.1f} s; added {len(merge.added)}: "
            f"{', '.join(merge.added) or 'none'}.",
            warnings=lines + outcome.warnings,
        )

    # -- drafting ----------------------------------------------------------------------------
    def draft(self) -> Any:
        """What **Draft cases** does: one draft case per imported tool, written by the model in
        the model box. Returns the task (None when there is nothing to draft for)."""
        if self.busy:
            self._show(errors=["an import or drafting is going on; wait for it to finish"])
            return None
        tools, _ = parse_tools(self.editor.tools_input.value)
        names = [t.name for t in tools or [] if t.name in self.imported]
        if not names:
            self._show(errors=["import tools first: cases are drafted for the imported tools"])
            return None
        name = self.model_input.value.strip() or DEFAULT_MODEL
        model = self.model_specs.get(name, name)
        suite = Suite(name=self.editor.name_input.value.strip() or "drafts", tools=tools or [])
        self._show(f"drafting {len(names)} case(s) with {name}...")

        drafts = draft_cases_async(suite, model, tools=names, timeout=self.draft_timeout)
        return self._launch(drafts, lambda result: self._drafted(result, name))

    def _drafted(self, result: Suite | BaseException, model: str) -> None:
        if isinstance(result, BaseException):
            self._show(errors=[f"drafting with {model} failed: {result}"])
            return
        drafts = [c for c in result.cases if c.draft]
        self.editor.add_cases(drafts)
        templated = [
            c.name or c.id or ""
            for c in drafts
            if c.metadata.get("draft", {}).get("source") == "template"
        ]
        notes = [f"{n}: the model's answer was unusable; a template stands in" for n in templated]
        self._settle()
        self._show(
            f"drafted {len(drafts)} case(s) with {model}: review them in the cases "
            "table (marked draft); they do not count until accepted or edited.",
            warnings=notes,
        )
