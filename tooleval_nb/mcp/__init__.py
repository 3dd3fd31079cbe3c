"""Import tools from MCP servers into suites, draft cases for them, and call them for real.

    >>> import tooleval_nb as te
    >>> suite = te.import_mcp("http://127.0.0.1:8000/sse")       # SSE; .../mcp is streamable HTTP
    >>> suite = te.import_mcp(["python", "my_server.py"])          # a stdio server
    >>> suite = te.draft_cases(suite)            # one draft case per tool, by the embedded model
    >>> suite = te.accept_drafts(suite)          # after review: drafts count from now on

Modules: :mod:`.client` (targets, connecting, listing), :mod:`.failures` (error messages),
:mod:`.wire` (screening bad tools out of listings), :mod:`.convert` (MCP tool to suite tool),
:mod:`.importer` (``import_mcp``), :mod:`.extract` and :mod:`.drafts` (draft cases),
:mod:`.live` (real tool calls in chains).
"""

from __future__ import annotations

from .client import MCPListing, MCPTarget, MCPTransport, list_tools_async, resolve_target
from .convert import ConvertedTools, MCPImportWarning, convert_tools, mcp_tool_to_tool
from .drafts import (
    accept_drafts,
    discard_drafts,
    draft_case_async,
    draft_cases,
    draft_cases_async,
)
from .importer import import_mcp, import_mcp_async
from .live import LiveToolResult, MCPToolRunner, ToolExecutor

__all__ = [
    "import_mcp",
    "import_mcp_async",
    "draft_cases",
    "draft_cases_async",
    "draft_case_async",
    "accept_drafts",
    "discard_drafts",
    "MCPToolRunner",
    "LiveToolResult",
    "ToolExecutor",
    "MCPTarget",
    "MCPListing",
    "MCPTransport",
    "MCPImportWarning",
    "ConvertedTools",
    "resolve_target",
    "list_tools_async",
    "convert_tools",
    "mcp_tool_to_tool",
]
