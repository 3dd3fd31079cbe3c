"""``python -m tooleval_nb``: the command line, the same as ``tooleval-nb``."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
