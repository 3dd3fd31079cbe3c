#!/usr/bin/env bash
# The test command: set up .venv with the test extras (idempotent), then run the whole test suite
# (pytest, then the notebooks under nbval), then build the sdist and the wheel and check them
# (scripts/wheel_check.py: metadata, the core wheel in a fresh venv, the CLI from outside the
# repository against the fake server). Slow tests are excluded unless TOOLEVAL_SLOW=1.
#   usage: bash scripts/test.sh [extra pytest options]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
export LITELLM_LOCAL_MODEL_COST_MAP=True
# A private run store and reply cache per test run: nothing answers from an earlier run.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export TOOLEVAL_STORE="$scratch/store.db" TOOLEVAL_CACHE_DIR="$scratch/cache"
marker="not slow"
[ "${TOOLEVAL_SLOW:-0}" = "1" ] && marker=""
.venv/bin/python -m pytest tests ${marker:+-m "$marker"} "$@"
# the report notebook, run by nbval on its own, evaluates one case per suite (its defaults are the
# real ones: `tooleval-nb report` and the main job evaluate every case)
TOOLEVAL_REPORT_PARAMS='{"max_cases": 1, "max_rounds": 3}' \
.venv/bin/python -m pytest --nbval-lax --sanitize-with notebooks/sanitize.cfg -p no:randomly notebooks \
  -o addopts="" -W ignore::DeprecationWarning
bash scripts/docs.sh   # the manual: built strictly (links, API names, docstrings), offline
# the package as users get it: built, checked, installed alone into a fresh venv, run elsewhere
.venv/bin/python scripts/wheel_check.py
