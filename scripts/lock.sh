#!/usr/bin/env bash
# Refresh requirements/lock.txt: the exact versions the README's two commands install.
# Run it after any change to the dependencies in pyproject.toml, then commit both files.
#   usage: bash scripts/lock.sh [extra `uv pip compile` options, e.g. --upgrade-package litellm]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# the uv of the venv when there is one, else any uv on PATH, else one installed with pip
if [ -x .venv/bin/uv ]; then UV=.venv/bin/uv
elif command -v uv >/dev/null; then UV=uv
else "$PY" -m pip install -q "uv>=0.13"; UV="$PY -m uv"; fi
tmp=$(mktemp)
# the current pins are uv's preferences: a refresh moves only what it must (add --upgrade for all)
[ -f requirements/lock.txt ] && cp requirements/lock.txt "$tmp"
trap 'rm -f "$tmp"' EXIT
# requirements/excludes.txt: packages left out of the resolution, each with its reason
$UV pip compile pyproject.toml --extra all --extra test --excludes requirements/excludes.txt \
  --universal --python-version 3.11 \
  --custom-compile-command "bash scripts/lock.sh" --quiet -o "$tmp" "$@"
{ echo "# inputs-sha256: $("$PY" scripts/lock.py inputs)"; cat "$tmp"; } > requirements/lock.txt
echo "requirements/lock.txt refreshed ($(grep -c '==' requirements/lock.txt) pins)"
