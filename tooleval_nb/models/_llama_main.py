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
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
from pathlib import Path

#: the environment variable naming the read end of the parent's pipe
PARENT_FD_ENV = "TOOLEVAL_PARENT_FD"


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


def main() -> None:
    _exit_when_parent_dies()
    choice = os.environ.get("TOOLEVAL_LLAMA_EXTRA_BUFTS", "")
    if choice == "0" or (choice != "1" and _cpu_has_amx()):
        _disable_extra_buffer_types()
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
