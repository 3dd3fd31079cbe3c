#!/usr/bin/env python
"""Scoring speed: parameter pairs, regex and semantic modes, whole cases, BFCL verdicts.

    .venv/bin/python benchmarks/bench_scoring.py [--pairs 100000] [--repeat 5]

Prints, for each workload, the wall time of the best of ``--repeat`` runs, items per wall second,
items per CPU second (steadier when other processes share the 2 cores) and CPU seconds per 1,000
items. Targets: 100,000 mixed-mode (expected, actual) pairs in <= 1 s; BFCL
verdicts above the official checker's ~100,000 entries/s (its in-memory loop, same machine).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT.parent / "shared" / "reference" / "bfcl"

CITIES = ["Paris", "Tokyo", "New York City", "London", "San Francisco", "Berlin", "Rome", "Lima"]
MIXED_MODES = ["exact", "case_insensitive", "contains", "numeric_tolerance", "fuzzy"]


def measure(label: str, n: int, fn: Callable[[], object], repeat: int) -> None:
    best_wall, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    print(
        f"{label:<50}{n:>8,} {best_wall:>8.3f} s {n / best_wall:>10,.0f}/s "
        f"{n / max(best_cpu, 1e-9):>10,.0f}/CPU-s {1000 * best_cpu / n:>8.4f} CPU s/1k"
    )


def make_pairs(n: int, modes: list[str], seed: int = 7) -> list[tuple[dict, dict, str]]:
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        city = rng.choice(CITIES)
        expected = {"city": city, "days": rng.randint(1, 7), "units": rng.choice(["c", "f"])}
        actual = dict(expected)
        r = rng.random()
        if r < 0.2:
            actual["city"] = rng.choice(CITIES).lower()
        elif r < 0.3:
            actual["days"] = actual["days"] + 0.001
        elif r < 0.4:
            del actual["units"]
        elif r < 0.5:
            actual["city"] = city + ", Earth"
        pairs.append((expected, actual, modes[i % len(modes)]))
    return pairs


def bench_pairs(n: int, repeat: int) -> None:
    from tooleval_nb.scoring import score_params
    from tooleval_nb.suite import ScoringConfig

    cfg = ScoringConfig(epsilon=0.01, threshold=0.8)
    mixed = make_pairs(n, MIXED_MODES)
    measure(
        "score_params, 5 mixed modes",
        n,
        lambda: [score_params(e, a, m, cfg) for e, a, m in mixed],
        repeat,
    )
    exact = make_pairs(n, ["exact"])
    measure(
        "score_params, exact (the default)",
        n,
        lambda: [score_params(e, a) for e, a, _ in exact],
        repeat,
    )
    regex_pairs = [
        ({"city": r"(?i)[a-z ]+(, earth)?", "days": r"\d+"}, a, "regex")
        for _, a, _ in make_pairs(n, ["regex"])
    ]
    measure(
        "score_params, regex (time-bounded)",
        n,
        lambda: [score_params(e, a, "regex", cfg) for e, a, _ in regex_pairs],
        repeat,
    )


def bench_semantic(repeat: int) -> None:
    from tooleval_nb.scoring import match_value, semantic

    t0 = time.perf_counter()
    semantic.load_wordllama()
    print(
        f"{'semantic: load WordLlama (once per process)':<50}{'':>9}"
        f"{time.perf_counter() - t0:>8.3f} s"
    )
    words = [f"{c} {k}" for c in CITIES for k in range(250)]  # 2,000 distinct texts
    pairs = [(words[i], words[(i * 7 + 3) % len(words)]) for i in range(len(words))]

    def cold() -> None:
        semantic.clear_cache()
        for e, a in pairs:
            match_value(e, a, "semantic")

    measure("match_value, semantic, cold cache (2 new texts)", len(pairs), cold, repeat)
    measure(
        "match_value, semantic, warm cache",
        len(pairs),
        lambda: [match_value(e, a, "semantic") for e, a in pairs],
        repeat,
    )


def bench_cases(n: int, repeat: int) -> None:
    from tooleval_nb.scoring import score_case
    from tooleval_nb.suite import EvalCase, Tool
    from tooleval_nb.toolcall import ToolCall

    tool = Tool.create(
        "get_weather",
        parameters={
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "units": {"type": "string"},
        },
        required=["city"],
    )
    cases, answers = [], []
    for i, (e, a, m) in enumerate(make_pairs(n, MIXED_MODES)):
        cases.append(
            EvalCase(
                id=f"c{i}",
                prompt="weather?",
                expected_tool="get_weather",
                expected_params=e,
                param_scoring=m,
                tools=[tool],
            )
        )
        answers.append([ToolCall.create("get_weather", a)])
    measure(
        "score_case (pydantic CaseScore, BFCL verdict)",
        n,
        lambda: [score_case(c, a) for c, a in zip(cases, answers, strict=True)],
        repeat,
    )


def bench_bfcl(repeat: int) -> None:
    from tooleval_nb.bfcl_rules.file_check import check_entries, read_jsonl

    result_dir = REFERENCE / "results" / "glyphh-ada-1.1" / "result"
    if not result_dir.exists():
        print(f"BFCL reference results not found at {result_dir}")
        return
    jobs = []
    for path in sorted(result_dir.glob("BFCL_v4_*_result.json")):
        category = path.name[len("BFCL_v4_") : -len("_result.json")]
        questions = {
            q["id"]: q for q in read_jsonl(REFERENCE / "data" / f"BFCL_v4_{category}.json")
        }
        answer_file = REFERENCE / "data" / "possible_answer" / f"BFCL_v4_{category}.json"
        answers = (
            {a["id"]: a["ground_truth"] for a in read_jsonl(answer_file)}
            if answer_file.exists()
            else None
        )
        jobs.append((read_jsonl(path), questions, answers))
    n = sum(len(r) for r, _, _ in jobs)
    measure(
        "BFCL verdicts, 12 categories, in memory",
        n,
        lambda: [check_entries(r, q, a) for r, q, a in jobs],
        repeat,
    )

    from tooleval_nb.scoring import bfcl_check

    files = [
        (p, REFERENCE / "data" / f"BFCL_v4_{p.name[8:-12]}.json")
        for p in sorted(result_dir.glob("BFCL_v4_*_result.json"))
    ]
    measure(
        "bfcl_check, 12 result files (reading included)",
        n,
        lambda: [bfcl_check(r, q) for r, q in files],
        repeat,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    t0 = time.perf_counter()
    import tooleval_nb.scoring  # noqa: F401

    print(f"import tooleval_nb.scoring: {time.perf_counter() - t0:.3f} s\n")
    print(
        f"{'workload':<50}{'items':>8} {'best wall':>10} {'wall rate':>12} {'CPU rate':>17} "
        f"{'CPU s/1k':>17}"
    )
    bench_pairs(args.pairs, args.repeat)
    bench_semantic(args.repeat)
    bench_cases(args.cases, max(1, args.repeat // 2))
    bench_bfcl(args.repeat)


if __name__ == "__main__":
    main()
