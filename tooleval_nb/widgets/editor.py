"""SuiteEditor: edit a suite in a notebook (thin ipywidgets over :mod:`.editing`)."""

from __future__ import annotations

import html
import json
from typing import Any

import ipywidgets as W

from ..errors import SuiteError, ToolEvalError
from ..suite import EvalCase, Suite, Tool
from .editing import (
    SCORING_MODES,
    CaseForm,
    Problems,
    build_case,
    build_suite,
    case_rows,
    case_to_form,
    export_suite,
    import_suite,
    parse_tools,
)
from .mcp_box import MCPImportBox
from .mcp_import import add_drafts, clear_draft, draft_label

__all__ = ["SuiteEditor"]

_WIDE = W.Layout(width="95%")


def _errors_html(messages: list[str] | None) -> str:
    if not messages:
        return ""
    items = "".join(f"<li>{html.escape(m)}</li>" for m in messages)
    return f"<ul class='tooleval-error' style='color:#b00020;margin:2px 0'>{items}</ul>"


class SuiteEditor(W.VBox):
    """A form for a suite: name, description, system prompt, tools as JSON (validated as you
    type), a cases table with add / update / delete, and import / export (seed JSON, YAML, BFCL).

    Every problem is shown under the field at fault. ``editor.suite`` gives the
    :class:`~tooleval_nb.Suite` (or raises :class:`~tooleval_nb.SuiteError` listing every
    problem); ``editor.problems()`` the problems keyed by field.

    **Import from MCP** (``editor.mcp``, a :class:`~tooleval_nb.widgets.mcp_box.MCPImportBox`)
    adds a server's tools and drafts cases for them; drafts are marked in the table and in the
    list until accepted (**Accept draft**, **Accept all drafts**) or edited (**Update case**).

    Args:
        suite: A suite to start from (default: an empty one).
        draft_model: The model that drafts cases (default: the embedded one).
        model_specs: ``{name: spec}`` for model names typed into the draft model box.
    """

    def __init__(
        self,
        suite: Suite | None = None,
        *,
        draft_model: str | None = None,
        model_specs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.cases: list[EvalCase] = []
        self.selected: int | None = None
        self.name_input = W.Text(description="name", layout=_WIDE)
        self.description_input = W.Textarea(description="description", layout=_WIDE)
        self.system_prompt_input = W.Textarea(description="system prompt", layout=_WIDE)
        self.tools_input = W.Textarea(
            description="tools (JSON)",
            placeholder='[{"type": "function", "function": {"name": ..., "parameters": ...}}]',
            layout=W.Layout(width="95%", height="180px"),
        )
        self.errors: dict[str, W.HTML] = {
            k: W.HTML()
            for k in (
                "name",
                "tools",
                "cases",
                "suite",
                "case",
                "prompt",
                "expected_tool",
                "expected_params",
                "param_scoring",
                "tags",
            )
        }
        self.cases_table = W.HTML()
        self.case_select = W.Select(description="cases", options=[], rows=6, layout=_WIDE)
        self.case_name = W.Text(description="name", layout=_WIDE)
        self.case_prompt = W.Textarea(description="prompt", layout=_WIDE)
        self.case_tool = W.Text(
            description="expected tool",
            placeholder="get_weather  (a | b: either; blank: no call)",
            layout=_WIDE,
        )
        self.case_params = W.Textarea(
            description="expected params",
            placeholder='{"city": "Paris"}  (blank: not scored)',
            layout=_WIDE,
        )
        self.case_scoring = W.Dropdown(
            description="scoring", options=list(SCORING_MODES), value="exact"
        )
        self.case_tags = W.Text(description="tags", placeholder="smoke, weather", layout=_WIDE)
        self.add_button = W.Button(description="Add case", button_style="success")
        self.update_button = W.Button(description="Update case", disabled=True)
        self.delete_button = W.Button(
            description="Delete case", button_style="danger", disabled=True
        )
        self.clear_button = W.Button(description="New case")
        self.accept_button = W.Button(description="Accept draft", disabled=True)
        self.draft_note = W.HTML()
        self.path_input = W.Text(description="file", placeholder="suite.json", layout=_WIDE)
        self.format_input = W.Dropdown(
            description="format",
            options=[
                ("auto (by file name)", "auto"),
                ("seed JSON", "seed_json"),
                ("seed YAML", "seed_yaml"),
                ("BFCL (folder)", "bfcl"),
            ],
            value="auto",
        )
        self.import_button = W.Button(description="Import")
        self.export_button = W.Button(description="Export")
        self.status = W.HTML()
        self._extra: dict[str, Any] = {}
        self._case_form_extra: dict[str, Any] = {}

        for widget in (self.name_input, self.tools_input):
            widget.observe(self._on_suite_field, "value")
        for widget in (
            self.case_prompt,
            self.case_tool,
            self.case_params,
            self.case_scoring,
            self.case_tags,
            self.case_name,
        ):
            widget.observe(self._on_case_field, "value")
        self.case_select.observe(self._on_select, "value")
        self.add_button.on_click(lambda _: self.add_case())
        self.update_button.on_click(lambda _: self.update_case())
        self.delete_button.on_click(lambda _: self.delete_case())
        self.clear_button.on_click(lambda _: self.clear_case())
        self.accept_button.on_click(
            lambda _: self.accept_drafts(None if self.selected is None else [self.selected])
        )
        self.import_button.on_click(lambda _: self.import_file())
        self.export_button.on_click(lambda _: self.export_file())

        err = self.errors
        suite_box = W.VBox(
            [
                self.name_input,
                err["name"],
                self.description_input,
                self.system_prompt_input,
                self.tools_input,
                err["tools"],
            ]
        )
        case_box = W.VBox(
            [
                self.case_select,
                self.draft_note,
                self.case_name,
                self.case_prompt,
                err["prompt"],
                self.case_tool,
                err["expected_tool"],
                self.case_params,
                err["expected_params"],
                self.case_scoring,
                err["param_scoring"],
                self.case_tags,
                err["tags"],
                err["case"],
                W.HBox(
                    [
                        self.add_button,
                        self.update_button,
                        self.delete_button,
                        self.clear_button,
                        self.accept_button,
                    ]
                ),
            ]
        )
        files = W.VBox(
            [self.path_input, W.HBox([self.format_input, self.import_button, self.export_button])]
        )
        self.mcp = MCPImportBox(self, draft_model=draft_model, model_specs=model_specs)
        super().__init__(
            [
                suite_box,
                W.HTML("<b>Import from MCP</b>"),
                self.mcp,
                W.HTML("<b>Cases</b>"),
                self.cases_table,
                err["cases"],
                case_box,
                W.HTML("<b>Import / export</b>"),
                files,
                err["suite"],
                self.status,
            ],
            **kwargs,
        )
        self.load(suite or Suite(name="new suite"))

    # -- whole suite -------------------------------------------------------------------------
    def load(self, suite: Suite) -> None:
        """Show ``suite`` in the form (replacing everything)."""
        self.name_input.value = suite.name
        self.description_input.value = suite.description
        self.system_prompt_input.value = suite.system_prompt or ""
        self.tools_input.value = (
            json.dumps([t.to_openai() for t in suite.tools], indent=2, ensure_ascii=False)
            if suite.tools
            else ""
        )
        self.cases = list(suite.cases)
        self.clear_case()
        self._refresh_cases()

    @property
    def suite(self) -> Suite:
        """The suite the form describes. Raises SuiteError with every problem."""
        suite, problems = self._build()
        if suite is None:
            flat = [f"{k}: {m}" for k, msgs in problems.items() for m in msgs]
            raise SuiteError(
                f"the editor's suite has {len(flat)} problem(s):\n  - " + "\n  - ".join(flat),
                problems=flat,
            )
        return suite

    def problems(self) -> Problems:
        """Problems of the suite and of the case form, keyed by field (empty when none)."""
        _, problems = self._build()
        return problems

    def set_tools(self, tools: list[Tool], adopt: Suite | None = None) -> None:
        """Show ``tools`` in the tools box; with ``adopt``, also take that suite's name and
        description (used when an import fills an empty editor)."""
        if adopt is not None:
            self.name_input.value = adopt.name
            self.description_input.value = adopt.description
        self.tools_input.value = (
            json.dumps([t.to_openai() for t in tools], indent=2, ensure_ascii=False)
            if tools
            else ""
        )

    def _build(self) -> tuple[Suite | None, Problems]:
        return build_suite(
            self.name_input.value,
            self.description_input.value,
            self.system_prompt_input.value,
            self.tools_input.value,
            self.cases,
        )

    def _tools(self) -> list[Any]:
        tools, _ = parse_tools(self.tools_input.value)
        return tools or []

    def _on_suite_field(self, _: Any = None) -> None:
        self.errors["name"].value = _errors_html(
            None if self.name_input.value.strip() else ["a suite needs a name"]
        )
        _, tool_problems = parse_tools(self.tools_input.value)
        self.errors["tools"].value = _errors_html(tool_problems)
        if not tool_problems:
            self._refresh_cases()

    # -- cases -------------------------------------------------------------------------------
    def form(self) -> CaseForm:
        """The case form's current values."""
        return CaseForm(
            name=self.case_name.value,
            prompt=self.case_prompt.value,
            expected_tool=self.case_tool.value,
            expected_params=self.case_params.value,
            param_scoring=self.case_scoring.value,
            tags=self.case_tags.value,
            extra=dict(self._case_form_extra),
        )

    def _show_case_problems(self, problems: Problems) -> None:
        for key in ("case", "prompt", "expected_tool", "expected_params", "param_scoring", "tags"):
            self.errors[key].value = _errors_html(problems.get(key))

    def _on_case_field(self, _: Any = None) -> None:
        if not any((self.case_prompt.value, self.case_tool.value, self.case_params.value)):
            self._show_case_problems({})  # an empty form is not an error yet
            return
        _, problems = build_case(self.form(), self._tools())
        self._show_case_problems(problems)

    def _checked_case(self) -> EvalCase | None:
        case, problems = build_case(self.form(), self._tools())
        self._show_case_problems(problems)
        if case is None:
            self.status.value = _errors_html(["fix the case's fields first"])
        return case

    def add_case(self) -> EvalCase | None:
        """Append the form's case (None, with the problems shown, when it is invalid). A person
        added it, so it is no draft even when the form held one; an id or name another case has
        already gets a number (the form carries the loaded case's)."""
        case = self._checked_case()
        if case is not None:
            self.cases = add_drafts(self.cases, [clear_draft(case, "edited")])
            case = self.cases[-1]
            self._refresh_cases(select=len(self.cases) - 1)
            self.status.value = f"added case {len(self.cases) - 1}"
        return case

    def update_case(self) -> EvalCase | None:
        """Replace the selected case with the form's (a draft stops being one: it was reviewed)."""
        if self.selected is None:
            return None
        case = self._checked_case()
        if case is not None:
            old = self.cases[self.selected]
            if case.id is None and old.id is not None:  # the form does not show ids: keep it
                case = case.model_copy(update={"id": old.id})
            case = clear_draft(case, "edited")
            self.cases[self.selected] = case
            self._refresh_cases(select=self.selected)
            self.status.value = f"updated case {self.selected}"
        return case

    def add_cases(self, cases: list[EvalCase]) -> None:
        """Append ``cases`` (drafts included; an id already taken gets a suffix)."""
        self.cases = add_drafts(self.cases, cases)
        self._refresh_cases()

    def accept_drafts(self, indices: list[int] | None = None) -> int:
        """Make the draft cases at ``indices`` (default: every draft) ordinary cases; returns
        how many were accepted."""
        chosen = range(len(self.cases)) if indices is None else indices
        accepted = [i for i in chosen if self.cases[i].draft]
        for i in accepted:
            self.cases[i] = clear_draft(self.cases[i])
        selected = self.selected
        self._refresh_cases()
        if selected is not None:  # reload the form: the case's tags changed
            self.case_select.value = None
            self.select_case(selected)
        self.mcp._settle()
        self.status.value = f"accepted {len(accepted)} draft case(s)"
        return len(accepted)

    def delete_case(self) -> None:
        """Remove the selected case."""
        if self.selected is None:
            return
        index = self.selected
        del self.cases[index]
        self.clear_case()
        self._refresh_cases()
        self.status.value = f"deleted case {index}"

    def clear_case(self) -> None:
        """Empty the case form (to add a new case)."""
        self.selected = None
        self._case_form_extra = {}
        self.case_select.value = None
        for widget in (
            self.case_name,
            self.case_prompt,
            self.case_tool,
            self.case_params,
            self.case_tags,
        ):
            widget.value = ""
        self.case_scoring.value = "exact"
        self.update_button.disabled = self.delete_button.disabled = True
        self.accept_button.disabled = True
        self.draft_note.value = ""
        self._show_case_problems({})

    def select_case(self, index: int) -> None:
        """Load case ``index`` into the form."""
        self.case_select.value = index

    def _on_select(self, change: dict[str, Any]) -> None:
        index = change["new"]
        if index is None:
            return
        form = case_to_form(self.cases[index])
        self.selected = index
        self._case_form_extra = form.extra
        self.case_name.value, self.case_prompt.value = form.name, form.prompt
        self.case_tool.value, self.case_params.value = form.expected_tool, form.expected_params
        self.case_scoring.value, self.case_tags.value = form.param_scoring, form.tags
        self.update_button.disabled = self.delete_button.disabled = False
        self._show_draft_note(self.cases[index])

    def _show_draft_note(self, case: EvalCase) -> None:
        self.accept_button.disabled = not case.draft
        origin = case.metadata.get("draft")
        if not case.draft or not isinstance(origin, dict):
            self.draft_note.value = ""
            return
        notes = "".join(f"<li>{html.escape(str(p))}</li>" for p in origin.get("problems", []))
        self.draft_note.value = (
            f"<div style='background:#fff4d6;padding:2px 6px'><b>&#9998; {html.escape(draft_label(case))}"
            f"</b> by {html.escape(str(origin.get('model', '?')))}: review it, then Accept "
            f"draft or edit and Update case.<ul style='margin:0'>{notes}</ul></div>"
        )

    def _refresh_cases(self, select: int | None = None) -> None:
        rows = case_rows(self.cases)
        self.case_select.options = [
            (
                f"{'✎ ' if r['draft'].startswith('draft') else ''}{r['#']}: "
                f"{r['name'] or r['prompt'][:40]}",
                r["#"],
            )
            for r in rows
        ]
        if rows:
            import pandas as pd

            with pd.option_context("display.max_colwidth", 60):
                self.cases_table.value = pd.DataFrame(rows).to_html(index=False, escape=True)
        else:
            self.cases_table.value = "<i>no cases yet</i>"
        _, problems = self._build()
        self.errors["cases"].value = _errors_html(problems.get("cases"))
        if select is not None:
            self.select_case(select)

    # -- files -------------------------------------------------------------------------------
    def import_file(self, path: str | None = None, format: str | None = None) -> Suite | None:
        """Load a suite file into the editor (problems shown, never raised)."""
        path = path or self.path_input.value.strip()
        fmt = format or self.format_input.value
        try:
            suite = import_suite(path, fmt)  # type: ignore[arg-type]
        except ToolEvalError as exc:
            self.errors["suite"].value = _errors_html(getattr(exc, "problems", None) or [str(exc)])
            return None
        self.errors["suite"].value = ""
        self.load(suite)
        self.status.value = f"imported {html.escape(str(path))}: {len(suite.cases)} cases"
        return suite

    def export_file(self, path: str | None = None, format: str | None = None) -> str | None:
        """Write the suite (problems shown, never raised); returns what was written."""
        path = path or self.path_input.value.strip()
        if not path:
            self.errors["suite"].value = _errors_html(["give a file name to export to"])
            return None
        suite, problems = self._build()
        if suite is None:
            self.errors["suite"].value = _errors_html(
                [f"{k}: {m}" for k, msgs in problems.items() for m in msgs]
            )
            return None
        try:
            written = export_suite(suite, path, format or self.format_input.value)  # type: ignore[arg-type]
        except (ToolEvalError, OSError) as exc:
            self.errors["suite"].value = _errors_html([str(exc)])
            return None
        self.errors["suite"].value = ""
        self.status.value = f"exported to {html.escape(written)}"
        return written
