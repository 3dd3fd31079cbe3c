"""Where BFCL's data comes from, and the entries of one category.

The question files (``BFCL_v4_<category>.json``) and possible answers
(``possible_answer/BFCL_v4_<category>.json``) are read from, in order:

1. a folder given as ``data_dir`` (``run_bfcl(data_dir=...)``, ``--data-dir``);
2. the ``TOOLEVAL_BFCL_DATA`` environment variable;
3. the data files inside an installed ``bfcl-eval`` distribution (``pip install --no-deps
   bfcl-eval==2026.3.23``, beside ``tooleval_nb[bfcl]``), located through its package metadata,
   as files: its code is never imported (that import takes seconds and loads every provider SDK).

This module reads files; it parses nothing about scores.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import SuiteError
from ..extras import install_command
from .categories import VERSION_PREFIX, is_relevance

__all__ = ["BfclData", "CategoryData", "locate_data", "read_jsonl", "DATA_ENV", "DISTRIBUTION"]

#: the environment variable naming a BFCL data folder
DATA_ENV = "TOOLEVAL_BFCL_DATA"
#: the PyPI distribution whose data files are used when no folder is given
DISTRIBUTION = "bfcl-eval"

_HOW = (f"give the folder holding BFCL_v4_<category>.json and possible_answer/ as "
        f"data_dir=... (CLI: --data-dir; or set {DATA_ENV}), or install the data with "
        f"{install_command('bfcl')}")


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


class _Lines:
    """One JSON Lines file indexed by id without parsing it: each line is parsed when it is
    first needed (a run of the first ``limit`` entries reads only those), and then kept.

    The id is read from the line's start (BFCL writes ``{"id": "...", ...}``); a line that does
    not start that way is parsed at once, so a line that is not JSON, or has no text id, is
    still named when the file is read. A line that starts well but breaks later is named when
    it is used.
    """

    __slots__ = ("path", "fields", "shape", "_text", "_numbers", "_ids", "_parsed", "_index")

    def __init__(self, raw: bytes, path: Path, fields: tuple[str, ...] = ("id",),
                 shape: str = "a JSON object with a text id") -> None:
        self.path, self.fields, self.shape = path, fields, shape
        lines = raw.splitlines()
        self._text: list[bytes] = [line for line in lines if line.strip()]
        self._numbers: Sequence[int] = (
            range(1, len(lines) + 1) if len(self._text) == len(lines)
            else [n for n, line in enumerate(lines, 1) if line.strip()])
        self._parsed: dict[int, dict[str, Any]] = {}
        # every id at once when every line starts with one (BFCL's files): each match starts a
        # line, in order, so as many matches as lines means one per line
        first = _ID_AT_START.match(raw)
        found = ([first.group(1)] if first is not None else []) + _IDS_AFTER_NEWLINE.findall(raw)
        if len(found) == len(self._text):
            self._ids: list[str] = [i.decode("utf-8") for i in found]
        else:
            self._ids = []
            match = _ID_AT_START.match
            for i, line in enumerate(self._text):
                at_start = match(line)
                self._ids.append(at_start.group(1).decode("utf-8") if at_start is not None
                                 else self._parse(i)[fields[0]])
        self._index = {entry_id: i for i, entry_id in enumerate(self._ids)}  # the last wins

    def __len__(self) -> int:
        return len(self._text)

    @property
    def ids(self) -> list[str]:
        return list(self._ids)

    def position(self, entry_id: str) -> int | None:
        return self._index.get(entry_id)

    def distinct_ids(self) -> Iterator[str]:
        """Each id once, in the order of its first line."""
        return iter(self._index)

    def n_distinct(self) -> int:
        return len(self._index)

    def get(self, i: int) -> dict[str, Any]:
        obj = self._parsed.get(i)
        return obj if obj is not None else self._parse(i)

    def _parse(self, i: int) -> dict[str, Any]:
        n, path, fields = self._numbers[i], self.path, self.fields
        try:
            obj = json.loads(self._text[i].decode("utf-8"))  # faster than json's own sniffing
        except ValueError as exc:
            raise SuiteError(f"{path}, line {n}: not JSON ({exc}); each line must be "
                             f"{self.shape}", path=str(path)) from None
        if (not isinstance(obj, dict) or not isinstance(obj.get(fields[0]), str)
                or any(f not in obj for f in fields[1:])
                or (i < len(self._ids) and obj[fields[0]] != self._ids[i])):
            raise SuiteError(f"{path}, line {n}: field {'/'.join(fields)}: each line must be "
                             f"{self.shape}", path=str(path))
        self._parsed[i] = obj
        return obj


#: a line that starts ``{"id": "<text without quotes or escapes>"`` (its bytes)
_ID_AT_START = re.compile(rb'\{\s*"id"\s*:\s*"([^"\\]*)"')
#: the same after a newline (a literal first character: the regex engine skips to each "\n"
#: at C speed, where ``^`` in MULTILINE mode would be tried at every byte)
_IDS_AFTER_NEWLINE = re.compile(rb'\n\{\s*"id"\s*:\s*"([^"\\]*)"')


class _ById(Mapping[str, Any]):
    """The entries (or their answers' ``ground_truth``) of one file by id, parsed on access."""

    __slots__ = ("_lines", "_field")

    def __init__(self, lines: _Lines, field: str | None = None) -> None:
        self._lines, self._field = lines, field

    def __getitem__(self, entry_id: str) -> Any:
        i = self._lines.position(entry_id)
        if i is None:
            raise KeyError(entry_id)
        obj = self._lines.get(i)
        return obj if self._field is None else (obj.get(self._field) or [])

    def __contains__(self, entry_id: object) -> bool:
        return isinstance(entry_id, str) and self._lines.position(entry_id) is not None

    def __iter__(self) -> Iterator[str]:
        return self._lines.distinct_ids()

    def __len__(self) -> int:
        return self._lines.n_distinct()


class CategoryData:
    """One category's entries in file order, its answers by id, and a fingerprint of both.

    Lines are parsed when first used: :meth:`head` and the mappings :attr:`by_id` and
    :attr:`answers` parse only the entries asked for; :attr:`questions` parses them all.
    """

    def __init__(self, category: str, questions: _Lines, answers: _Lines | None,
                 questions_path: Path, answers_path: Path | None, fingerprint: str) -> None:
        self.category = category
        self.questions_path = questions_path
        self.answers_path = answers_path
        self.fingerprint = fingerprint
        self._questions = questions
        #: entry id -> the entry (parsed on access)
        self.by_id: Mapping[str, dict[str, Any]] = _ById(questions)
        #: entry id -> its ground truth (``None`` for the relevance categories)
        self.answers: Mapping[str, list[Any]] | None = (
            _ById(answers, "ground_truth") if answers is not None else None)

    def __repr__(self) -> str:
        return (f"CategoryData({self.category!r}, {len(self._questions)} entries, "
                f"{self.fingerprint})")

    def __len__(self) -> int:
        return len(self._questions)

    @property
    def ids(self) -> list[str]:
        return self._questions.ids

    def head(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The first ``limit`` entries in file order (all when None)."""
        n = len(self._questions) if limit is None else min(limit, len(self._questions))
        return [self._questions.get(i) for i in range(n)]

    @property
    def questions(self) -> list[dict[str, Any]]:
        """Every entry in file order (parses the whole file once)."""
        return self.head()


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
    lines = _Lines(raw, path, fields, shape)
    return [lines.get(i) for i in range(len(lines))]


def _category_data(category: str, qpath: Path, raw: bytes, apath: Path | None, araw: bytes,
                   fingerprint: str) -> CategoryData:
    questions = _Lines(raw, qpath)
    answers = None
    if apath is not None:
        answers = _Lines(araw, apath)
        missing = [i for i in questions.ids if answers.position(i) is None]
        if missing:
            raise SuiteError(f"{apath}: no ground truth for {len(missing)} question(s) of "
                             f"{qpath.name}, e.g. {missing[:5]}; the two files must come "
                             "from the same BFCL version", path=str(apath))
    return CategoryData(category, questions, answers, qpath, apath, fingerprint)


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
