#!/usr/bin/env python
"""Result files from our BFCL loop (``te.run_bfcl``), for the official-agreement proof.

Runs the multi-turn categories (both modes) and memory_kv / memory_rec_sum through
``run_bfcl`` and writes BFCL's result tree under ``--out``:

* ``--model scripted`` (default): the scripted model of ``tooleval_nb.testing.bfcl_script`` on
  the fake OpenAI server (the ground truth turn by turn, sometimes perturbed): volume, fast;
* ``--model embedded``: the embedded offline model (slow: about 4 ms per prompt token on 2
  cores; run it in the background).

    .venv/bin/python scripts/bfcl_loop_results.py --out /tmp/bfcl_loop_results/scripted --limit 20
    .venv/bin/python scripts/bfcl_loop_results.py --model embedded --limit 2 \\
        --out /tmp/bfcl_loop_results/embedded

Prints, per mode, the entries written and the time the run took; the verdicts of our checker
beside them (``bfcl_results_df``) go to ``<out>/verdicts_<mode>.csv``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

MULTI_TURN = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
MEMORY = ("memory_kv", "memory_rec_sum")


def _run(
    model: Any,
    categories: list[str],
    mode: str,
    limit: int | None,
    out: Path,
    store: Path,
    **options: Any,
) -> None:
    from tooleval_nb.bfcl import run_bfcl

    started = time.perf_counter()
    run = run_bfcl(
        model,
        categories,
        mode=mode,
        limit=limit,
        output=out,
        store=store,
        progress="none",
        **options,
    ).result()
    took = time.perf_counter() - started
    df = run.bfcl_results_df()
    df.to_csv(out / f"verdicts_{mode}.csv", index=False)
    print(
        f"{mode}: {len(run)} entries (prereqs included) in {took:.1f} s; "
        f"{int(df['passed'].sum())} of {len(df)} scored entries pass",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--model", choices=("scripted", "embedded"), default="scripted")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--modes", default="fc,prompt")
    parser.add_argument("--categories", default=",".join(MULTI_TURN + MEMORY))
    parser.add_argument(
        "--entries",
        default=None,
        help="only these entry ids (comma-separated; --limit counts among them)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        help="seconds per model request (the embedded model on a long prompt)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    categories = [c for c in args.categories.split(",") if c]
    store = args.out / "store.db"
    options: dict[str, Any] = {"timeout": args.timeout}
    if args.entries:
        options["entries"] = args.entries.split(",")
    if args.model == "embedded":
        for mode in args.modes.split(","):
            _run(None, categories, mode, args.limit, args.out, store, **options)
        return
    from tooleval_nb.testing.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(handler="tooleval_nb.testing.bfcl_script:answer", process=True) as server:
        model = {"model": "openai/scripted", "api_base": server.url, "api_key": "k"}
        for mode in args.modes.split(","):
            _run(model, categories, mode, args.limit, args.out, store, **options)


if __name__ == "__main__":
    main()
