"""A small MCP server of ours for the tests, runnable over stdio, SSE and streamable HTTP.

    python demo_server.py --transport sse            # prints "PORT <n>" once it listens
    python demo_server.py --transport streamable-http --extra-tools 500 --page-size 50
    python demo_server.py --transport stdio --invalid

Tools: ``get_weather`` (deterministic fake weather), ``calculate`` (four operations, an error
result on division by zero), ``slow_task`` (sleeps as long as asked, for per-call timeouts),
``echo_NNNN`` (``--extra-tools N``, for huge lists). ``--invalid`` adds tools whose schemas are
not usable (one is not valid JSON Schema, one does not describe an object). ``--enum`` adds
``set_thermostat``, whose Enum parameters the SDK lists as ``{"$ref": "#/$defs/Mode"}`` with the
definitions in ``$defs``. ``--page-size`` serves ``tools/list`` in cursor pages;
``--list-delay`` makes the listing slow. Without flags the tools are the three above (other
tests count them).

HTTP transports bind 127.0.0.1 on a free port *before* printing it, so a client can connect as
soon as it has read the line (the listening socket queues the connection): no polling needed.
"""

from __future__ import annotations

import argparse
import socket
import sys
from enum import StrEnum
from typing import Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ListToolsResult, PaginatedRequestParams
from mcp_types import Tool as WireTool

INVALID_TOOLS: list[dict[str, Any]] = [
    {
        "name": "broken_schema",
        "description": "A tool whose schema names an unknown type.",
        "inputSchema": {"type": "object", "properties": {"x": {"type": "no-such-type"}}},
    },
    {
        "name": "bad_required",
        "description": "A tool whose 'required' is not a list.",
        "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": "x"},
    },
]
#: a tool whose schema is not an object schema: the SDK's wire types reject it
NOT_OBJECT_TOOL: dict[str, Any] = {
    "name": "not_an_object",
    "description": "A tool whose parameters are a string.",
    "inputSchema": {"type": "string"},
}


class Mode(StrEnum):
    heat = "heat"
    cool = "cool"
    off = "off"


class Unit(StrEnum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


class DemoServer(MCPServer):
    """MCPServer with optional pagination, a slow listing and raw (invalid) tools."""

    def __init__(
        self,
        *,
        page_size: int = 0,
        list_delay: float = 0.0,
        raw_tools: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(
            "tooleval-demo", instructions="Weather and arithmetic for tests.", log_level="WARNING"
        )
        self.page_size = page_size
        self.list_delay = list_delay
        self.raw_tools = raw_tools or []

    async def _handle_list_tools(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        if self.list_delay:
            await anyio.sleep(self.list_delay)
        tools = await self.list_tools()
        tools += [WireTool.model_validate(t) for t in self.raw_tools]
        if not self.page_size:
            return ListToolsResult(tools=tools)
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + self.page_size
        return ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )


def build(
    extra_tools: int = 0,
    page_size: int = 0,
    list_delay: float = 0.0,
    invalid: bool = False,
    enum: bool = False,
) -> DemoServer:
    raw = list(INVALID_TOOLS) if invalid else []
    server = DemoServer(page_size=page_size, list_delay=list_delay, raw_tools=raw)

    @server.tool(description="Get the current weather for a city.")
    def get_weather(
        city: str, unit: Literal["celsius", "fahrenheit"] = "celsius"
    ) -> dict[str, Any]:
        base = sum(map(ord, city.lower())) % 30
        temp = base if unit == "celsius" else round(base * 9 / 5 + 32)
        return {"city": city, "temperature": temp, "unit": unit, "conditions": "sunny"}

    @server.tool(description="Do arithmetic on two numbers.")
    def calculate(
        operation: Literal["add", "subtract", "multiply", "divide"], a: float, b: float
    ) -> float:
        if operation == "divide" and b == 0:
            raise ToolError("division by zero")
        return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b if b else 0.0}[
            operation
        ]

    @server.tool(description="Wait for the given number of seconds, then say done.")
    async def slow_task(seconds: float = 5.0) -> str:
        await anyio.sleep(seconds)
        return "done"

    if enum:

        @server.tool(description="Set the thermostat of a room to a mode.")
        def set_thermostat(room: str, mode: Mode, unit: Unit | None = None) -> dict[str, Any]:
            return {"room": room, "mode": mode.value, "unit": unit.value if unit else None}

    for i in range(extra_tools):

        def echo(text: str) -> str:
            return text

        server.add_tool(echo, name=f"echo_{i:04d}", description=f"Echo the text back (#{i}).")
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--transport", choices=["stdio", "sse", "streamable-http"], default="stdio")
    parser.add_argument("--extra-tools", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--list-delay", type=float, default=0.0)
    parser.add_argument("--invalid", action="store_true")
    parser.add_argument("--enum", action="store_true")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    args = parser.parse_args(argv)
    server = build(args.extra_tools, args.page_size, args.list_delay, args.invalid, args.enum)
    if args.transport == "stdio":
        server.run("stdio")
        return

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)
    app = server.sse_app() if args.transport == "sse" else server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
