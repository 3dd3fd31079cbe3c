"""A small, real MCP server for demos and tutorials: weather, arithmetic, currencies and notes.

    python -m tooleval_nb.mcp.demo_server                                 # stdio (the default)
    python -m tooleval_nb.mcp.demo_server --transport streamable-http --port 8765   # .../mcp
    python -m tooleval_nb.mcp.demo_server --transport sse                 # .../sse, a free port

Every answer is deterministic (fixed tables, no clock, no network), so a suite built from it can
check the real results. The notes are kept in memory for the life of the process.

Over HTTP the server binds 127.0.0.1 (``--host`` to change) *before* it prints
``PORT <n>`` on stdout, so a client may connect as soon as it has read that line.
"""

from __future__ import annotations

import argparse
import socket
from typing import Annotated, Any, Literal

from pydantic import Field

__all__ = ["build_server", "main", "CITIES", "RATES"]

#: city -> (temperature in Celsius, conditions, humidity %)
CITIES: dict[str, tuple[int, str, int]] = {
    "paris": (18, "partly cloudy", 62),
    "london": (14, "light rain", 81),
    "new york": (22, "sunny", 48),
    "tokyo": (26, "humid and cloudy", 74),
    "sydney": (20, "windy", 55),
    "berlin": (16, "overcast", 66),
    "rome": (25, "sunny", 45),
}
_CONDITIONS = ("sunny", "cloudy", "light rain", "windy", "foggy")
#: units of each currency per US dollar (fixed, for reproducible answers)
RATES: dict[str, float] = {"USD": 1.0, "EUR": 0.92, "GBP": 0.79, "JPY": 151.0, "CHF": 0.88}

Currency = Literal["USD", "EUR", "GBP", "JPY", "CHF"]


def _weather(city: str) -> tuple[int, str, int]:
    known = CITIES.get(" ".join(city.lower().split()))
    if known is not None:
        return known
    seed = sum(map(ord, city.lower()))  # stable across processes, unlike hash()
    return seed % 35 - 5, _CONDITIONS[seed % len(_CONDITIONS)], 30 + seed % 60


def build_server() -> Any:
    """The demo server (an ``mcp.server.MCPServer``) with its five tools."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(
        "tooleval-demo",
        instructions=(
            "Demo tools: current weather, arithmetic, currency conversion and a notes store. "
            "Answers are deterministic."
        ),
        log_level="WARNING",
    )
    notes: list[dict[str, Any]] = []

    @server.tool(
        description="Get the current weather for a city: temperature, conditions and humidity."
    )
    def get_weather(
        city: Annotated[str, Field(description="City name, e.g. 'Paris' or 'New York'")],
        unit: Annotated[
            Literal["celsius", "fahrenheit"], Field(description="Temperature unit")
        ] = "celsius",
    ) -> dict[str, Any]:
        celsius, conditions, humidity = _weather(city)
        temp = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
        return {
            "city": city,
            "temperature": temp,
            "unit": unit,
            "conditions": conditions,
            "humidity": humidity,
        }

    @server.tool(description="Add, subtract, multiply or divide two numbers.")
    def calculate(
        operation: Annotated[
            Literal["add", "subtract", "multiply", "divide"],
            Field(description="The arithmetic operation"),
        ],
        a: Annotated[float, Field(description="First operand")],
        b: Annotated[float, Field(description="Second operand")],
    ) -> float:
        if operation == "divide" and b == 0:
            raise ToolError("division by zero: give a non-zero b")
        return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b if b else 0.0}[
            operation
        ]

    @server.tool(
        description="Convert an amount of money from one currency to another at fixed demo rates."
    )
    def convert_currency(
        amount: Annotated[float, Field(description="The amount to convert", ge=0)],
        from_currency: Annotated[Currency, Field(description="Currency of the amount")],
        to_currency: Annotated[Currency, Field(description="Currency to convert to")],
    ) -> dict[str, Any]:
        value = round(amount / RATES[from_currency] * RATES[to_currency], 2)
        return {"amount": amount, "from": from_currency, "to": to_currency, "result": value}

    @server.tool(description="Save a note with a title and text; returns the note's id.")
    def add_note(
        title: Annotated[str, Field(description="Short title of the note", min_length=1)],
        text: Annotated[str, Field(description="The note's content")],
    ) -> dict[str, Any]:
        note = {"id": len(notes) + 1, "title": title, "text": text}
        notes.append(note)
        return note

    @server.tool(
        description="Find saved notes whose title or text contains the query (case-insensitive)."
    )
    def search_notes(
        query: Annotated[str, Field(description="Word or phrase to look for")],
        limit: Annotated[int, Field(description="Most notes to return", ge=1, le=50)] = 5,
    ) -> list[dict[str, Any]]:
        q = query.lower()
        return [n for n in notes if q in n["title"].lower() or q in n["text"].lower()][:limit]

    return server


def main(argv: list[str] | None = None) -> None:
    """Run the demo server (see the module docstring for the command line)."""
    parser = argparse.ArgumentParser(
        prog="python -m tooleval_nb.mcp.demo_server",
        description="A small deterministic MCP server for demos.",
    )
    parser.add_argument("--transport", choices=["stdio", "sse", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    args = parser.parse_args(argv)
    server = build_server()
    if args.transport == "stdio":
        server.run("stdio")
        return

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(64)
    app = server.sse_app() if args.transport == "sse" else server.streamable_http_app()
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])


if __name__ == "__main__":
    main()
