"""The embedded server process: ``python -m llama_cpp.server`` with one safety switch.

On CPUs that advertise AMX (``amx_*`` in /proc/cpuinfo), llama.cpp's extra CPU buffer types (AMX and
repacked weights) crash inside VMs that do not grant AMX tile state (seen as SIGSEGV / SIGILL on the
first decode). This module turns them off (``use_extra_bufts = False``) before running the server
unchanged. ``TOOLEVAL_LLAMA_EXTRA_BUFTS=1`` keeps them on, ``=0`` always turns them off.

Parent-death watchdog: the process that starts the server passes the read end of a pipe
(``TOOLEVAL_PARENT_FD``) and keeps the write end open. When that process dies in any way (SIGKILL
included: no atexit, no signal handler runs), the kernel closes the write end, the read here returns
EOF and the server exits at once. A pipe, unlike ``PR_SET_PDEATHSIG``, follows the parent
*process*, not the thread that spawned the server, and works on every POSIX system.

A token bound per request: llama-cpp-python's ``chatml-function-calling`` handler generates a
call's arguments, and a plain message, with ``max_tokens=None`` (until the context is full), and
loops for as long as the model names another function. A weak model's runaway argument string
then takes half a minute. Here every chat request gets a budget of generated tokens (its own
``max_tokens``, else ``TOOLEVAL_LLAMA_MAX_TOKENS``, default 512) that the handler's inner
completions share: a runaway call is cut (its arguments are then invalid JSON, scored as such),
and a call loop ends when the budget is spent.

Counters: ``GET /tooleval/stats`` answers the tokens the model actually evaluated (prompt tokens
after the KV-cache prefix reuse, and generated tokens) and the seconds spent in ``Llama.eval``,
so a benchmark can tell the model's own work from ours.
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import time
from pathlib import Path
from typing import Any

#: the environment variable naming the read end of the parent's pipe
PARENT_FD_ENV = "TOOLEVAL_PARENT_FD"
#: the environment variable bounding the tokens one chat request may generate
MAX_TOKENS_ENV = "TOOLEVAL_LLAMA_MAX_TOKENS"
DEFAULT_MAX_TOKENS = 512
#: the path of the counters
STATS_PATH = "/tooleval/stats"

#: what the model did since the server started (read by ``GET /tooleval/stats``)
STATS: dict[str, Any] = {"requests": 0, "prompt_tokens": 0, "generated_tokens": 0,
                         "eval_seconds": 0.0, "cut_completions": 0}
_local = threading.local()


def _cpu_has_amx() -> bool:
    try:
        return " amx_" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def _disable_extra_buffer_types() -> None:
    import llama_cpp.llama_cpp as lib

    original = lib.llama_model_default_params

    def params():  # type: ignore[no-untyped-def]
        value = original()
        if hasattr(value, "use_extra_bufts"):
            value.use_extra_bufts = False
        return value

    lib.llama_model_default_params = params


def _exit_when_parent_dies() -> None:
    """Start a daemon thread that ends the process when the parent's pipe reaches EOF."""
    value = os.environ.pop(PARENT_FD_ENV, "")
    if not value.isdigit():
        return
    fd = int(value)

    def watch() -> None:
        try:
            while os.read(fd, 64):  # the parent never writes; any data is ignored
                pass
        except OSError:
            pass
        os._exit(0)  # the parent is gone: nobody is left to stop this server

    threading.Thread(target=watch, name="tooleval-parent-watchdog", daemon=True).start()


def _bound_and_count() -> None:
    """Patch ``Llama`` in this process: the per-request token budget and the counters."""
    from llama_cpp import Llama

    default_budget = int(os.environ.get(MAX_TOKENS_ENV, "") or DEFAULT_MAX_TOKENS)
    orig_chat, orig_completion = Llama.create_chat_completion, Llama.create_completion
    orig_generate, orig_eval = Llama.generate, Llama.eval

    def create_chat_completion(self: Any, *args: Any, **kwargs: Any) -> Any:
        asked = kwargs.get("max_tokens")
        _local.budget = asked if isinstance(asked, int) and asked > 0 else default_budget
        STATS["requests"] += 1
        try:
            return orig_chat(self, *args, **kwargs)
        finally:
            _local.budget = None

    def create_completion(self: Any, *args: Any, **kwargs: Any) -> Any:
        budget = getattr(_local, "budget", None)
        if budget is None or args:  # a plain completion request, or a positional call
            return orig_completion(self, *args, **kwargs)
        asked = kwargs.get("max_tokens")
        allowed = max(1, budget)
        kwargs["max_tokens"] = min(asked, allowed) if asked and asked > 0 else allowed
        result = orig_completion(self, *args, **kwargs)
        if isinstance(result, dict):  # not a stream
            _local.budget = budget - int(result.get("usage", {}).get("completion_tokens", 0))
            if result["choices"][0].get("finish_reason") == "length":
                STATS["cut_completions"] += 1
        return result

    def generate(self: Any, *args: Any, **kwargs: Any) -> Any:
        _local.prompt = True  # the first eval of a generation is the (uncached) prompt
        yield from orig_generate(self, *args, **kwargs)

    def eval_(self: Any, tokens: Any) -> Any:
        start = time.perf_counter()
        try:
            return orig_eval(self, tokens)
        finally:
            STATS["eval_seconds"] += time.perf_counter() - start
            key = "prompt_tokens" if getattr(_local, "prompt", False) else "generated_tokens"
            STATS[key] += len(tokens)
            _local.prompt = False

    Llama.create_chat_completion = create_chat_completion  # type: ignore[method-assign]
    Llama.create_completion = create_completion  # type: ignore[method-assign]
    Llama.generate = generate  # type: ignore[method-assign]
    Llama.eval = eval_  # type: ignore[method-assign]


def _serve_stats() -> None:
    """Add ``GET /tooleval/stats`` to the server's app."""
    import llama_cpp.server.app as server_app

    original = server_app.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        app = original(*args, **kwargs)
        app.get(STATS_PATH)(lambda: dict(STATS))
        return app

    server_app.create_app = create_app


def main() -> None:
    _exit_when_parent_dies()
    _bound_and_count()
    _serve_stats()
    choice = os.environ.get("TOOLEVAL_LLAMA_EXTRA_BUFTS", "")
    if choice == "0" or (choice != "1" and _cpu_has_amx()):
        _disable_extra_buffer_types()
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
