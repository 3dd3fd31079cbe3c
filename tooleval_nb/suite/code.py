"""The code a suite runs: where each code grader's module is, and whether it may run.

A suite file is input from elsewhere; its code graders (``type: code``, ``module`` and
``function``) are the one place where it names Python to run. The rule:

* a ``.py`` path (relative to the suite's folder, or absolute) runs only when the file lies
  inside the suite's folder (symbolic links resolved): ``../outside.py`` or ``/tmp/x.py`` are
  refused;
* a dotted name (``graders.checks``) is the module of that name inside the suite's folder when
  there is one (``graders/checks.py``), else an installed module, imported by name;
* neither changes ``sys.path`` beyond the import: the suite's folder is on it while its module
  runs its top level (so that it can import its neighbours), and taken off again.

A suite built in Python (no file, so no folder) names code its author wrote: its paths are taken
as given.

:func:`suite_code` lists what a suite will run (``tooleval-nb validate`` prints it, a suite's
display shows it); :func:`locate_grader` is the one resolution, used by the scoring that runs it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from .case import EvalCase

__all__ = ["GraderCode", "GraderRefused", "locate_grader", "suite_code"]

_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class _SuiteLike(Protocol):
    """What :func:`suite_code` reads of a :class:`~.model.Suite` (which imports this module)."""

    @property
    def source(self) -> str | None: ...

    @property
    def cases(self) -> Sequence[EvalCase]: ...


class GraderRefused(ImportError):
    """A code grader's module that may not run (outside the suite's folder, or not a module
    name); the message says which and what to do."""


class GraderCode(BaseModel):
    """One code grader of a suite: the case, what it names, and what would run."""

    model_config = ConfigDict(frozen=True)

    case_id: str
    module: str
    function: str
    #: ``file``: a ``.py`` file in the suite's folder; ``installed``: an installed module
    #: imported by name; ``refused``: it may not run (see ``reason``)
    kind: Literal["file", "installed", "refused"]
    #: the file that would run (``file``), else None
    path: str | None = None
    reason: str = ""

    def line(self) -> str:
        """One line for a listing: ``case: module.function -> what runs``."""
        where = {
            "file": f"runs {self.path}",
            "installed": "imports the installed module",
            "refused": f"refused: {self.reason}",
        }[self.kind]
        return f"{self.case_id}: {self.module} : {self.function}() {where}"


def locate_grader(module: str, base_dir: str | Path | None) -> Path | str:
    """The file a code grader's ``module`` names (a :class:`Path`), or the dotted name of an
    installed module to import (a :class:`str`).

    Raises:
        GraderRefused: a path outside the suite's folder ``base_dir``, or text that is neither
            a ``.py`` path nor a dotted module name.
    """
    base = Path(base_dir).resolve() if base_dir is not None else None
    if module.endswith(".py") or "/" in module or "\\" in module:
        given = Path(module)
        if base is None:
            return given.resolve()
        path = (given if given.is_absolute() else base / given).resolve()
        if not path.is_relative_to(base):
            raise GraderRefused(
                f"the code grader's module {module!r} is outside the suite's folder {base}; a "
                "suite runs code only from its own folder: move the file into it (or install "
                "it as a package and name its dotted module)"
            )
        return path
    if not _DOTTED.match(module):
        raise GraderRefused(
            f"the code grader's module {module!r} is neither a .py path nor a dotted module "
            "name (such as graders.checks); fix the module field"
        )
    if base is not None:
        parts = module.split(".")
        for candidate in (
            base.joinpath(*parts).with_suffix(".py"),
            base.joinpath(*parts, "__init__.py"),
        ):
            if candidate.is_file():
                path = candidate.resolve()
                if not path.is_relative_to(base):
                    raise GraderRefused(
                        f"the code grader's module {module!r} leads outside the suite's folder "
                        f"{base} (a symbolic link to {path}); copy the file into the folder"
                    )
                return path
    return module


def suite_code(suite: _SuiteLike, base_dir: str | Path | None = None) -> list[GraderCode]:
    """Every code grader of ``suite`` and what it would run (``base_dir``: the suite's folder;
    default the folder of the file it was loaded from)."""
    if base_dir is None and suite.source:
        base_dir = Path(suite.source).parent
    out: list[GraderCode] = []
    for index, case in enumerate(suite.cases):
        case_id = case.id or case.name or f"case {index}"
        for grader in case.graders:
            if grader.type != "code":
                continue
            module, function = str(grader.module), str(grader.function)
            try:
                found = locate_grader(module, base_dir)
            except GraderRefused as exc:
                out.append(
                    GraderCode(
                        case_id=case_id,
                        module=module,
                        function=function,
                        kind="refused",
                        reason=str(exc),
                    )
                )
                continue
            if isinstance(found, Path):
                out.append(
                    GraderCode(
                        case_id=case_id,
                        module=module,
                        function=function,
                        kind="file",
                        path=str(found),
                    )
                )
            else:
                out.append(
                    GraderCode(case_id=case_id, module=module, function=function, kind="installed")
                )
    return out
