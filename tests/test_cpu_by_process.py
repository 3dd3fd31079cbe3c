"""``scripts/cpu_by_process.py``: the kinds it names and what it measures of a real command."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "cpu_by_process.py"


def _module():
    spec = importlib.util.spec_from_file_location("cpu_by_process", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("cmdline", "expected"),
    [
        ("/v/bin/python -m tooleval_nb.models._llama_main --model m.gguf", "embedded model"),
        ("/usr/lib/chromium/chromium --type=renderer", "chromium"),
        ("/usr/bin/chromedriver --port=4444", "chromedriver"),
        ("/v/bin/python -m ipykernel_launcher -f k.json", "jupyter kernels"),
        ("/v/ray/_private/workers/default_worker.py --raylet-ip-address=1", "ray: worker"),
        ("/v/site-packages/ray/core/src/ray/raylet/raylet --node", "ray: raylet"),
        ("/v/bin/python -u -c import sys;exec(eval(sys.stdin.readline()))", "pytest workers"),
        ("/usr/bin/gzip -9", "other: gzip"),
    ],
)
def test_each_process_gets_its_kind(cmdline, expected):
    assert _module().kind(cmdline).startswith(expected)


@pytest.mark.process
def test_a_commands_cpu_is_counted_and_its_status_returned():
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.5: pass\n"
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--every",
            "0.2",
            "--",
            sys.executable,
            "-c",
            burn + "raise SystemExit(3)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("cpu_by_process:") and "% idle" in lines[0]
    counted = {line.split(None, 1)[1]: float(line.split()[0]) for line in lines[1:]}
    # the child burnt 1.5 s; the last reading before it ended may miss up to 0.2 s of it
    assert any(name.startswith("other: python") and s >= 1.2 for name, s in counted.items()), (
        counted
    )
