"""Where BFCL's data comes from, and the entries of one category.

The question files (``BFCL_v4_<category>.json``) and possible answers
(``possible_answer/BFCL_v4_<category>.json``) are read from, in order:

1. a folder given as ``data_dir`` (``run_bfcl(data_dir=...)``, ``--data-dir``);
2. the ``TOOLEVAL_BFCL_DATA`` environment variable;
3. the data files inside an installed ``bfcl-eval`` distribution (``pip install
   'tooleval_nb[bfcl]'``), located through its package metadata, as files: its code is never
   imported (that import takes seconds and loads every provider SDK).

This module reads files; it parses nothing about scores.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SuiteError
from .categories import VERSION_PREFIX, is_relevance

__all__ = ["BfclData", "CategoryData", "locate_data", "read_jsonl", "DATA_ENV", "DISTRIBUTION"]

#: the environment variable naming a BFCL data folder
DATA_ENV = "TOOLEVAL_BFCL_DATA"
#: the PyPI distribution whose data files are used when no folder is given
DISTRIBUTION = "bfcl-eval"

_HOW = (f"give the folder holding BFCL_v4_<category>.json and possible_answer/ as "
        f"data_dir=... (CLI: --data-dir; or set {DATA_ENV}), or install the data with "
        "pip install 'tooleval_nb[bfcl]' (the bfcl-eval package)")


def _installed_data() -> Path | None:
    """``bfcl_eval/data`` of an installed bfcl-eval, found from its metadata (not imported)."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    folder = Path(str(dist.locate_file("bfcl_eval/data")))
    return folder if folder.is_dir() else None


def locate_data(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The BFCL data folder (see the module docstring for the order).

    Raises:
        SuiteError: no folder given and no bfcl-eval installed, or the folder does not exist;
            the message says both ways to get the data.
    """
    given = data_dir if data_dir is not None else os.environ.get(DATA_ENV) or None
    if given is not None:
        folder = Path(given).expanduser()
        if not folder.is_dir():
            raise SuiteError(f"BFCL data folder {folder} does not exist; {_HOW}", path=str(folder))
        return folder
    found = _installed_data()
    if found is None:
        raise SuiteError(f"no BFCL data found: {_HOW}")
    return found


@dataclass(frozen=True)
class CategoryData:
    """One category's entries in file order, its answers by id, and a fingerprint of both."""

    category: str
    questions: list[dict[str, Any]]
    answers: dict[str, list[Any]] | None
    questions_path: Path
    answers_path: Path | None
    fingerprint: str
    by_id: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def ids(self) -> list[str]:
        return [q["id"] for q in self.questions]


def read_jsonl(path: str | os.PathLike[str], *, what: str = "BFCL data file",
               fields: tuple[str, ...] = ("id",), shape: str = "a JSON object with a text id",
               hint: str = _HOW) -> tuple[bytes, list[dict[str, Any]]]:
    """The bytes and the objects of one of BFCL's JSON Lines files (blank lines skipped).

    Args:
        path: the file.
        what: what the file is, for the message when it cannot be read.
        fields: the fields every line must have (the first, the id, as text).
        shape: what every line must be, for the message naming a bad line.
        hint: what to do when the file cannot be read ("" for nothing).

    Raises:
        SuiteError: the file cannot be read, or a line is not JSON or lacks a field; the
            message names the file, and the line and field.
    """
    p = Path(path)
    raw = _read_bytes(p, what, hint)
    return raw, _parse_jsonl(raw, p, fields, shape)


def _read_bytes(path: Path, what: str, hint: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        tail = f"; {hint}" if hint else ""
        raise SuiteError(f"cannot read {what} {path}: {exc.strerror}{tail}",
                         path=str(path)) from None


def _parse_jsonl(raw: bytes, path: Path, fields: tuple[str, ...] = ("id",),
                 shape: str = "a JSON object with a text id") -> list[dict[str, Any]]:
    rows = []
    key, rest = fields[0], fields[1:]
    for n, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise SuiteError(f"{path}, line {n}: not JSON ({exc}); each line must be {shape}",
                             path=str(path)) from None
        if (not isinstance(obj, dict) or not isinstance(obj.get(key), str)
                or any(f not in obj for f in rest)):
            raise SuiteError(f"{path}, line {n}: field {'/'.join(fields)}: each line must be "
                             f"{shape}", path=str(path))
        rows.append(obj)
    return rows


def _category_data(category: str, qpath: Path, raw: bytes, apath: Path | None, araw: bytes,
                   fingerprint: str) -> CategoryData:
    questions = _parse_jsonl(raw, qpath)
    answers: dict[str, list[Any]] | None = None
    if apath is not None:
        rows = _parse_jsonl(araw, apath)
        answers = {r["id"]: r.get("ground_truth") or [] for r in rows}
        missing = [q["id"] for q in questions if q["id"] not in answers]
        if missing:
            raise SuiteError(f"{apath}: no ground truth for {len(missing)} question(s) of "
                             f"{qpath.name}, e.g. {missing[:5]}; the two files must come "
                             "from the same BFCL version", path=str(apath))
    return CategoryData(category, questions, answers, qpath, apath, fingerprint,
                        {q["id"]: q for q in questions})


class BfclData:
    """BFCL's data folder, read category by category (each read once).

    Args:
        data_dir: the folder; None to locate it (:func:`locate_data`).
    """

    def __init__(self, data_dir: str | os.PathLike[str] | None = None) -> None:
        self.folder = locate_data(data_dir)
        self._cache: dict[str, CategoryData] = {}

    def __repr__(self) -> str:
        return f"BfclData({str(self.folder)!r})"

    def questions_path(self, category: str) -> Path:
        return self.folder / f"{VERSION_PREFIX}_{category}.json"

    def category(self, category: str) -> CategoryData:
        """The entries of ``category`` (SuiteError naming the missing file and the fix)."""
        if category in self._cache:
            return self._cache[category]
        qpath = self.questions_path(category)
        if not qpath.is_file():
            raise SuiteError(f"{qpath}: no question file for BFCL category {category!r} in "
                             f"{self.folder}; {_HOW}", path=str(qpath))
        raw = _read_bytes(qpath, "BFCL data file", _HOW)
        apath = None if is_relevance(category) else self.folder / "possible_answer" / qpath.name
        if apath is not None and not apath.is_file():
            _parse_jsonl(raw, qpath)  # a bad line of the questions is named first
            raise SuiteError(f"{apath}: no possible-answer file for BFCL category "
                             f"{category!r}; {_HOW}", path=str(apath))
        araw = _read_bytes(apath, "BFCL data file", _HOW) if apath is not None else b""
        digest = hashlib.sha256(raw)
        digest.update(araw)
        data = _category_data(category, qpath, raw, apath, araw, digest.hexdigest()[:16])
        self._cache[category] = data
        return data
