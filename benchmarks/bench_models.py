"""Per-call cost of the model layer against the fake OpenAI-compatible server (in a subprocess).

Compares, on the workload of ``design/performance.md`` (3 tools, ``"get_weather city Town{i}"``,
``tool_choice="required"``, temperature 0, no cache, every answer checked):

* ``raw aiohttp``       a bare aiohttp loop (the practical limit);
* ``bare litellm``      ``litellm.acompletion`` in a loop;
* ``call_model litellm`` our ``call_model_async`` through litellm (``transport="litellm"``);
* ``call_model direct`` our ``call_model_async`` through the direct client (the default for
  OpenAI-compatible ``api_base`` endpoints): on this loopback server, its fast path (the lean
  client of ``models/http.py``);
* ``direct via httpx2`` the same with the fast path declined: the httpx2 client every other
  endpoint gets (a remote host, https, a proxy variable set);
* ``layer alone``       the same calls with the HTTP exchange answered in this process (the
  direct client's ``post_json`` serialises the payload and returns the fake server's answer):
  the CPU of the model layer's own parts (route, wire, fallback, cache, reply), without aiohttp
  nor the server; its latency column is meaningless.

Prints cases/s, CPU seconds per 1,000 calls (this process only; the server runs apart) and, with
latency, wall / ideal wall. ``--ab ROUNDS`` instead alternates the direct path's two clients
(fast path, httpx2) and litellm's path on one server, ``ROUNDS`` blocks each, and prints each
block's CPU per call and the medians' ratios: a figure that holds on a loaded machine, where
absolute figures do not. Usage::

    .venv/bin/python benchmarks/bench_models.py [--n 1000] [--litellm-n 300] [--repeat 3]
        [--only raw,bare_litellm,litellm,direct,httpx2,layer]
    .venv/bin/python benchmarks/bench_models.py --ab 5 [--n 400] [--litellm-n 150]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tooleval_nb.models import call_model_async, client, direct  # noqa: E402
from tooleval_nb.models.direct import aclose  # noqa: E402
from tooleval_nb.testing import FakeOpenAIServer  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
    for name in ("get_weather", "get_time", "get_news")
]


def _ok(i: int, name: str | None, arguments: str | None) -> bool:
    return name == "get_weather" and json.loads(arguments or "{}").get("city") == f"Town{i}"


async def raw_aiohttp(url: str, i: int) -> bool:
    import aiohttp

    global _SESSION
    if _SESSION is None:
        _SESSION = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=512))
    body = {
        "model": "fake",
        "messages": [{"role": "user", "content": f"get_weather city Town{i}"}],
        "tools": TOOLS,
        "tool_choice": "required",
        "temperature": 0,
    }
    async with _SESSION.post(f"{url}/chat/completions", json=body) as resp:
        data = await resp.json()
    fn = data["choices"][0]["message"]["tool_calls"][0]["function"]
    return _ok(i, fn["name"], fn["arguments"])


_SESSION: Any = None


async def bare_litellm(url: str, i: int) -> bool:
    import litellm

    resp = await litellm.acompletion(
        model="openai/fake",
        api_base=url,
        api_key="sk-fake",
        messages=[{"role": "user", "content": f"get_weather city Town{i}"}],
        tools=TOOLS,
        tool_choice="required",
        temperature=0,
        max_retries=0,
    )
    fn = resp.choices[0].message.tool_calls[0].function
    return _ok(i, fn.name, fn.arguments)


def ours(transport: str):
    from tooleval_nb.suite import Tool

    tools = [Tool.model_validate(t) for t in TOOLS]  # as the runner passes them

    async def run(url: str, i: int) -> bool:
        reply = await call_model_async(
            "openai/fake",
            f"get_weather city Town{i}",
            tools,
            "required",
            api_base=url,
            transport=transport,
            cache=False,
        )
        if not reply.tool_calls:
            return False
        call = reply.tool_calls[0]
        return _ok(i, call.name, call.function.arguments)

    return run


def layer_alone():
    """``ours("direct")`` with ``direct.post_json`` answered here: the layer's own CPU."""
    run = ours("direct")

    async def post_json(
        url: str, payload: dict[str, Any], **kwargs: Any
    ) -> tuple[Any, float, bool]:
        json.dumps(payload)  # the serialisation the real client does
        city = payload["messages"][-1]["content"].rsplit(" ", 1)[-1]
        call = {"name": "get_weather", "arguments": json.dumps({"city": city})}
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": call}],
        }
        answer = {
            "id": "layer",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
        }
        return json.loads(json.dumps(answer)), 0.0, True

    async def layer(url: str, i: int) -> bool:
        real = direct.post_json
        direct.post_json = post_json
        try:
            return await run(url, i)
        finally:
            direct.post_json = real

    return layer


@contextmanager
def fast_path_declined(declined: bool) -> Iterator[None]:
    """Every request through httpx2 (as for a remote endpoint) while ``declined``."""
    real = client.fast_path
    if declined:
        client.fast_path = lambda url: False
    try:
        yield
    finally:
        client.fast_path = real


ENGINES = {
    "raw": ("raw aiohttp", raw_aiohttp),
    "bare_litellm": ("bare litellm", bare_litellm),
    "litellm": ("call_model litellm", ours("litellm")),
    "direct": ("call_model direct", ours("direct")),
    "httpx2": ("direct via httpx2", ours("direct")),
    "layer": ("layer alone", layer_alone()),
}


async def ab(args: argparse.Namespace) -> None:
    """The direct path's fast path, its httpx2 client and litellm's path, alternating."""
    arms = [("fast path", "direct", False), ("httpx2", "direct", True)]
    arms.append(("litellm", "litellm", False))
    for conc in (8, 64):
        cpu: dict[str, list[float]] = {label: [] for label, _, _ in arms}
        with FakeOpenAIServer(process=True) as server:
            for _ in range(args.ab):
                for label, key, declined in arms:
                    n = args.litellm_n if key == "litellm" else args.n
                    with fast_path_declined(declined):
                        wall, used, ok = await measure(ENGINES[key][1], server.url, n, conc)
                    assert ok == n, f"{label}: {ok} of {n} answers right"
                    cpu[label].append(used / n * 1000)
        median = {label: statistics.median(values) for label, values in cpu.items()}
        print(f"concurrency {conc}, {args.ab} alternating blocks; CPU ms per call (median):")
        for label, values in cpu.items():
            blocks = " ".join(f"{v:.3f}" for v in values)
            print(f"  {label:<10} {median[label]:.3f}   [{blocks}]")
        fast, via_httpx2, lite = median["fast path"], median["httpx2"], median["litellm"]
        print(
            f"  httpx2 / fast path = {via_httpx2 / fast:.2f} (+{via_httpx2 - fast:.3f} ms per "
            f"call); litellm / direct via httpx2 = {lite / via_httpx2:.2f}",
            flush=True,
        )
    await aclose()


async def measure(fn: Any, url: str, n: int, concurrency: int) -> tuple[float, float, int]:
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> bool:
        async with sem:
            return await fn(url, i)

    await asyncio.gather(*(one(i) for i in range(min(20, n))))  # warm up
    wall0, cpu0 = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(one(i) for i in range(n)))
    return time.perf_counter() - wall0, time.process_time() - cpu0, sum(results)


async def main_async(args: argparse.Namespace) -> None:
    global _SESSION
    only = args.only.split(",") if args.only else list(ENGINES)
    scenarios = [(0.0, 8), (0.0, 64), (0.2, 64)]
    print(
        f"python {sys.version.split()[0]}, fake server in a subprocess; n={args.n} "
        f"(litellm paths n={args.litellm_n})"
    )
    print(
        f"{'engine':<20} {'latency':>7} {'conc':>5} {'n':>5} {'cases/s':>9} "
        f"{'CPU s/1000':>10} {'wall/ideal':>10} {'ok':>5}"
    )
    for latency, conc in scenarios:
        with FakeOpenAIServer(latency=latency, process=True) as server:
            for key in only:
                label, fn = ENGINES[key]
                n = args.litellm_n if "litellm" in key else args.n
                with fast_path_declined(key == "httpx2"):
                    runs = [await measure(fn, server.url, n, conc) for _ in range(args.repeat)]
                wall, cpu, ok = min(runs)  # best wall of the repetitions, as performance.md
                ideal = n / conc * latency
                ratio = f"{wall / ideal:.2f}" if ideal else "-"
                print(
                    f"{label:<20} {latency * 1000:>5.0f}ms {conc:>5} {n:>5} {n / wall:>9.0f} "
                    f"{cpu / n * 1000:>10.2f} {ratio:>10} {ok:>5}",
                    flush=True,
                )
    if _SESSION is not None:
        await _SESSION.close()
    await aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--litellm-n", type=int, default=300)
    parser.add_argument("--only", default="")
    parser.add_argument("--repeat", type=int, default=1, help="repetitions; the best is shown")
    parser.add_argument(
        "--ab", type=int, default=0, metavar="ROUNDS", help="alternate the clients (see above)"
    )
    args = parser.parse_args()
    asyncio.run(ab(args) if args.ab else main_async(args))


if __name__ == "__main__":
    main()
