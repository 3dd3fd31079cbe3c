#!/usr/bin/env bash
# The test command, in tiers (README, "Tests"):
#   bash scripts/test.sh           everything, what CI runs (target: 20 minutes on 2 cores): set-up
#                                  with the test extras and Chromium, the checks (scripts/check.sh:
#                                  ruff, mypy), the whole test suite on two workers (pytest-xdist),
#                                  the notebooks' checked outputs under nbval, the docs site
#                                  (scripts/docs.sh), then the sdist and the wheel as users get
#                                  them (scripts/wheel_check.py)
#   bash scripts/test.sh --fast    a developer's inner loop (target: 5 minutes): the tests that start
#                                  no model, browser, Ray cluster or kernel, on two workers
#   bash scripts/test.sh --e2e     the slowest end-to-end tests alone: every notebook in JupyterLab
#                                  and Chromium, the papermill renders, the run panel, the site
# Slow tests (marked slow) run only with TOOLEVAL_SLOW=1. Extra arguments go to pytest, e.g.
# `bash scripts/test.sh --fast tests/runner -x`. Every pytest run writes each test's duration to
# artifacts/junit-<tier>.xml and prints the slowest; `python scripts/durations.py` compares runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tier=full
case "${1:-}" in
  --fast) tier=fast; shift ;;
  --e2e) tier=e2e; shift ;;
esac
if [ "$tier" = fast ]; then bash scripts/setup.sh; else bash scripts/setup.sh test; fi
export TOOLEVAL_SETUP_DONE=1
[ "$tier" = full ] && bash scripts/check.sh

export LITELLM_LOCAL_MODEL_COST_MAP=True
# A private run store and reply cache per test command: nothing answers from an earlier one. The
# embedded model's answers are computed once per test command: the model tests and the notebooks
# in the browser share this cache (tests/conftest.py), and nbval then runs the same notebooks on
# it, as a user's second run of a notebook does (nbval checks the outputs marked
# NBVAL_CHECK_OUTPUT, none of which depends on a reply being fresh).
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export TOOLEVAL_STORE="$scratch/store.db" TOOLEVAL_CACHE_DIR="$scratch/cache"
export TOOLEVAL_TEST_CACHE="$scratch/cache"
mkdir -p artifacts

# pytest-xdist: two workers; the tests of one heavy resource (the embedded model with the browser,
# Ray's session cluster) stay on one worker, in order (tests/conftest.py, GROUPS)
XDIST=(-n "${TOOLEVAL_WORKERS:-2}" --dist loadgroup)
DURATIONS=(--durations=25 --durations-min=1.0)
case "$tier" in
  fast) marker="not (model or browser or ray or kernel or slow)" ;;
  e2e) marker="browser or kernel" ;;
  full) marker="not slow" ;;
esac
[ "${TOOLEVAL_SLOW:-0}" = "1" ] && [ "$tier" != fast ] && marker="${marker/not slow/}"
[ "$tier" = e2e ] && [ "${TOOLEVAL_SLOW:-0}" != "1" ] && marker="($marker) and not slow"
start=$SECONDS
status=0
.venv/bin/python -m pytest tests ${marker:+-m "$marker"} "${XDIST[@]}" "${DURATIONS[@]}" \
  --junitxml="artifacts/junit-$tier.xml" "$@" || status=$?
# pytest's 5: nothing matched the selection (a narrowed run): not a failure of the code
[ "$status" = 5 ] && status=0
echo "test.sh: pytest ($tier) took $((SECONDS - start)) s" >&2
[ "$status" = 0 ] || exit "$status"
[ "$tier" = full ] || exit 0

# the notebooks' checked outputs (# NBVAL_CHECK_OUTPUT); the report notebook evaluates one case per
# suite here (its defaults are the real ones: `tooleval-nb report` evaluates every case)
start=$SECONDS
TOOLEVAL_CACHE_DIR="$scratch/cache" TOOLEVAL_REPORT_PARAMS='{"max_cases": 1, "max_rounds": 3}' \
.venv/bin/python -m pytest --nbval-lax --sanitize-with notebooks/sanitize.cfg -p no:randomly notebooks \
  -o addopts="" -W ignore::DeprecationWarning "${DURATIONS[@]}" --junitxml=artifacts/junit-nbval.xml
echo "test.sh: nbval took $((SECONDS - start)) s" >&2
# the user's manual: built strictly (links, API names, docstrings), offline
start=$SECONDS
bash scripts/docs.sh
echo "test.sh: the docs took $((SECONDS - start)) s" >&2
# the package as users get it: built, checked, installed alone into a fresh venv, run elsewhere
start=$SECONDS
.venv/bin/python scripts/wheel_check.py
echo "test.sh: the wheel check took $((SECONDS - start)) s" >&2
