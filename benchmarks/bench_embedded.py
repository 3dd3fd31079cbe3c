"""The main job's cost against the model's own: is our overhead at most a quarter of its time?

In one run, on this machine:

1. llama.cpp alone (``llama_cpp.Llama`` in this process, the server's thread settings): the
   prompt rate (tokens/s evaluating a ~900-token prompt from an empty cache) and the generation
   rate (tokens/s decoding one token at a time);
2. the main job: every bundled suite (``data/``) on the embedded model with the default settings
   and no reply cache, one run per suite in order, as ``tooleval-nb report`` runs them;
3. the tokens that run made the model evaluate, read from the server's own counters
   (``EmbeddedServer.stats()``: prompt tokens after KV-cache prefix reuse, generated tokens, the
   seconds inside llama.cpp's decode);
4. the ratio: the time llama.cpp alone needs for those tokens (prompt tokens / prompt rate +
   generated tokens / generation rate) over the run's wall time. Target: >= 0.8.

Also printed: how many cases errored or timed out (target: none), and the seconds the model was
busy (its decode time as the server measured it), which splits the rest into the server's own
Python (grammar sampling, templating, HTTP) and ours.

    .venv/bin/python benchmarks/bench_embedded.py            # every bundled suite (~2-3 min)
    .venv/bin/python benchmarks/bench_embedded.py --suite data/weather.json
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import tooleval_nb as te  # noqa: E402
from tooleval_nb.models.embedded import EmbeddedServer, find_gguf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def llama_rates(server: EmbeddedServer, prompt_tokens: int = 900, gen_tokens: int = 128,
                repeats: int = 3) -> tuple[float, float]:
    """(prompt tokens/s, generated tokens/s) of llama.cpp alone, with the server's settings."""
    from llama_cpp import Llama

    kwargs = {"n_threads": server.n_threads} if server.n_threads else {}
    llm = Llama(model_path=str(find_gguf()), n_ctx=server.n_ctx, verbose=False, **kwargs)
    text = " ".join(f"word{i} and some more text about tools" for i in range(400))
    tokens = llm.tokenize(text.encode())[:prompt_tokens]
    prompt_times, gen_times = [], []
    for _ in range(repeats):
        llm.reset()
        start = time.perf_counter()
        llm.eval(tokens)
        prompt_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for _ in range(gen_tokens):  # one token at a time, as generation decodes
            llm.eval([llm.sample(temp=0.0)])
        gen_times.append(time.perf_counter() - start)
    del llm
    return len(tokens) / statistics.median(prompt_times), gen_tokens / statistics.median(gen_times)


async def run_suites(suites: list[te.Suite], store: str, server: EmbeddedServer
                     ) -> tuple[float, list[te.Run], list[tuple[str, float, dict[str, float]]]]:
    """Run each suite in order; also (suite, seconds, the server's counters used) per suite."""
    start = time.perf_counter()
    runs, per_suite = [], []
    for suite in suites:
        t0, before = time.perf_counter(), server.stats()
        runs.append(await te.run_eval_async(suite, [te.DEFAULT_MODEL], store=store, cache=False))
        after = server.stats()
        per_suite.append((suite.name, time.perf_counter() - t0,
                          {k: after[k] - before[k] for k in after}))
    return time.perf_counter() - start, runs, per_suite


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default=str(ROOT / "data"),
                    help="a suite file or folder (default: the bundled suites)")
    args = ap.parse_args()
    suites = te.load_suites(args.suite)
    n_cases = sum(len(s.cases) for s in suites)

    server = te.embedded_server()  # the one the runs use (started once, before timing)
    print(f"llama.cpp alone (n_threads={server.n_threads or 'server default'}, "
          f"n_ctx={server.n_ctx}):", flush=True)
    prompt_rate, gen_rate = llama_rates(server)
    print(f"  prompt     {prompt_rate:8.1f} tokens/s")
    print(f"  generation {gen_rate:8.1f} tokens/s", flush=True)

    before = server.stats()
    with tempfile.TemporaryDirectory() as tmp:
        wall, runs, per_suite = asyncio.run(run_suites(suites, str(Path(tmp) / "store.db"),
                                                       server))
    after = server.stats()
    used = {k: after[k] - before[k] for k in after}

    frames = [r.results_df() for r in runs]
    errors = sum(int(df["error"].notna().sum()) for df in frames)
    timeouts = sum(int((df["error_type"] == "timeout").sum()) for df in frames
                   if "error_type" in df.columns)
    def alone_s(u: dict[str, float]) -> float:  # what llama.cpp alone needs for these tokens
        return u["prompt_tokens"] / prompt_rate + u["generated_tokens"] / gen_rate

    model_alone = alone_s(used)
    print(f"\n{'suite':<18} {'cases':>5} {'requests':>8} {'prompt tok':>10} {'gen tok':>8} "
          f"{'wall s':>7} {'model-alone s':>13}")
    for (name, seconds, u), suite in zip(per_suite, suites, strict=True):
        print(f"{name[:18]:<18} {len(suite.cases):>5} {u['requests']:>8.0f} "
              f"{u['prompt_tokens']:>10,.0f} {u['generated_tokens']:>8,.0f} {seconds:>7.1f} "
              f"{alone_s(u):>13.1f}")
    print(f"\nthe run: {len(suites)} suites, {n_cases} cases, {used['requests']} requests")
    print(f"  tokens evaluated  prompt {used['prompt_tokens']:,}  generated "
          f"{used['generated_tokens']:,}  (completions cut by the token bound: "
          f"{used['cut_completions']})")
    print(f"  errors {errors} (timeouts {timeouts})")
    print(f"  wall time                      {wall:7.1f} s")
    print(f"  model alone for those tokens   {model_alone:7.1f} s")
    print(f"  model busy (server's decode)   {used['eval_seconds']:7.1f} s")
    print(f"  ratio model-alone / wall       {model_alone / wall:7.2f}   (target >= 0.8)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
