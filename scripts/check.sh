#!/usr/bin/env bash
# The checks that are not tests, run before them (CI runs this first, through scripts/test.sh):
#   ruff format --check  the tree is as the formatter writes it (`ruff format` fixes it)
#   ruff check           the lint rules of pyproject.toml's [tool.ruff.lint]
#   mypy                 the whole package under [tool.mypy]
#   mypy --strict        the pure core (suite, scoring, parsers, toolcall, errors); modules it
#                        reaches on higher floors are followed for types, not reported
# Caches persist between runs in .cache/check/ (git ignores it): a warm mypy run takes seconds,
# a cold one about two minutes on 2 cores.
#   usage: bash scripts/check.sh [--fix]   (--fix: let ruff rewrite what it can, then check)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${TOOLEVAL_SETUP_DONE:-0}" = "1" ] || bash scripts/setup.sh
PY=.venv/bin/python
CACHE=.cache/check
mkdir -p "$CACHE"
PATHS=(tooleval_nb tests scripts benchmarks)
CORE=(tooleval_nb/suite tooleval_nb/scoring tooleval_nb/parsers tooleval_nb/toolcall.py
      tooleval_nb/errors.py)
export RUFF_CACHE_DIR="$CACHE/ruff"
if [ "${1:-}" = "--fix" ]; then
  "$PY" -m ruff format "${PATHS[@]}"
  "$PY" -m ruff check --fix "${PATHS[@]}"
fi
failed=()
step() {  # step NAME COMMAND...: run it, say how long it took, remember a failure
  local name=$1 start=$SECONDS
  shift
  if "$@"; then
    echo "check: $name passed ($((SECONDS - start)) s)" >&2
  else
    echo "check: $name FAILED ($((SECONDS - start)) s)" >&2
    failed+=("$name")
  fi
}
step "ruff format" "$PY" -m ruff format --check --quiet "${PATHS[@]}"
step "ruff check" "$PY" -m ruff check --quiet "${PATHS[@]}"
# the two mypy passes are single-threaded and share nothing: they run side by side (cold, on 2
# cores: about 65 s for both instead of 105 s one after the other), each reporting in turn
step "mypy (package)" "$PY" -m mypy --cache-dir "$CACHE/mypy" tooleval_nb >"$CACHE/mypy.out" 2>&1 &
package=$!
step "mypy --strict (pure core)" "$PY" -m mypy --strict --follow-imports=silent \
  --cache-dir "$CACHE/mypy-strict" "${CORE[@]}" >"$CACHE/mypy-strict.out" 2>&1 &
core=$!
wait "$package" || true
wait "$core" || true
for out in "$CACHE/mypy.out" "$CACHE/mypy-strict.out"; do
  cat "$out" >&2
  grep -q "FAILED (" "$out" && failed+=("$(sed -n 's/^check: \(.*\) FAILED (.*/\1/p' "$out")")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "check: failed: ${failed[*]} (ruff's own problems: bash scripts/check.sh --fix)" >&2
  exit 1
fi
echo "check: all passed" >&2
