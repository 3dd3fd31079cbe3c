"""Notebook widgets: thin ipywidgets forms over pure, separately tested functions.

* :class:`SuiteEditor` (logic in :mod:`.editing`): edit a suite, tools validated as you type,
  cases added / updated / deleted, import and export through :mod:`tooleval_nb.formats`;
  its **Import from MCP** section (:class:`.mcp_box.MCPImportBox`, logic in :mod:`.mcp_import`)
  adds an MCP server's tools and drafts cases for them, marked until accepted or edited;
* :class:`RunPanel` (logic in :mod:`.running`): start a run, follow per-model progress and the
  results table as cases finish, cancel; ``RunPanel.attach(job)`` follows a run started in code;
* :class:`ResultsExplorer` (logic in :mod:`.exploring`): filter by model, tag and outcome; expected
  vs actual calls side by side with differing parameters highlighted, raw output, parse problems.
"""

from __future__ import annotations

from .editor import SuiteEditor
from .explorer import ResultsExplorer
from .run_panel import RunPanel

__all__ = ["SuiteEditor", "RunPanel", "ResultsExplorer"]
