#!/usr/bin/env bash
# The official-checker proof (slow: 1,000 embedded-model calls, an hour or more on 2 cores;
# --snapshot rescores what a run has finished so far).
# Creates a separate venv with bfcl-eval==2026.3.23 (never our own venv: its import pulls in
# every provider SDK), then runs scripts/bfcl_official.py: our run in both modes, the official
# checker on the files we wrote, and the per-entry comparison. Extra arguments are passed on
# (e.g. --limit 20 --categories simple_python,irrelevance). Multi-turn and memory result files
# already written (ours, scripts/bfcl_multiturn_results.py's, any tool's): --files DIR compares
# every model folder of DIR/result, --fixtures OUT keeps them with the official verdicts.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${BFCL_VENV:-/tmp/bfcl_official_venv}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('bfcl-eval') == '2026.3.23'; import soundfile" 2>/dev/null; then
    # uv as the set-up pinned it in .venv (no uv on PATH needed); --python names the target:
    # run from another venv's python, uv would otherwise install into that one
    bash "$ROOT/scripts/setup.sh"
    "$ROOT/.venv/bin/python" -m uv venv -p 3.11 "$VENV"
    # soundfile: imported by qwen-agent, which bfcl-eval's model table imports, but not declared
    "$ROOT/.venv/bin/python" -m uv pip install --python "$VENV/bin/python" \
        "bfcl-eval==2026.3.23" soundfile
fi
cd "$ROOT"
LITELLM_LOCAL_MODEL_COST_MAP=True exec .venv/bin/python scripts/bfcl_official.py --venv "$VENV" "$@"
