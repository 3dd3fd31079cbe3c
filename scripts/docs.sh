#!/usr/bin/env bash
# The user's manual: build the docs site from docs/ (and the notebooks, and the API reference from
# the docstrings) into site/, strictly: a broken link, a missing reference or a bad docstring fails
# the build. Offline: no web font, no analytics, and a check that no built page loads an asset
# (script, stylesheet, image, font) from the network.
#   usage: bash scripts/docs.sh            (then open site/index.html)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/mkdocs ] || bash scripts/setup.sh test
export NO_MKDOCS_2_WARNING=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
# not --quiet: it hides the warnings that --strict counts (the build would pass with them)
.venv/bin/python -m mkdocs build --strict --site-dir site 2>&1 | { grep -v "^INFO" || true; }
.venv/bin/python scripts/docs_offline.py site
