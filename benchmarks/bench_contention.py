"""The embedded model beside a busy process: does a reply still take seconds, not minutes?

llama.cpp (built with OpenMP here) runs each decode step on ``n_threads`` threads that meet at a
barrier; an idle thread spins there before it sleeps. With every core given to the model and one
other busy process (a test worker, a second kernel, a notebook's own computation), one of those
threads keeps losing its core while the others spin for it, and each step waits for the
scheduler. ``EmbeddedServer`` therefore starts the server with ``GOMP_SPINCOUNT=1000``
(``embedded_contract.SPIN_COUNT``) unless the user set a spin count or a wait policy.

In one run, on this machine, for libgomp's default spin count and for ours: the mean seconds of
the same chat requests (a ~400-token prompt, 32 generated tokens, each prompt new so nothing comes
from the KV cache) on a quiet machine, then beside one busy process (a Python loop that never
sleeps). Target: ours beside the busy process within 5 times its quiet time, and its quiet time
within 10% of libgomp's default.

    .venv/bin/python benchmarks/bench_contention.py            # about 3 to 6 minutes on 2 cores
    .venv/bin/python benchmarks/bench_contention.py --requests 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tooleval_nb.models.embedded import EmbeddedServer
from tooleval_nb.models.embedded_contract import SPIN_COUNT


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "n/a"


def ask(api_base: str, i: int) -> float:
    body = {
        "model": "m",
        "temperature": 0,
        "max_tokens": 32,
        "messages": [
            {"role": "system", "content": f"{i}. " + "You are a helpful assistant. " * 60},
            {"role": "user", "content": f"Write a short poem about the sea, number {i}."},
        ],
    }
    request = urllib.request.Request(
        f"{api_base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=1800) as reply:
        reply.read()
    return time.perf_counter() - start


def measure(spin: str | None, requests: int, threads: int) -> tuple[float, float]:
    """Mean seconds per request: quiet, then beside one busy process."""
    os.environ.pop("OMP_WAIT_POLICY", None)
    if spin is None:
        os.environ["GOMP_SPINCOUNT"] = "300000"  # libgomp's own default for OMP_WAIT_POLICY unset
    else:
        os.environ["GOMP_SPINCOUNT"] = spin
    with EmbeddedServer("chatml", n_threads=threads) as server:
        ask(server.api_base, 0)  # the first request loads the model's pages
        quiet = [ask(server.api_base, i) for i in range(1, requests + 1)]
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            loaded = [ask(server.api_base, i) for i in range(100, 100 + requests)]
        finally:
            busy.kill()
            busy.wait()
    return statistics.mean(quiet), statistics.mean(loaded)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3, help="requests per measurement")
    args = parser.parse_args()
    threads = os.cpu_count() or 1
    print(f"cores: {threads}, n_threads: {threads}, load average at start: {loadavg()}")
    results = {}
    for label, spin in (("libgomp's default (300000)", None), (f"ours ({SPIN_COUNT})", SPIN_COUNT)):
        quiet, loaded = measure(spin, args.requests, threads)
        results[label] = (quiet, loaded)
        print(
            f"{label:28s} quiet {quiet:7.2f} s/request   beside a busy process {loaded:8.2f} s"
            f"/request   ({loaded / quiet:6.1f} x)",
            flush=True,
        )
    (d_quiet, d_loaded), (o_quiet, o_loaded) = results.values()
    print(f"ours beside a busy process: {d_loaded / o_loaded:.1f} x faster than libgomp's default")
    print(f"ours on a quiet machine: {o_quiet / d_quiet:.2f} of libgomp's default's time")
    print(f"load average at end: {loadavg()}")


if __name__ == "__main__":
    main()
