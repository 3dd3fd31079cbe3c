"""Costs of the MCP layer: importing big tool lists, converting tools, live tool calls.

Starts the demo MCP server of the tests (``tests/mcp/servers/demo_server.py``) on 127.0.0.1 in a
subprocess, over streamable HTTP and SSE, and as a stdio child. Prints wall time, rates and CPU
seconds per 1,000 items for this process only (the server runs apart). Usage::

    .venv/bin/python benchmarks/bench_mcp.py [--tools 500] [--calls 500] [--convert 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from tooleval_nb.mcp import MCPToolRunner, convert_tools, import_mcp_async

SERVER = Path(__file__).resolve().parent.parent / "tests" / "mcp" / "servers" / "demo_server.py"


def start(transport: str, *args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--transport", transport, *args],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    port = int(line.split()[1])
    return proc, f"http://127.0.0.1:{port}{'/sse' if transport == 'sse' else '/mcp'}"


def report(label: str, n: int, unit: str, wall: float, cpu: float) -> None:
    print(
        f"{label:<44} {n:>6} {unit:<6} {wall:7.3f} s wall  {n / wall:9.0f} {unit}/s  "
        f"{cpu / n * 1000:7.3f} CPU s per 1,000"
    )


async def timed(coro: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = await coro
    return value, time.perf_counter() - wall, time.process_time() - cpu


async def main(n_tools: int, n_calls: int, n_convert: int) -> None:
    flags = ["--extra-tools", str(n_tools), "--page-size", "100"]
    procs, urls = [], []
    try:
        for transport in ("streamable-http", "sse"):
            proc, url = start(transport, *flags)
            procs.append(proc)
            urls.append(url)
            await import_mcp_async(url)  # warm-up: imports, first connection
            suite, wall, cpu = await timed(import_mcp_async(url))
            report(f"import_mcp {transport} (pages of 100)", len(suite.tools), "tools", wall, cpu)
        cmd = [sys.executable, str(SERVER), *flags]
        suite, wall, cpu = await timed(import_mcp_async(cmd))
        report("import_mcp stdio (incl. server start)", len(suite.tools), "tools", wall, cpu)

        raw = [
            {
                "name": f"tool_{i}",
                "description": "Get the weather for a city.",
                "inputSchema": {
                    "type": "object",
                    "required": ["city"],
                    "properties": {
                        "city": {"type": "string"},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    },
                },
            }
            for i in range(n_convert)
        ]
        wall, cpu = time.perf_counter(), time.process_time()
        out = convert_tools(raw)
        report(
            "convert_tools (pure)",
            len(out.tools),
            "tools",
            time.perf_counter() - wall,
            time.process_time() - cpu,
        )

        for label, target in (
            ("streamable-http", urls[0]),
            ("sse", urls[1]),
            ("stdio", [sys.executable, str(SERVER)]),
        ):
            async with MCPToolRunner(target) as live:
                await live.call("get_weather", {"city": "Paris"})
                for concurrency in (1, 16):

                    async def batch(k: int = concurrency) -> None:
                        sem = asyncio.Semaphore(k)

                        async def one(i: int) -> None:
                            async with sem:
                                result = await live.call(
                                    "calculate", {"operation": "add", "a": i, "b": 1}
                                )
                                assert not result.is_error, result

                        await asyncio.gather(*(one(i) for i in range(n_calls)))

                    _, wall, cpu = await timed(batch())
                    report(
                        f"live calls {label}, {concurrency} concurrent", n_calls, "calls", wall, cpu
                    )
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--convert", type=int, default=10_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    asyncio.run(main(args.tools, args.calls, args.convert))
