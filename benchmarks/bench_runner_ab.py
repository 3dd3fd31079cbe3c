"""CPU per case of the runner at two commits, side by side: ``bench_runner``'s full stack
(3,000 cases at 0 ms × 64 against one fake server) run in alternating fresh processes, once from
a ``git worktree`` of the older commit and once from this checkout, and the median of each.

The machine's speed drifts by tens of percent within minutes, so two versions are compared only
in one run, alternating; this is how the CHANGELOG's JSON figure (0.44 → 0.40 ms per case) was
measured.

    .venv/bin/python benchmarks/bench_runner_ab.py 6892d88 --repeat 8
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tooleval_nb.testing import FakeOpenAIServer  # noqa: E402

#: one process: warm up, then the CPU seconds per 1,000 cases of a run of ``n`` cases, from the
#: checkout at argv[2] (put first on sys.path, ahead of the editable install)
_ONE = """
import sys, asyncio
sys.path.insert(0, sys.argv[2] + "/benchmarks"); sys.path.insert(0, sys.argv[2])
import bench_runner as br
asyncio.run(br.warm_up(sys.argv[1], ["full"]))
n = int(sys.argv[3])
wall, cpu, ok = asyncio.run(br.measure("full", n, sys.argv[1], 64, 0.0))
assert ok == n, f"{ok} of {n} passed"
print(cpu / n * 1000)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base", help="the older commit (anything git rev-parse takes)")
    parser.add_argument("--repeat", type=int, default=8)
    parser.add_argument("--cases", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_ab_") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), args.base],
            check=True,
        )
        try:
            runs: dict[str, list[float]] = {"base": [], "here": []}
            with FakeOpenAIServer(latency=0.0, process=True) as server:
                for _ in range(args.repeat):
                    for name, root in (("base", base), ("here", ROOT)):
                        out = subprocess.run(
                            [sys.executable, "-c", _ONE, server.url, str(root), str(args.cases)],
                            capture_output=True,
                            text=True,
                            check=True,
                            cwd=root,
                        )
                        runs[name].append(float(out.stdout))
                        print(f"{name}: {runs[name][-1]:.3f} CPU s / 1000 cases", flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False
            )
    base_m, here_m = statistics.median(runs["base"]), statistics.median(runs["here"])
    print(f"median: {args.base} {base_m:.3f}, this checkout {here_m:.3f} ({here_m / base_m:.2f}x)")


if __name__ == "__main__":
    main()
