"""Notebook widgets: thin ipywidgets forms over pure, separately tested functions.

* :class:`SuiteEditor` (logic in :mod:`.editing`): edit a suite, tools validated as you type,
  cases added / updated / deleted, import and export through :mod:`tooleval_nb.formats`;
  its **Import from MCP** section (:class:`.mcp_box.MCPImportBox`, logic in :mod:`.mcp_import`)
  adds an MCP server's tools and drafts cases for them, marked until accepted or edited;
* :class:`RunPanel` (logic in :mod:`.running`): start a run, follow per-model progress and the
  results table as cases finish, cancel; ``RunPanel.attach(job)`` follows a run started in code;
* :class:`ResultsExplorer` (logic in :mod:`.exploring`): filter by model, tag and outcome; expected
  vs actual calls side by side with differing parameters highlighted, raw output, parse problems;
* :class:`SweepForm` (``te.sweep_form(suite)``, logic in :func:`.sweep_panel.space_from_fields`):
  pick parameters, values, strategy and budget, run a sweep with a live forest plot;
* the experiment layer's views (:mod:`.experiment_views`): :func:`experiment_view`,
  :func:`sweep_view`, :func:`prompt_tune_view` take an ``Experiment``, a ``Sweep`` or a
  ``PromptTune`` and show its charts with the buttons that act on it (Run best, Confirm, Promote).
"""

from __future__ import annotations

from .editor import SuiteEditor
from .experiment_views import experiment_view, prompt_tune_view, sweep_view
from .explorer import ResultsExplorer
from .progress import WidgetProgress
from .run_panel import RunPanel
from .sweep_panel import SweepForm, sweep_form

__all__ = [
    "ResultsExplorer",
    "RunPanel",
    "SuiteEditor",
    "SweepForm",
    "WidgetProgress",
    "experiment_view",
    "prompt_tune_view",
    "sweep_form",
    "sweep_view",
]
