"""Runner throughput: the full stack (model call, scoring, SQLite, events) beside a bare
``litellm.acompletion`` loop doing the same calls, against the local fake OpenAI server.

Workload (as ``/work/shared/design/performance.md``): 3 tools, N cases ``get_weather city Town{i}``
expecting ``get_weather(city="Town{i}")``, ``tool_choice="required"``, temperature 0, no cache; the
fake server runs in its own process (its CPU is not counted) and answers after the given latency.

Engines:
  full          te.run_eval_async: direct OpenAI-compatible transport (auto), scoring, SQLite
  full-litellm  the same, forcing litellm as the transport
  bare-litellm  litellm.acompletion + asyncio.Semaphore, nothing else (the reference)
  bare-aiohttp  one aiohttp session, the same requests, JSON decoded, nothing else: the floor
                that the transport, the fake server and the machine allow (wall/ideal above
                1.0 here is not the runner's)
  runner-only   the full stack with the model call replaced by ``asyncio.sleep(latency)`` and a
                canned reply (no HTTP, no server): the runner's own cost (scheduling, scoring,
                SQLite, events); its wall/ideal is the runner's share of the overhead

Prints cases/s, CPU seconds per 1,000 cases (this process), wall / ideal (N × latency / c), and
the full stack's rate relative to the bare litellm loop. ``--repeat K`` measures each cell K
times, interleaving the engines, and prints every run (the machine's load varies: compare the
engines within one repetition). Targets: full ≥ 0.9× bare at 0 ms; at 200 ms and
concurrency 64, wall ≤ 1.1× ideal.

    .venv/bin/python benchmarks/bench_runner.py                 # the default grid (~3 min)
    .venv/bin/python benchmarks/bench_runner.py --quick         # 300 cases, fewer cells
    .venv/bin/python benchmarks/bench_runner.py --profile full:0:64   # cProfile one cell
    .venv/bin/python benchmarks/bench_runner.py --targets       # issue 31's figures, one run

``--targets`` measures, in one run beside the raw aiohttp loop on the same fake server: 0 ms × 64
cases/s (target: at least half the raw loop's), 200 ms × 64 wall / ideal (target ≤ 1.08),
CPU seconds per 1,000 cases at 0 ms in steady state (target ≤ 0.5: a run of 3 N cases minus a
run of N, over 2 N; one run's figure beside it), and the first run in a fresh
process against a second one in it (200 ms × 64 in a subprocess, on the store the benchmark's
runs made, as a user's exists; target: within 0.1 s; the package's bytecode is brought up to
date first, as an install writes it). The 0 ms runs are
repeated (:data:`CPU_REPEATS`) and the fresh processes are several (:data:`FRESH_PROCESSES`):
their figures are medians, each run printed beside them (the 200 ms row is one run).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tooleval_nb as te  # noqa: E402
from tooleval_nb.testing import FakeOpenAIServer  # noqa: E402

TOOLS = [
    te.Tool.create("get_weather", "Current weather", {"city": {"type": "string"}}, ["city"]),
    te.Tool.create(
        "get_forecast",
        "Forecast",
        {"city": {"type": "string"}, "days": {"type": "integer"}},
        ["city"],
    ),
    te.Tool.create("get_time", "Local time", {"city": {"type": "string"}}, ["city"]),
]


def make_suite(n: int) -> te.Suite:
    return te.Suite(
        name=f"bench{n}",
        tools=TOOLS,
        cases=[
            te.EvalCase(
                id=f"c{i}",
                prompt=f"get_weather city Town{i}",
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
            )
            for i in range(n)
        ],
    )


#: the run store of the full-stack engines: one file for the whole benchmark, as a user's store
#: (``TOOLEVAL_STORE``) exists before their run; creating a SQLite file in WAL mode costs about
#: 30 ms of fsyncs here, once per store, not per run
_STORE_DIR = tempfile.TemporaryDirectory(prefix="bench_runner_")
STORE = Path(_STORE_DIR.name) / "runs.db"


async def run_full(suite: te.Suite, url: str, concurrency: int, transport: str) -> te.Run:
    """The run (timed up to here: the runner's work ends when ``run_eval_async`` returns the
    stored run; counting its passes, as the bare loops count theirs, is done after the clock)."""
    return await te.run_eval_async(
        suite,
        [{"model": "openai/fake", "api_base": url, "api_key": "sk-bench", "transport": transport}],
        max_concurrency=concurrency,
        cache=False,
        store=STORE,
        resume=False,
    )


def passed(run: te.Run) -> int:
    return int(run.results_df()["passed"].sum())


async def run_bare(suite: te.Suite, url: str, concurrency: int) -> int:
    import litellm

    tools = [t.to_openai() for t in TOOLS]
    sem = asyncio.Semaphore(concurrency)
    ok = 0

    async def one(case: te.EvalCase) -> None:
        nonlocal ok
        async with sem:
            resp = await litellm.acompletion(
                model="openai/fake",
                api_base=url,
                api_key="sk-bench",
                temperature=0.0,
                messages=[{"role": "user", "content": case.prompt}],
                tools=tools,
                tool_choice="required",
            )
        calls = resp.choices[0].message.tool_calls or []
        ok += bool(calls) and calls[0].function.name == "get_weather"

    await asyncio.gather(*(one(c) for c in suite.cases))
    return ok


async def run_bare_aiohttp(suite: te.Suite, url: str, concurrency: int) -> int:
    import aiohttp

    tools = [t.to_openai() for t in TOOLS]
    ok = 0
    cases = iter(suite.cases)
    connector = aiohttp.TCPConnector(limit=512, limit_per_host=0)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            nonlocal ok
            for case in cases:
                body = {
                    "model": "fake",
                    "temperature": 0.0,
                    "tools": tools,
                    "tool_choice": "required",
                    "messages": [{"role": "user", "content": case.prompt}],
                }
                async with session.post(
                    f"{url.rstrip('/')}/chat/completions",
                    json=body,
                    headers={"Authorization": "Bearer sk-bench"},
                ) as resp:
                    data = await resp.json()
                calls = data["choices"][0]["message"].get("tool_calls") or []
                ok += bool(calls) and calls[0]["function"]["name"] == "get_weather"

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return ok


async def run_runner_only(suite: te.Suite, concurrency: int, latency: float) -> te.Run:
    import tooleval_nb.runner.cell as cell  # the module that runs a cell's model calls
    from tooleval_nb.models import ModelReply

    real = cell.call_model_async

    async def canned(spec, messages, tools=None, tool_choice="auto", **_):  # noqa: ANN001
        await asyncio.sleep(latency)
        city = messages[-1]["content"].rsplit(" ", 1)[-1]
        return ModelReply(
            model=spec.model,
            tool_calls=[te.ToolCall.create("get_weather", {"city": city})],
            prompt_tokens=50,
            completion_tokens=10,
            latency_ms=latency * 1000,
            tries=1,
            raw={"id": "canned", "choices": []},
        )

    cell.call_model_async = canned
    try:
        return await run_full(suite, "http://127.0.0.1:9/v1", concurrency, "auto")
    finally:
        cell.call_model_async = real


async def measure(
    engine: str, n: int, url: str, concurrency: int, latency: float = 0.0, profile: Any = None
) -> tuple[float, float, int]:
    """One engine's run: wall and CPU seconds of the run alone (the suite is built before the
    clock starts, the passes counted after it), and the cases that passed. ``profile``: a
    ``cProfile.Profile`` enabled for exactly the timed part."""
    suite = make_suite(n)
    if profile is not None:
        profile.enable()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    done: te.Run | int
    if engine == "full":
        done = await run_full(suite, url, concurrency, "auto")
    elif engine == "full-litellm":
        done = await run_full(suite, url, concurrency, "litellm")
    elif engine == "bare-aiohttp":
        done = await run_bare_aiohttp(suite, url, concurrency)
    elif engine == "runner-only":
        done = await run_runner_only(suite, concurrency, latency)
    else:
        done = await run_bare(suite, url, concurrency)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    if profile is not None:
        profile.disable()
    return wall, cpu, done if isinstance(done, int) else passed(done)


async def warm_up(url: str, engines: list[str]) -> None:
    for engine in engines:  # imports, sessions, first-call costs
        await measure(engine, 20, url, 8)


def _first_and_warm(n: int, url: str, engine: str) -> tuple[float, float]:
    """In this (fresh) process: the wall time of the first run of ``engine`` at 200 ms × 64,
    then of a second one (what a CLI or a papermill report pays once)."""
    first = asyncio.run(measure(engine, n, url, 64, 0.2))[0]
    warm = asyncio.run(measure(engine, n, url, 64, 0.2))[0]
    return first, warm


#: fresh processes per engine in ``--targets`` (the figure is their median: one process's
#: first run varies by tens of milliseconds with what the machine does meanwhile)
FRESH_PROCESSES = 5

#: repetitions of the 0 ms runs (N and 3 N cases, each engine) in ``--targets``: the cases/s and
#: CPU figures are their medians (the steady-state CPU, a difference of two runs, carries the
#: noise of both; one pair of runs proved little either way)
CPU_REPEATS = 3


def targets(n: int) -> None:
    """Issue 31's figures, each beside the raw aiohttp loop's, in one run (see the docstring).

    CPU per case is printed twice: for one run of ``n`` cases (what the run costs, its start and
    summary included) and in steady state, the cost of each further case: the CPU of a run of
    ``3 n`` cases minus that of a run of ``n``, over ``2 n`` (a run's fixed costs, such as the
    suite's fingerprint and the job's rows, cancel out)."""
    import statistics
    import subprocess

    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    # (engine, latency, cases) -> (wall, cpu) of each repetition
    fig: dict[tuple[str, float, int], list[tuple[float, float]]] = {}
    fresh: dict[str, list[tuple[float, float]]] = {"bare-aiohttp": [], "full": []}
    for latency in (0.0, 0.2):
        with FakeOpenAIServer(latency=latency, process=True) as server:
            asyncio.run(warm_up(server.url, ["bare-aiohttp", "full"]))
            for _ in range(CPU_REPEATS if latency == 0 else 1):
                for size in (n, 3 * n) if latency == 0 else (n,):
                    for engine in ("bare-aiohttp", "full"):
                        wall, cpu, ok = asyncio.run(measure(engine, size, server.url, 64, latency))
                        assert ok == size, f"{engine}: {ok} of {size} passed"
                        fig.setdefault((engine, latency, size), []).append((wall, cpu))
            if latency:
                # the fresh process imports tooleval_nb as an installed package does: from the
                # bytecode written at install (pip, uv --compile-bytecode, scripts/setup.sh),
                # not compiling modules edited since (PYTHONDONTWRITEBYTECODE keeps a process
                # from writing it)
                compileall.compile_dir(Path(te.__file__).parent, quiet=1)
                for _ in range(FRESH_PROCESSES):
                    for engine in ("bare-aiohttp", "full"):
                        out = subprocess.run(
                            [
                                sys.executable,
                                __file__,
                                "--first-run",
                                engine,
                                "--cases",
                                str(n),
                                "--url",
                                server.url,
                                "--store",
                                str(STORE),
                            ],
                            capture_output=True,
                            text=True,
                            check=True,
                        )
                        first, warm = (float(x) for x in out.stdout.split())
                        fresh[engine].append((first, warm))
    ideal = n * 0.2 / 64
    median = statistics.median
    raw2, full2 = fig["bare-aiohttp", 0.2, n][0], fig["full", 0.2, n][0]
    # per repetition: cases/s, CPU s per 1,000 cases for one run, in steady state
    rate = {e: [n / wall for wall, _ in fig[e, 0.0, n]] for e in fresh}
    one_run = {e: [cpu / n * 1000 for _, cpu in fig[e, 0.0, n]] for e in fresh}
    steady = {
        e: [
            (big[1] - small[1]) / (2 * n) * 1000
            for small, big in zip(fig[e, 0.0, n], fig[e, 0.0, 3 * n], strict=True)
        ]
        for e in fresh
    }
    share = [ours / raw for ours, raw in zip(rate["full"], rate["bare-aiohttp"], strict=True)]
    gap = {e: [first - warm for first, warm in fresh[e]] for e in fresh}

    def each(values: list[float], digits: int) -> str:
        return ", ".join(f"{v:.{digits}f}" for v in values)

    rows = [
        (
            "0 ms x 64 cases/s",
            f"{median(rate['full']):.0f}",
            f"{median(rate['bare-aiohttp']):.0f}",
            f"{median(share):.2f} of raw (target >= 0.50)",
        ),
        (
            "200 ms x 64 wall/ideal (one run)",
            f"{full2[0] / ideal:.3f}",
            f"{raw2[0] / ideal:.3f}",
            "target <= 1.08",
        ),
        (
            "CPU s / 1000 cases (0 ms), one run",
            f"{median(one_run['full']):.2f}",
            f"{median(one_run['bare-aiohttp']):.2f}",
            f"{median(one_run['full']) / median(one_run['bare-aiohttp']):.2f}x raw",
        ),
        (
            "CPU s / 1000 cases, steady state",
            f"{median(steady['full']):.2f}",
            f"{median(steady['bare-aiohttp']):.2f}",
            f"target <= 0.50 ({median(steady['full']) / median(steady['bare-aiohttp']):.2f}x raw)",
        ),
        (
            "fresh process: first - warm s",
            f"{median(gap['full']):.3f}",
            f"{median(gap['bare-aiohttp']):.3f}",
            "target <= 0.10",
        ),
    ]
    print(f"{'figure (median of runs)':<36}{'runner':>8}{'raw loop':>10}  note")
    for name, ours, raw, note in rows:
        print(f"{name:<36}{ours:>8}{raw:>10}  {note}")
    print(f"each of {CPU_REPEATS} repetitions at 0 ms (runner / raw):")
    print(f"  share of raw cases/s      {each(share, 2)}")
    for name, values in (("CPU one run", one_run), ("CPU steady state", steady)):
        print(f"  {name:<25} {each(values['full'], 2)} / {each(values['bare-aiohttp'], 2)}")
    print(
        f"each of {FRESH_PROCESSES} fresh processes, first - warm s: "
        f"runner {each(gap['full'], 3)}; raw {each(gap['bare-aiohttp'], 3)}"
    )
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--latencies", default="0,0.2")
    parser.add_argument("--concurrency", default="1,8,32,64")
    parser.add_argument("--engines", default="full,full-litellm,bare-litellm,bare-aiohttp")
    parser.add_argument(
        "--slow-serial-cases",
        type=int,
        default=50,
        help="cases for concurrency 1 at a latency > 0 (1000 × 0.2 s is 200 s)",
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", default=None, help="engine:latency:concurrency")
    parser.add_argument(
        "--targets",
        action="store_true",
        help="issue 31's figures beside the raw loop's, in one run",
    )
    parser.add_argument("--first-run", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--url", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--store", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.first_run:  # the fresh process of --targets: prints first and warm wall times
        global STORE
        # the store this benchmark's runs made: a user's store exists before a fresh process's
        # run (its creation, about 30 ms of fsyncs here, is paid once per store, see STORE)
        STORE = Path(args.store) if args.store else STORE
        print(*_first_and_warm(args.cases, args.url, args.first_run))
        return
    if args.targets:
        targets(args.cases)
        return
    if args.quick:
        args.cases, args.concurrency = 300, "8,64"
    order = ["bare-litellm", "bare-aiohttp", "full", "full-litellm", "runner-only"]
    engines = sorted(args.engines.split(","), key=lambda e: order.index(e) if e in order else 9)

    if args.profile:
        import cProfile
        import pstats

        engine, lat, conc = args.profile.split(":")
        with FakeOpenAIServer(latency=float(lat), process=True) as server:
            asyncio.run(warm_up(server.url, [engine]))
            prof = cProfile.Profile()  # the run alone: not the suite's making nor the count
            wall, cpu, ok = asyncio.run(
                measure(engine, args.cases, server.url, int(conc), float(lat), profile=prof)
            )
        print(
            f"{engine} latency {lat} c={conc}: {args.cases / wall:.0f} cases/s, "
            f"{cpu / args.cases * 1000:.2f} CPU s/1000, ok {ok}"
        )
        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return

    print(
        f"{'engine':<14}{'latency':>8}{'conc':>6}{'cases':>7}{'wall s':>9}{'cases/s':>10}"
        f"{'CPU s/1k':>10}{'wall/ideal':>11}{'vs bare':>9}{'ok':>6}"
    )
    for latency in [float(x) for x in args.latencies.split(",")]:
        with FakeOpenAIServer(latency=latency, process=True) as server:
            asyncio.run(warm_up(server.url, engines))
            for conc in [int(x) for x in args.concurrency.split(",")]:
                n = args.slow_serial_cases if (latency > 0 and conc == 1) else args.cases
                rates: dict[str, float] = {}
                for engine in engines * args.repeat:
                    wall, cpu, ok = asyncio.run(measure(engine, n, server.url, conc, latency))
                    rates[engine] = n / wall
                    ideal = n * latency / conc
                    ratio = f"{wall / ideal:.2f}" if ideal else "-"
                    versus = (
                        f"{rates[engine] / rates['bare-litellm']:.2f}x"
                        if "bare-litellm" in rates and engine != "bare-litellm"
                        else ""
                    )
                    print(
                        f"{engine:<14}{latency * 1000:>6.0f}ms{conc:>6}{n:>7}{wall:>9.2f}"
                        f"{n / wall:>10.0f}{cpu / n * 1000:>10.2f}{ratio:>11}{versus:>9}"
                        f"{ok:>6}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
