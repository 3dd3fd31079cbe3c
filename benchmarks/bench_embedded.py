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

Also printed: how many cases errored or timed out (target: none), and where the wall time went,
from the server's counters: llama.cpp's decode, token sampling (grammar included; with how often
the grammar rejected the argmax, and how often it then had to run over the whole vocabulary), the rest of the
server's chat handler (templating, tokenizing, grammar building), and everything outside it (HTTP,
the server's request parsing, our client and runner); then how many tokens went to completions
cut by the token bound, and the completions' lengths. The load average is printed at the start
and the end: on a shared machine compare the ratios and token counts, not the seconds.

``--save FILE`` writes every case's tool calls and text (JSON), ``--compare FILE`` counts the cases
whose calls or text differ from a saved run: a speed change that claims identical replies at
temperature 0 must show 0.

    .venv/bin/python benchmarks/bench_embedded.py            # every bundled suite (~2-3 min)
    .venv/bin/python benchmarks/bench_embedded.py --suite data/weather.json
    .venv/bin/python benchmarks/bench_embedded.py --save before.json   # then, after a change:
    .venv/bin/python benchmarks/bench_embedded.py --compare before.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import tooleval_nb as te  # noqa: E402
from tooleval_nb.models.embedded import EmbeddedServer, find_gguf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "n/a"


def delta(after: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """The server's counters used between two reads (numbers only)."""
    return {k: after[k] - before.get(k, 0) for k in after if isinstance(after[k], (int, float))}


def replies(runs: list[te.Run]) -> dict[str, list[Any]]:
    """Every case's tool calls (names and arguments: the ids are the server's random ones) and
    final text, by ``suite/case``."""
    out: dict[str, list[Any]] = {}
    for run in runs:
        df = run.results_df()
        for row in df.itertuples():
            out[f"{run.suite_name}/{row.case_id}"] = [
                _calls(row.tool_calls),
                _text(row.content),
                _text(row.error),
            ]
    return out


def _text(value: Any) -> Any:
    """A text column's value, None for a missing one (pandas gives NaN, which equals nothing,
    itself included, so that every case without text would count as differing)."""
    return value if isinstance(value, str) else None


def _calls(stored: Any) -> Any:
    """Stored tool calls (JSON text) as ``[[name, arguments], ...]``; other values as they are."""
    try:
        calls = json.loads(stored) if isinstance(stored, str) else stored
        return [[c["function"]["name"], c["function"]["arguments"]] for c in calls]
    except (TypeError, ValueError, KeyError):
        return stored


def llama_rates(
    server: EmbeddedServer, prompt_tokens: int = 900, gen_tokens: int = 128, repeats: int = 3
) -> tuple[float, float, float, float]:
    """llama.cpp alone, with the server's settings: (prompt tokens/s, generated tokens/s, and the
    fit of one prompt batch's cost as ``fixed + k * per_token`` seconds for a batch of k tokens
    after a 600-token prefix, as a request's new tokens are evaluated after the cached prefix)."""
    from llama_cpp import Llama

    from tooleval_nb.models._llama_main import configure_buffer_types

    configure_buffer_types()  # as the server does: AMX buffers crash in a VM without tile state
    kwargs = {"n_threads": server.n_threads} if server.n_threads else {}
    llm = Llama(model_path=str(find_gguf()), n_ctx=server.n_ctx, verbose=False, **kwargs)
    text = " ".join(f"word{i} and some more text about tools" for i in range(400))
    tokens = llm.tokenize(text.encode())[:prompt_tokens]
    sizes = (1, 4, 16, 64, 256)
    prompt_times, gen_times = [], []
    batch_times: dict[int, list[float]] = {k: [] for k in sizes}
    for _ in range(repeats):
        llm.reset()
        start = time.perf_counter()
        llm.eval(tokens)
        prompt_times.append(time.perf_counter() - start)
        for k in sizes:  # a batch of k new tokens after a cached prefix
            llm.n_tokens = 600
            start = time.perf_counter()
            llm.eval(tokens[600 : 600 + k])
            batch_times[k].append(time.perf_counter() - start)
        start = time.perf_counter()
        for _ in range(gen_tokens):  # one token at a time, as generation decodes
            llm.eval([llm.sample(temp=0.0)])
        gen_times.append(time.perf_counter() - start)
    del llm
    xs = list(sizes)
    ys = [statistics.median(batch_times[k]) for k in sizes]
    per_token, fixed = statistics.linear_regression(xs, ys)
    return (
        len(tokens) / statistics.median(prompt_times),
        gen_tokens / statistics.median(gen_times),
        max(fixed, 0.0),
        per_token,
    )


async def run_suites(
    suites: list[te.Suite], store: str, server: EmbeddedServer, params: dict[str, Any] | None = None
) -> tuple[float, list[te.Run], list[tuple[str, float, dict[str, float]]]]:
    """Run each suite in order; also (suite, seconds, the server's counters used) per suite."""
    start = time.perf_counter()
    runs, per_suite = [], []
    for suite in suites:
        t0, before = time.perf_counter(), server.stats()
        runs.append(
            await te.run_eval_async(
                suite, [te.DEFAULT_MODEL], store=store, cache=False, params=params or {}
            )
        )
        after = server.stats()
        per_suite.append((suite.name, time.perf_counter() - t0, delta(after, before)))
    return time.perf_counter() - start, runs, per_suite


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--suite",
        default=str(ROOT / "data"),
        help="a suite file or folder (default: the bundled suites)",
    )
    ap.add_argument("--save", help="write every case's tool calls and text to this JSON file")
    ap.add_argument("--compare", help="count the cases whose replies differ from a --save file")
    ap.add_argument(
        "--params",
        type=json.loads,
        default=None,
        help="sampling parameters for every request, as JSON (run_eval's params), "
        "e.g. '{\"repeat_penalty\": 1.0}' to try a setting before making it a default",
    )
    args = ap.parse_args()
    print(f"load average at start: {loadavg()}")
    suites = te.load_suites(args.suite)
    n_cases = sum(len(s.cases) for s in suites)

    server = te.embedded_server()  # the one the runs use (started once, before timing)
    print(
        f"llama.cpp alone (n_threads={server.n_threads or 'server default'}, "
        f"n_ctx={server.n_ctx}):",
        flush=True,
    )
    prompt_rate, gen_rate, batch_fixed, batch_per_token = llama_rates(server)
    print(f"  prompt     {prompt_rate:8.1f} tokens/s")
    print(f"  generation {gen_rate:8.1f} tokens/s")
    print(
        f"  one prompt batch of k tokens after a cached prefix: {batch_fixed * 1000:.1f} ms "
        f"+ k x {batch_per_token * 1000:.2f} ms",
        flush=True,
    )

    before = server.stats()
    with tempfile.TemporaryDirectory() as tmp:
        wall, runs, per_suite = asyncio.run(
            run_suites(suites, str(Path(tmp) / "store.db"), server, args.params)
        )
    after = server.stats()
    used = delta(after, before)
    lengths = {
        k: v - before.get("completion_lengths", {}).get(k, 0)
        for k, v in after.get("completion_lengths", {}).items()
    }

    frames = [r.results_df() for r in runs]
    errors = sum(int(df["error"].notna().sum()) for df in frames)
    timeouts = sum(
        int((df["error_type"] == "timeout").sum()) for df in frames if "error_type" in df.columns
    )

    def alone_s(u: dict[str, float]) -> float:  # what llama.cpp alone needs for these tokens
        return u["prompt_tokens"] / prompt_rate + u["generated_tokens"] / gen_rate

    model_alone = alone_s(used)
    # the same tokens in the batches the run evaluated them in (each request's new tokens are a
    # small batch after the cached prefix: it costs about a generated token's fixed cost)
    batched_alone = (
        used["prompt_evals"] * batch_fixed
        + used["prompt_tokens"] * batch_per_token
        + used["generated_tokens"] / gen_rate
    )
    print(
        f"\n{'suite':<18} {'cases':>5} {'requests':>8} {'prompt tok':>10} {'gen tok':>8} "
        f"{'wall s':>7} {'model-alone s':>13} {'passed':>6} {'overall':>7}"
    )
    for (name, seconds, u), suite, run in zip(per_suite, suites, runs, strict=True):
        frame = run.results_df()
        print(
            f"{name[:18]:<18} {len(suite.cases):>5} {u['requests']:>8.0f} "
            f"{u['prompt_tokens']:>10,.0f} {u['generated_tokens']:>8,.0f} {seconds:>7.1f} "
            f"{alone_s(u):>13.1f} {int(frame['passed'].sum()):>6} "
            f"{frame['overall'].mean():>7.3f}"
        )
    print(f"\nthe run: {len(suites)} suites, {n_cases} cases, {used['requests']} requests")
    print(
        f"  tokens evaluated  prompt {used['prompt_tokens']:,}  generated "
        f"{used['generated_tokens']:,}  (completions cut by the token bound: "
        f"{used['cut_completions']})"
    )
    print(
        f"  handler shortcuts: choices stopped once forced {used.get('early_choices', 0):,}, "
        f"thrown-away follow-ups not asked {used.get('skipped_follow_ups', 0):,}"
    )
    print(f"  errors {errors} (timeouts {timeouts})")
    print(f"  wall time                      {wall:7.1f} s")
    print(f"  model alone for those tokens   {model_alone:7.1f} s")
    decode, sample, chat = used["eval_seconds"], used["sample_seconds"], used["chat_seconds"]
    print(f"  model busy (server's decode)   {decode:7.1f} s  {decode / wall:4.0%} of wall")
    print(
        f"  token sampling                 {sample:7.1f} s  {sample / wall:4.0%} of wall  "
        f"(greedy-first checks {used['grammar_checks']:,.0f}, rejected "
        f"{used['grammar_rejections']:,.0f}, grammar over the vocabulary "
        f"{used['grammar_full_passes']:,.0f})"
    )
    rest = chat - decode - sample
    print(f"  rest of the chat handler       {rest:7.1f} s  {rest / wall:4.0%} of wall")
    print(
        f"  outside the chat handler       {wall - chat:7.1f} s  {(wall - chat) / wall:4.0%} "
        f"of wall (HTTP, request parsing, our client and runner)"
    )
    print(f"  ratio model-alone / wall       {model_alone / wall:7.2f}   (target >= 0.8)")
    print(
        f"  model alone in the run's batches ({used['prompt_evals']:,.0f} prompt batches) "
        f"{batched_alone:7.1f} s, ratio {batched_alone / wall:.2f}"
    )
    print(
        f"  generated tokens in cut completions {used['cut_tokens']:,.0f}; completion lengths "
        f"(finish reason<=tokens): "
        + ", ".join(f"{k} {v}" for k, v in sorted(lengths.items(), key=_length_key) if v)
    )
    print(f"load average at end: {loadavg()}")
    got = replies(runs)
    if args.save:
        Path(args.save).write_text(json.dumps(got, indent=1))
    if args.compare:
        saved = {
            k: [_calls(v[0]), *map(_text, v[1:])]
            for k, v in json.loads(Path(args.compare).read_text()).items()
        }  # older files kept the ids
        differ = sorted(k for k in saved.keys() | got.keys() if saved.get(k) != got.get(k))
        print(
            f"replies that differ from {args.compare}: {len(differ)} of {len(got)} cases"
            + (f" ({', '.join(differ[:10])})" if differ else "")
        )
    return 0


def _length_key(item: tuple[str, int]) -> tuple[str, int]:
    reason, _, bound = item[0].partition("<=")
    return reason, int(bound) if bound.isdigit() else 0


if __name__ == "__main__":
    sys.exit(main())
