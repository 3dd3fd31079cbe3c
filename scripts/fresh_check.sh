#!/usr/bin/env bash
# The fresh-machine check: clone HEAD into a temporary folder (no venv, no reports carried over),
# run the README's two set-up commands exactly as the README writes them, time each, and exit
# non-zero if either fails. The commands are read from the README's "Set-up" block, so the check
# cannot drift from what a new user types.
#   usage: bash scripts/fresh_check.sh [--cold] [--keep]
#     --cold  also start from empty package caches (uv's and pip's): the llama.cpp build is timed
#     --keep  keep the clone (its path is printed) instead of removing it
set -euo pipefail
cd "$(dirname "$0")/.."
cold=0 keep=0
for arg in "$@"; do
  case "$arg" in
    --cold) cold=1 ;;
    --keep) keep=1 ;;
    *) echo "usage: bash scripts/fresh_check.sh [--cold] [--keep]" >&2; exit 2 ;;
  esac
done

# the commands of the README's set-up block: lines starting with "bash " in the first ```bash
# block after the "## Set-up" heading, comments cut
mapfile -t commands < <(awk '/^## Set-up/{s=1} s&&/^```bash/{b=1; next} b&&/^```/{exit}
                             b&&/^bash /{sub(/ *#.*/, ""); print}' README.md)
if [ "${#commands[@]}" -ne 2 ]; then
  echo "fresh_check: expected two commands in the README's set-up block, found ${#commands[@]}" >&2
  exit 2
fi

work=$(mktemp -d /tmp/tooleval-fresh.XXXXXX)
if [ "$keep" = 1 ]; then
  echo "fresh_check: the clone stays in $work/repo"
else
  trap 'rm -rf "$work"' EXIT
fi
git clone -q . "$work/repo"
# the reference data sits beside the checkout, as it does for CI
[ -d ../shared ] && [ ! -e "$work/shared" ] && ln -s "$(cd ../shared && pwd)" "$work/shared"
if [ "$cold" = 1 ]; then
  # and no llama.cpp wheel built before (scripts/setup.sh keeps it in TOOLEVAL_WHEELS)
  export UV_CACHE_DIR="$work/uv-cache" PIP_CACHE_DIR="$work/pip-cache" TOOLEVAL_WHEELS="$work/wheels"
fi
# a new user has no replies cached and no runs stored: the main job must not answer from ours
export TOOLEVAL_CACHE_DIR="$work/reply-cache" TOOLEVAL_STORE="$work/runs.db"
echo "fresh_check: $(git rev-parse --short HEAD) cloned into $work/repo" \
     "($([ "$cold" = 1 ] && echo "empty package caches" || echo "package caches kept"))"

status=0
results=()
for cmd in "${commands[@]}"; do
  echo "fresh_check: \$ $cmd"
  start=$(date +%s)
  if (cd "$work/repo" && env -u VIRTUAL_ENV bash -c "$cmd"); then rc=0; else rc=$?; fi
  took=$(( $(date +%s) - start ))
  results+=("$(printf '%-22s exit %-3s %4d min %02d s' "$cmd" "$rc" $((took / 60)) $((took % 60)))")
  [ "$rc" = 0 ] || status=1
done
echo
echo "fresh_check: results"
printf '  %s\n' "${results[@]}"
exit "$status"
