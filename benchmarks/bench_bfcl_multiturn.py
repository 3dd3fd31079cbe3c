#!/usr/bin/env python
"""BFCL's multi-turn loop end to end: our run's time against a bare loop of the same requests.

``te.run_bfcl`` on multi-turn entries (the scripted model of
``tooleval_nb.testing.bfcl_script`` on the fake OpenAI-compatible server, in its own process,
answering after ``--latency`` seconds), then the very same requests sent by a bare aiohttp loop
to the same server: each entry's requests one after another (a step needs the one before it),
``--concurrency`` entries at a time, the reply's JSON decoded and nothing else. Our run does
everything else too: the runner (cache lookups off, retries, the store, events), BFCL's
environments executing every call, the result files. The figure is bare time / our time
(target: 0.9 or more: the run is limited by the server, not by us).

The requests are recorded from a first run (``max_concurrency=1``, so each entry's requests
come together), then both loops run ``--rounds`` times alternately.

    .venv/bin/python benchmarks/bench_bfcl_multiturn.py [--per-category 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _bare import bare_loop  # benchmarks/_bare.py: this script's folder comes first on the path

ROOT = Path(__file__).resolve().parents[1]
HANDLER = "tooleval_nb.testing.bfcl_script:answer"
CATEGORIES = [
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
]
#: the target: the bare loop's time over ours, on the same requests and server
TARGET = 0.9


def _env() -> None:
    path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{path}" if path else str(ROOT)


def record(per_category: int, mode: str, out: Path) -> list[list[dict[str, Any]]]:
    """Each entry's request bodies, in order (one run, one entry at a time)."""
    from tooleval_nb.bfcl import run_bfcl
    from tooleval_nb.testing import bfcl_script
    from tooleval_nb.testing.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(handler=bfcl_script.answer) as server:
        model = {"model": "openai/fake", "api_base": server.url, "api_key": "k"}
        run_bfcl(
            model,
            CATEGORIES,
            mode=mode,
            limit=per_category,
            store=out / "record.db",
            progress="none",
            cache=False,
            max_concurrency=1,
        ).result()
        bodies = server.bodies
    entries: list[list[dict[str, Any]]] = []
    for body in bodies:  # within an entry every request holds more messages than the last
        if not entries or len(body["messages"]) <= len(entries[-1][-1]["messages"]):
            entries.append([])
        entries[-1].append(body)
    return entries


def ours(
    per_category: int, mode: str, latency: float, concurrency: int, out: Path
) -> tuple[float, int]:
    from tooleval_nb.bfcl import run_bfcl
    from tooleval_nb.testing.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(latency=latency, process=True, handler=HANDLER) as server:
        model = {"model": "openai/fake", "api_base": server.url, "api_key": "k"}
        t0 = time.perf_counter()
        run_bfcl(
            model,
            CATEGORIES,
            mode=mode,
            limit=per_category,
            store=out / f"ours-{time.monotonic_ns()}.db",
            output=out / "files",
            progress="none",
            cache=False,
            max_concurrency=concurrency,
        ).result()
        wall = time.perf_counter() - t0
        return wall, server.requests


def bare(
    entries: list[list[dict[str, Any]]], latency: float, concurrency: int
) -> tuple[float, int]:
    """The recorded requests from the bare loop (benchmarks/_bare.py)."""
    return bare_loop(entries, handler=HANDLER, latency=latency, concurrency=concurrency)


def measure(
    per_category: int = 10,
    mode: str = "fc",
    latency: float = 0.05,
    concurrency: int = 8,
    rounds: int = 3,
) -> dict[str, Any]:
    """Our run's time and the bare loop's on the same requests; returns the figures
    (``ratio``: the median over the rounds of bare time / our time)."""
    _env()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        entries = record(per_category, mode, out)
        n_requests = sum(len(e) for e in entries)
        ours(1, mode, latency, concurrency, out / "warm")  # imports, first connections
        ratios, walls, bare_walls = [], [], []
        for i in range(rounds):
            wall, n_ours = ours(per_category, mode, latency, concurrency, out / f"r{i}")
            bare_wall, n_bare = bare(entries, latency, concurrency)
            if n_ours != n_requests or n_bare != n_requests:
                raise RuntimeError(
                    f"requests differ: recorded {n_requests}, ours {n_ours}, bare {n_bare}"
                )
            walls.append(wall)
            bare_walls.append(bare_wall)
            ratios.append(bare_wall / wall)
    return {
        "mode": mode,
        "entries": len(entries),
        "requests": n_requests,
        "latency": latency,
        "concurrency": concurrency,
        "ours_s": walls,
        "bare_s": bare_walls,
        "ratio": statistics.median(ratios),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-category", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="fc,prompt")
    args = parser.parse_args(argv)
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load average {' '.join(load)} on {os.cpu_count()} CPUs", flush=True)
    ok = True
    for mode in args.modes.split(","):
        f = measure(args.per_category, mode, args.latency, args.concurrency, args.rounds)
        print(
            f"MULTI-TURN {mode}: {f['entries']} entries, {f['requests']} requests "
            f"(latency {f['latency']} s, {f['concurrency']} entries at a time): ours "
            f"{', '.join(f'{w:.2f}' for w in f['ours_s'])} s, bare loop "
            f"{', '.join(f'{w:.2f}' for w in f['bare_s'])} s; bare / ours = "
            f"{f['ratio']:.2f} (median of {len(f['ours_s'])}; target >= {TARGET})",
            flush=True,
        )
        ok = ok and f["ratio"] >= TARGET
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
