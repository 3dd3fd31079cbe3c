"""Executing a notebook with papermill, the one way reports run one: a kernel reached over local
sockets, and the cells done shown on stderr.

The kernel talks to papermill over Unix domain sockets (ZeroMQ's ``ipc`` transport) in a private
temporary folder, instead of TCP ports on the loopback address: no port is opened, another user
of the machine cannot connect to it, and the kernel has no reason to warn that it runs "over TCP
without encryption" in the middle of the progress.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from jupyter_client.manager import AsyncKernelManager

__all__ = ["LocalKernelManager", "execute_notebook", "cell_progress"]


class LocalKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel listens on Unix domain sockets (``transport="ipc"``) in a
    private temporary folder, removed when the kernel shuts down."""

    def __init__(self, **kwargs: Any) -> None:
        self._ipc_dir = tempfile.mkdtemp(prefix="tooleval-kernel-")
        kwargs.setdefault("transport", "ipc")
        kwargs.setdefault("ip", str(Path(self._ipc_dir) / "kernel"))
        super().__init__(**kwargs)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(self._ipc_dir, ignore_errors=True)


class _Lines:
    """A stream for tqdm that turns each redraw into one plain line (for logs and pipes)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        text = text.replace("\r", "").strip()
        if text:
            self.stream.write(text + "\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def cell_progress(progress: Any, desc: str = "rendering the report") -> bool | dict[str, Any]:
    """papermill's ``progress_bar`` for the runner's ``progress`` setting: cells done on stderr,
    a bar on a terminal, a line at most every 5 s in a log."""
    if progress in (None, False, "none"):
        return False
    stream = sys.stderr
    tty = bool(getattr(stream, "isatty", lambda: False)())
    return {
        "file": stream if tty else _Lines(stream),
        "desc": desc,
        "ascii": not tty,
        "mininterval": 0.5 if tty else 5.0,
        "bar_format": "{desc}: cell {n_fmt}/{total_fmt} in {elapsed}",
    }


def execute_notebook(
    notebook: str | Path,
    output: str | Path,
    parameters: Mapping[str, Any],
    *,
    cwd: str | Path,
    kernel_name: str = "python3",
    timeout: float | None = None,
    progress: Any = "none",
    desc: str = "rendering the report",
) -> None:
    """Execute ``notebook`` into ``output`` with ``parameters`` injected after its cell tagged
    ``parameters``, in ``cwd``, on a kernel over local sockets.

    Raises:
        papermill.PapermillExecutionError: a cell failed (``output`` holds the notebook so far).
    """
    import papermill

    papermill.execute_notebook(
        str(notebook),
        str(output),
        parameters=dict(parameters),
        kernel_name=kernel_name,
        progress_bar=cell_progress(progress, desc),
        execution_timeout=timeout,
        cwd=str(cwd),
        kernel_manager_class=LocalKernelManager,
    )
