"""What the embedded model's parent (:mod:`.embedded`) and its server process
(:mod:`._llama_main`) agree on: the environment variables the launcher reads and the path of its
counters. A module of its own so that the parent (imported with :mod:`tooleval_nb.models`, hence
with the runner) never loads the launcher and its llama-cpp-python patches.
"""

from __future__ import annotations

__all__ = [
    "PARENT_FD_ENV",
    "MAX_TOKENS_ENV",
    "DEFAULT_MAX_TOKENS",
    "GREEDY_FIRST_ENV",
    "TRACE_ENV",
    "HTML_ESCAPE_ENV",
    "SHORTCUTS_ENV",
    "ONE_THREAD_ENV",
    "THREADS_ENV",
    "STATS_PATH",
]

#: the environment variable naming the read end of the parent's pipe
PARENT_FD_ENV = "TOOLEVAL_PARENT_FD"
#: the environment variable bounding the tokens one chat request may generate
MAX_TOKENS_ENV = "TOOLEVAL_LLAMA_MAX_TOKENS"
DEFAULT_MAX_TOKENS = 512
#: the environment variable that turns greedy-first grammar sampling off (``0``)
GREEDY_FIRST_ENV = "TOOLEVAL_LLAMA_GREEDY_FIRST"
#: the environment variable naming a file where every prompt eval is traced (a JSON line each:
#: the cached prefix's length, the new tokens and their text), to see what a run re-evaluates
TRACE_ENV = "TOOLEVAL_LLAMA_TRACE"
#: the environment variable that keeps llama-cpp-python's HTML escaping of prompts (``1``)
HTML_ESCAPE_ENV = "TOOLEVAL_LLAMA_HTML_ESCAPE"
#: the environment variable that turns the handler shortcuts off (``0``; see
#: :func:`._llama_main._shortcuts`)
SHORTCUTS_ENV = "TOOLEVAL_LLAMA_SHORTCUTS"
#: the environment variable that lets the server run the model on any worker thread (``0``; see
#: :func:`._llama_main._one_compute_thread`)
ONE_THREAD_ENV = "TOOLEVAL_LLAMA_ONE_THREAD"
#: the environment variable setting the server's generation threads (``--n_threads``) when the
#: caller gives none (default: every core). ``1`` beside another busy process: a decode step with
#: two threads on two cores waits for the one that lost its core (a 200-token reply 9.0 s with
#: two, 3.3 to 4.3 s with one, beside a busy process; 2.1 and 3.1 s on a quiet machine)
THREADS_ENV = "TOOLEVAL_LLAMA_THREADS"
#: libgomp's spin count before an idle OpenMP thread sleeps, unless the user sets one. libgomp's own
#: default (300,000 spins) makes a decode step wait whenever one of its threads has lost its core:
#: with n_threads equal to the cores and one other busy process, a 64-token reply took 199 s
#: instead of 0.8 s on 2 cores (``benchmarks/bench_contention.py``). At 1,000 the same reply takes
#: 2 to 4 s beside a busy process and the same time as libgomp's default on a quiet machine.
SPIN_COUNT = "1000"
#: the path of the counters
STATS_PATH = "/tooleval/stats"
