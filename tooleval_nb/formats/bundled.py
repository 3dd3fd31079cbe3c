"""The bundled suites: shipped inside the package (``tooleval_nb/data``, in the repository a link
to its ``data/`` folder), found with :mod:`importlib.resources` from any working directory, and
named ``bundled:<name>`` wherever a suite path is accepted (``bundled:weather`` is
``weather.json``; ``bundled`` alone is all of them)."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import SuiteError
from ..extras import package_data

__all__ = ["BUNDLED_PREFIX", "bundled_suite_names", "bundled_suites_dir", "resolve_suite_path"]

#: the prefix that names a bundled suite in a suite path
BUNDLED_PREFIX = "bundled"
_SUFFIXES = (".json", ".yaml", ".yml")


def bundled_suites_dir() -> Path:
    """The folder of bundled suites; :class:`SuiteError` (saying what to pass instead) if none."""
    folder = package_data()
    if not folder.is_dir():
        raise SuiteError(
            f"no bundled suites found in {folder} (an incomplete installation: "
            "reinstall tooleval_nb); pass suite files or folders with --suite PATH "
            "(or suites=[...] in the notebook)",
            path=str(folder),
        )
    return folder


def bundled_suite_names() -> list[str]:
    """The bundled suites' names (their file names without the suffix), sorted."""
    return sorted(
        f.stem
        for f in bundled_suites_dir().iterdir()
        if f.is_file() and f.suffix in _SUFFIXES and not f.name.startswith((".", "_"))
    )


def resolve_suite_path(path: str | os.PathLike[str]) -> Path:
    """The file or folder a suite path names: ``bundled:<name>`` a bundled suite, ``bundled``
    (or ``bundled:``) the folder of them all, anything else the path itself.

    Raises:
        SuiteError: ``bundled:<name>`` names no bundled suite (the message lists them).
    """
    text = os.fspath(path)
    if not isinstance(text, str) or not (
        text == BUNDLED_PREFIX or text.startswith(BUNDLED_PREFIX + ":")
    ):
        return Path(text)
    name = text[len(BUNDLED_PREFIX) + 1 :].strip()
    folder = bundled_suites_dir()
    if not name:
        return folder
    for suffix in ("", *_SUFFIXES):
        candidate = folder / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    names = ", ".join(f"{BUNDLED_PREFIX}:{n}" for n in bundled_suite_names())
    raise SuiteError(
        f"{text}: no bundled suite named {name!r}; the bundled suites are {names}", path=text
    )
