#!/usr/bin/env bash
# The test command, in tiers (README, "Tests"):
#   bash scripts/test.sh           everything, what CI runs (target: 20 minutes on 2 cores): set-up
#                                  with the test extras and Chromium, the checks (scripts/check.sh:
#                                  ruff, mypy), the whole test suite on two workers (pytest-xdist)
#                                  while the docs site (scripts/docs.sh) and the sdist and the wheel
#                                  as users get them (scripts/wheel_check.py) are made beside it,
#                                  then the notebooks' checked outputs under nbval (two workers)
#   bash scripts/test.sh --fast    a developer's inner loop (target: 5 minutes): the tests that start
#                                  no model, browser, Ray cluster, kernel or fresh Python process
#                                  (marked process: the fresh imports, the console script's
#                                  exits, the benchmark scripts), on two workers
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
# the embedded model decodes on one thread: the other worker keeps the second core busy (it may
# run a second server), and two threads then wait for each other at every step
# (docs/troubleshooting.md: 2 to 2.7 times slower)
export TOOLEVAL_LLAMA_THREADS=1
# Bytecode is kept (git ignores __pycache__): where PYTHONDONTWRITEBYTECODE is set (this machine
# sets it), pytest rewrote every test module's asserts again in each worker on every run (about
# 4 s of each worker's start), and each process a test starts compiled what it imports anew.
unset PYTHONDONTWRITEBYTECODE
# A private run store and reply cache per test command: nothing answers from an earlier one. The
# embedded model's answers are computed once per test command: the model tests and the notebooks
# in the browser share this cache (tests/conftest.py), and nbval then runs the same notebooks on
# it, as a user's second run of a notebook does (nbval checks the outputs marked
# NBVAL_CHECK_OUTPUT, none of which depends on a reply being fresh).
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export TOOLEVAL_STORE="$scratch/store.db" TOOLEVAL_CACHE_DIR="$scratch/cache"
export TOOLEVAL_TEST_CACHE="$scratch/cache"
# the report notebook run on its own (in the browser, under nbval): one case per suite; its
# defaults are the real ones (`tooleval-nb report` evaluates every case)
export TOOLEVAL_TEST_REPORT_PARAMS='{"max_cases": 1, "max_rounds": 3}'
mkdir -p artifacts

# pytest-xdist: two workers; the tests of one heavy resource (the browser's notebooks, the
# embedded model's tests, Ray's session cluster) stay on one worker, in order (tests/conftest.py,
# GROUPS and JOINS)
XDIST=(-n "${TOOLEVAL_WORKERS:-2}" --dist loadgroup)
DURATIONS=(--durations=25 --durations-min=1.0)
case "$tier" in
  fast) marker="not (model or browser or ray or kernel or process or slow)" ;;
  e2e) marker="browser or kernel" ;;
  full) marker="not slow" ;;
esac
[ "${TOOLEVAL_SLOW:-0}" = "1" ] && [ "$tier" != fast ] && marker="${marker/not slow/}"
[ "$tier" = e2e ] && [ "${TOOLEVAL_SLOW:-0}" != "1" ] && marker="($marker) and not slow"
# The docs site (built strictly: links, API names, docstrings; offline) and the package as users
# get it (built, checked, installed alone into a fresh venv, run elsewhere) share nothing with
# the tests: in the full run they are made beside pytest, each into its own log printed at the
# end. The machine is busy then (3.5% idle in a full run, scripts/cpu_by_process.py): this moves
# their time into pytest's, and takes it off the end of the command.
logs="$scratch/logs"
mkdir -p "$logs"
timed() {  # timed NAME COMMAND...: run it into $logs/NAME.log, then append how long it took
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" >"$logs/$name.log" 2>&1 || rc=$?
  echo "test.sh: $name took $((SECONDS - start)) s (exit $rc)" >>"$logs/$name.log"
  return "$rc"
}
side=()
if [ "$tier" = full ]; then
  timed docs bash scripts/docs.sh &
  side+=("docs:$!")
  timed wheel .venv/bin/python scripts/wheel_check.py &
  side+=("wheel:$!")
fi
failed=()
finish() {  # wait for the side jobs, print their logs, then say what failed
  local job
  for job in "${side[@]}"; do
    wait "${job#*:}" || failed+=("${job%%:*}")
    cat "$logs/${job%%:*}.log"
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "test.sh: failed: ${failed[*]}" >&2
    exit 1
  fi
}

start=$SECONDS
status=0
.venv/bin/python -m pytest tests ${marker:+-m "$marker"} "${XDIST[@]}" "${DURATIONS[@]}" \
  --junitxml="artifacts/junit-$tier.xml" "$@" || status=$?
# pytest's 5: nothing matched the selection (a narrowed run): not a failure of the code
[ "$status" = 5 ] && status=0
echo "test.sh: pytest ($tier) took $((SECONDS - start)) s" >&2
[ "$status" = 0 ] || failed+=(pytest)
if [ "$tier" != full ] || [ "$status" != 0 ]; then
  finish
  exit "$status"
fi

# Then the notebooks' checked outputs (# NBVAL_CHECK_OUTPUT), one notebook per worker (its cells
# share a kernel): the embedded model's answers come from this command's cache, so nbval mostly
# waits on kernels.
start=$SECONDS
TOOLEVAL_CACHE_DIR="$scratch/cache" TOOLEVAL_REPORT_PARAMS="$TOOLEVAL_TEST_REPORT_PARAMS" \
.venv/bin/python -m pytest --nbval-lax --sanitize-with notebooks/sanitize.cfg \
  -p no:randomly notebooks -o addopts="" -W ignore::DeprecationWarning "${DURATIONS[@]}" \
  -n "${TOOLEVAL_WORKERS:-2}" --dist loadfile --junitxml=artifacts/junit-nbval.xml \
  || failed+=(nbval)
echo "test.sh: nbval took $((SECONDS - start)) s" >&2
finish
