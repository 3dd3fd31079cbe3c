"""Where the bundled suites are: ``data/`` beside the package in a source checkout, else
``<prefix>/share/tooleval_nb/suites`` where a wheel installs them."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

from ..errors import SuiteError

__all__ = ["bundled_suites_dir"]


def bundled_suites_dir() -> Path:
    """The folder of bundled suites; :class:`SuiteError` (saying what to pass instead) if none."""
    here = Path(__file__).resolve().parent.parent
    candidates = [here.parent / "data", here / "data"]
    candidates += [Path(p) / "share" / "tooleval_nb" / "suites"
                   for p in dict.fromkeys([sys.prefix, sysconfig.get_path("data")])]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise SuiteError("no bundled suites found (looked in "
                     + ", ".join(map(str, candidates)) + "); pass suite files or folders with "
                     "--suite PATH (or suites=[...] in the notebook)")
