"""Run a command and say where the machine's CPU went while it ran, by kind of process.

    .venv/bin/python scripts/cpu_by_process.py [--every 2] -- bash scripts/test.sh

Every ``--every`` seconds it reads each process's CPU time from ``/proc`` (Linux) and adds what
each used since the last reading to its kind (the embedded model's servers, the pytest workers,
Jupyter kernels, Chromium, Ray's processes, ...), then prints the kinds with their CPU seconds,
the machine's idle share over the run and the command's wall time. Every process on the machine
counts, not only the command's children: Ray's daemons and JupyterLab's kernels leave the
command's process tree. A process that starts and ends between two readings is missed, and one
that ends loses what it used since the last one: the figures are a lower bound.

The test command is CPU-bound on two cores: this says which work to cut (docs/contributing.md).
Standard library only; exits with the command's status.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import time
from pathlib import Path

#: (kind, a substring of the command line); the first that matches names the process
KINDS = (
    ("embedded model (llama.cpp)", "_llama_main"),
    ("chromedriver", "chromedriver"),
    ("chromium", "chrom"),
    ("jupyterlab", "jupyter-lab"),
    ("jupyterlab", "jupyterlab"),
    ("jupyter kernels", "ipykernel"),
    ("ray: worker processes", "default_worker.py"),
    ("ray: worker processes", "ray::"),
    ("ray: raylet", "raylet/raylet"),
    ("ray: gcs", "gcs_server"),
    ("ray: agents and monitors", "site-packages/ray/"),
    ("pytest workers (xdist)", "import sys;exec(eval(sys.stdin.readline()))"),
    ("pytest", "pytest"),
    ("papermill", "papermill"),
    ("mkdocs", "mkdocs"),
    ("mypy", "mypy"),
    ("uv / pip", "/uv "),
    ("uv / pip", "pip"),
)


def kind(cmdline: str) -> str:
    for name, part in KINDS:
        if part in cmdline:
            return name
    exe = cmdline.split(" ", 1)[0]
    return f"other: {Path(exe).name or '?'}"


def cpu_ticks() -> dict[tuple[str, str], tuple[int, str]]:
    """(pid, start time) -> (user + system ticks, command line) for every process now."""
    out: dict[tuple[str, str], tuple[int, str]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        out[proc.name, fields[19]] = (int(fields[11]) + int(fields[12]), cmd.strip())
    return out


def machine_ticks() -> tuple[int, int]:
    """(busy, idle) ticks of the whole machine (``/proc/stat``)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, idle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=2.0, help="seconds between readings")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    if not Path("/proc/stat").exists():
        parser.error("this reads /proc: Linux only")
    hz = os.sysconf("SC_CLK_TCK")
    used: collections.Counter[str] = collections.Counter()
    start, busy0 = time.monotonic(), machine_ticks()
    last = cpu_ticks()  # what a process used before the command started is not counted
    child = subprocess.Popen(command)
    while True:
        try:
            child.wait(timeout=args.every)
            done = True
        except subprocess.TimeoutExpired:
            done = False
        now = cpu_ticks()
        for key, (ticks, cmd) in now.items():
            before = last.get(key, (0, ""))[0]
            if ticks > before:
                used[kind(cmd)] += ticks - before
        last = now
        if done:
            break
    wall = time.monotonic() - start
    busy1 = machine_ticks()
    busy, idle = busy1[0] - busy0[0], busy1[1] - busy0[1]
    print(
        f"cpu_by_process: {wall:.0f} s wall, {busy / hz:.0f} CPU-seconds used on the machine, "
        f"{100 * idle / max(1, busy + idle):.1f}% idle; by kind (CPU-seconds):",
        file=sys.stderr,
    )
    for name, ticks in used.most_common(25):
        print(f"  {ticks / hz:8.1f}  {name}", file=sys.stderr)
    return child.returncode


if __name__ == "__main__":
    raise SystemExit(main())
