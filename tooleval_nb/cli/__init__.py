"""The console script ``tooleval-nb``.

    tooleval-nb run    --suite data --model local/smollm2-135m --fail-under 0.5
    tooleval-nb report --suite data --model local/smollm2-135m --output reports/latest
    tooleval-nb report --run RUN_ID [RUN_ID ...] --output reports/latest   # no model call
    tooleval-nb history | export RUN_ID --format parquet | validate PATH... | convert IN OUT

``--suite`` takes suite files or folders (every suite in a folder) and may be repeated, as may
``--model`` and ``--mode``. Without ``--suite`` the bundled suites run; without ``--model`` the
embedded model. Exit status (:data:`~.options.EXIT_CODES`): 0 success, 1 a failure while running
(or ``validate`` found problems), 2 a usage or configuration problem (the message says what to
fix), 3 a gate (``--fail-under``, ``--fail-on-errors``) failed, 130 interrupted.

Modules: :mod:`.options` (the parser), :mod:`.commands` (run, report, history, export),
:mod:`.suites` (validate, convert), :mod:`.gate` (the CI gates).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from ..errors import (
    EmbeddedModelError,
    JobError,
    ModelConfigError,
    ModelError,
    StoreError,
    ToolEvalError,
)
from ..report import UnknownRunError
from .bfcl import cmd_bfcl
from .commands import (
    cmd_export,
    cmd_history,
    cmd_report,
    cmd_resume,
    cmd_run,
    format_summary,
)
from .options import EXIT_CODES, build_parser
from .suites import cmd_convert, cmd_validate
from .tau2 import cmd_tau2

__all__ = ["main", "build_parser", "format_summary", "EXIT_CODES"]

_COMMANDS: dict[str, Callable[..., int]] = {
    "run": cmd_run,
    "report": cmd_report,
    "bfcl": cmd_bfcl,
    "tau2": cmd_tau2,
    "history": cmd_history,
    "export": cmd_export,
    "resume": cmd_resume,
    "validate": cmd_validate,
    "convert": cmd_convert,
}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the ``tooleval-nb`` command line; returns the exit status."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args, out, sys.stderr)
    except ToolEvalError as exc:
        sys.stderr.write(f"tooleval-nb {args.command}: error: {exc}\n")
        return _exit_code(exc)
    except KeyboardInterrupt:
        sys.stderr.write(f"tooleval-nb {args.command}: interrupted\n")
        return 130


def _exit_code(exc: ToolEvalError) -> int:
    """1 for a failure while running, 2 for a usage or configuration problem."""
    if isinstance(exc, (ModelConfigError, UnknownRunError)):
        return 2
    return 1 if isinstance(exc, (JobError, ModelError, EmbeddedModelError, StoreError)) else 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
