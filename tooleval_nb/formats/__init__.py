"""Suite files: one module per format, and the functions that pick the format.

* :mod:`.seed_json`: seed-001 JSON (``.json``), the format :func:`save_suite` writes;
* :mod:`.seed_yaml`: seed-002 YAML (``.yaml`` / ``.yml``), one case per ``---`` document;
* :mod:`.bfcl`: BFCL question + possible-answer JSON lines.

Every loader raises one :class:`~tooleval_nb.errors.SuiteError` that lists every problem, each
naming the file, the case (index and name) and the field; a file with an error loads nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from ..errors import SuiteError
from ..suite import Suite
from ..suite.model import warn_suite
from . import bfcl, seed_json, seed_yaml
from .bundled import bundled_suites_dir, resolve_suite_path
from .seed_json import example_suite

__all__ = [
    "bundled_suites_dir",
    "SuiteFormat",
    "SUITE_SUFFIXES",
    "load_suite",
    "load_suites",
    "load_bfcl",
    "save_suite",
    "save_bfcl",
    "example_suite",
    "bfcl",
    "seed_json",
    "seed_yaml",
]

#: the file formats, by name
SuiteFormat = Literal["seed_json", "seed_yaml", "bfcl"]
#: the file name endings a directory is searched for
SUITE_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")


def load_suite(
    path: str | os.PathLike[str], format: SuiteFormat | None = None
) -> Suite | list[Suite]:
    """Load a suite file, or every suite file in a directory.

    Args:
        path: ``bundled:<name>`` (a bundled suite, e.g. ``bundled:weather``), a ``.json`` file (a suite in JSON, or BFCL questions, recognised by name or by their
            first line; BFCL answers are found in ``possible_answer/``), a ``.yaml``/``.yml``
            file (a suite in YAML, one case per document), or a directory.
        format: force a format instead of choosing by name and content.

    Returns:
        A :class:`Suite` for a file; for a directory, a list of suites, one per suite file
        directly in it (sorted by file name; sub-folders and hidden files are skipped).

    Raises:
        SuiteError: every problem found; for a directory, the problems of all its files.
    """
    p = resolve_suite_path(path)
    if p.is_dir():
        return load_suites(p, format)
    if format == "bfcl" or (
        format is None and p.suffix in (".json", ".jsonl") and bfcl.is_bfcl_file(p)
    ):
        return bfcl.load(p)
    if format == "seed_yaml" or (format is None and p.suffix in (".yaml", ".yml")):
        return _warned(seed_yaml.load(p))
    if format == "seed_json" or (format is None and p.suffix == ".json"):
        return _warned(seed_json.load(p))
    if not p.exists():
        return seed_json.load(p)  # raises "file not found"
    raise SuiteError(
        f"{p}: unknown suite file type {p.suffix!r}; use .json (seed-001 or BFCL), "
        ".yaml/.yml (seed-002), or pass format=...",
        path=str(p),
    )


def _warned(suite: Suite) -> Suite:
    """A loaded suite, after a :class:`~tooleval_nb.suite.checks.SuiteWarning` for each thing it
    holds that the seed's app accepts but a run may not use (e.g. an ``expected_tool``
    alternative the suite does not offer), naming the file, the case and the tool."""
    warn_suite(suite, stacklevel=3)
    return suite


def load_suites(path: str | os.PathLike[str], format: SuiteFormat | None = None) -> list[Suite]:
    """Like :func:`load_suite`, but always a list (one suite for a file)."""
    p = resolve_suite_path(path)
    if not p.is_dir():
        suite = load_suite(p, format)
        return suite if isinstance(suite, list) else [suite]
    suites: list[Suite] = []
    problems: list[str] = []
    files = sorted(
        f
        for f in p.iterdir()
        if f.is_file() and f.suffix in SUITE_SUFFIXES and not f.name.startswith((".", "_"))
    )
    if not files:
        raise SuiteError(f"{p}: no suite files (*.json, *.yaml, *.yml) in this folder", path=str(p))
    for f in files:
        try:
            loaded = load_suite(f, format)
        except SuiteError as exc:
            problems += exc.problems
            continue
        suites += loaded if isinstance(loaded, list) else [loaded]
    if problems:
        raise SuiteError(
            f"{p}: {len(problems)} problem(s) in its suite files; nothing was "
            "loaded:\n  - " + "\n  - ".join(problems),
            problems=problems,
            path=str(p),
        )
    return suites


def load_bfcl(
    questions_path: str | os.PathLike[str], answers_path: str | os.PathLike[str] | None = None
) -> Suite:
    """Load BFCL questions and possible answers (see :mod:`tooleval_nb.formats.bfcl`)."""
    return bfcl.load(questions_path, answers_path)


def save_suite(suite: Suite, path: str | os.PathLike[str]) -> None:
    """Write ``suite`` to ``path``: YAML (one case per document) for ``.yaml``/``.yml``, else JSON.

    For BFCL files use :func:`save_bfcl`.
    """
    if Path(path).suffix in (".yaml", ".yml"):
        seed_yaml.save(suite, path)
    else:
        seed_json.save(suite, path)


def save_bfcl(
    suite: Suite, directory: str | os.PathLike[str], category: str | None = None
) -> tuple[str, str | None]:
    """Write ``suite`` as BFCL question and possible-answer JSONL files into ``directory``.

    Returns the two paths; the second is None when no case expects a call (irrelevance).
    See :func:`tooleval_nb.formats.bfcl.save`.
    """
    return bfcl.save(suite, directory, category=category)
