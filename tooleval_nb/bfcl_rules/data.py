"""Where BFCL's data comes from, and the entries of one category.

The question files (``BFCL_v4_<category>.json``) and possible answers
(``possible_answer/BFCL_v4_<category>.json``), and for the stateful categories the function docs
(``multi_turn_func_doc/``) and memory's prerequisite conversations
(``memory_prereq_conversation/``), are read from, in order:

1. a folder given as ``data_dir`` (``run_bfcl(data_dir=...)``, ``--data-dir``);
2. the ``TOOLEVAL_BFCL_DATA`` environment variable;
3. the data files inside an installed ``bfcl-eval`` distribution (``pip install --no-deps
   bfcl-eval==2026.3.23``, beside ``tooleval_nb[bfcl]``), located through its package metadata,
   as files: its code is never imported (that import takes seconds and loads every provider SDK).

Entries come out as bfcl-eval's ``load_dataset_entry(category,
include_language_specific_hint=False)`` gives them (the hints are :mod:`.prompt`'s):

* single-turn: the file's lines as they are;
* multi-turn (``multi_turn_*``): ``question`` (a list of turns, each a list of messages; a
  miss_func turn that adds functions is ``[]``), ``initial_config``, ``involved_classes``,
  ``path``, ``excluded_function``, and ``function``: the docs of the involved classes, in their
  order, without the ones ``missed_function`` holds back; ``missed_function`` (miss_func only)
  maps a turn index (text) to the docs that turn adds;
* memory (``memory_kv`` ...): one file for the three backends, each id renamed
  (``memory_0-customer-0`` -> ``memory_kv_0-customer-0``), ``involved_classes``
  ``["MemoryAPI_kv"]``, ``function`` its docs, ``scenario``, ``depends_on`` (the scenario's
  prerequisite ids), and BFCL's agentic answer format as a system message first in the first
  turn. :attr:`CategoryData.prereq` holds the prerequisite conversations (``memory_kv_prereq_*``,
  each depending on the ones before it in its scenario). The answers are lists of accepted
  texts. ``initial_config`` is set when the entry runs (it names the run's result folder);
* format sensitivity: 200 single-turn entries x 26 prompt configurations
  (``format_sensitivity_<n>:<config>:<original id>``), with the originals' answers.

This module reads files; it parses nothing about scores.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from ..errors import SuiteError
from ..extras import install_command
from .categories import (
    FORMAT_SENSITIVITY,
    MEMORY_SCENARIOS,
    VERSION_PREFIX,
    WEB_SEARCH,
    is_format_sensitivity,
    is_memory,
    is_multi_turn,
    is_relevance,
    memory_backend,
)
from .prompt import AGENTIC_RESPONSE_FORMAT, FORMAT_SENSITIVITY_CONFIGS

__all__ = [
    "BfclData",
    "CategoryData",
    "locate_data",
    "read_jsonl",
    "JsonLines",
    "DATA_ENV",
    "DISTRIBUTION",
    "FUNC_DOC_FILES",
    "memory_class",
]

#: an environment class -> its function docs in ``multi_turn_func_doc/`` (bfcl-eval's
#: ``MULTI_TURN_FUNC_DOC_FILE_MAPPING``)
FUNC_DOC_FILES: dict[str, str] = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
    "WebSearchAPI": "web_search.json",
    "MemoryAPI_kv": "memory_kv.json",
    "MemoryAPI_vector": "memory_vector.json",
    "MemoryAPI_rec_sum": "memory_rec_sum.json",
}


def memory_class(category: str) -> str:
    """The environment class of a memory category: ``memory_kv`` -> ``MemoryAPI_kv``."""
    return f"MemoryAPI_{memory_backend(category)}"


#: the environment variable naming a BFCL data folder
DATA_ENV = "TOOLEVAL_BFCL_DATA"
#: the PyPI distribution whose data files are used when no folder is given
DISTRIBUTION = "bfcl-eval"

_HOW = (
    f"give the folder holding BFCL_v4_<category>.json and possible_answer/ as "
    f"data_dir=... (CLI: --data-dir; or set {DATA_ENV}), or install the data with "
    f"{install_command('bfcl')}"
)


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

    __slots__ = (
        "path",
        "fields",
        "shape",
        "rename",
        "transform",
        "_text",
        "_numbers",
        "_ids",
        "_parsed",
        "_index",
    )

    def __init__(
        self,
        raw: bytes,
        path: Path,
        fields: tuple[str, ...] = ("id",),
        shape: str = "a JSON object with a text id",
        rename: Callable[[str], str] | None = None,
        transform: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """``rename`` maps each id of the file to the entry's id (memory's backends);
        ``transform`` completes a parsed entry in place (after its id is renamed)."""
        self.path, self.fields, self.shape = path, fields, shape
        self.rename, self.transform = rename, transform
        lines = raw.splitlines()
        self._text: list[bytes] = [line for line in lines if line.strip()]
        self._numbers: Sequence[int] = (
            range(1, len(lines) + 1)
            if len(self._text) == len(lines)
            else [n for n, line in enumerate(lines, 1) if line.strip()]
        )
        self._parsed: dict[int, dict[str, Any]] = {}
        # every id at once when every line starts with one (BFCL's files): each match starts a
        # line, in order, so as many matches as lines means one per line
        first = _ID_AT_START.match(raw)
        found = ([first.group(1)] if first is not None else []) + _IDS_AFTER_NEWLINE.findall(raw)
        same: Callable[[str], str] = rename if rename is not None else _same
        if len(found) == len(self._text):
            self._ids: list[str] = [same(i.decode("utf-8")) for i in found]
        else:
            self._ids = []
            match = _ID_AT_START.match
            for i, line in enumerate(self._text):
                at_start = match(line)  # a parsed line's id is renamed already
                self._ids.append(
                    same(at_start.group(1).decode("utf-8"))
                    if at_start is not None
                    else self._parse(i)[fields[0]]
                )
        self._index = {entry_id: i for i, entry_id in enumerate(self._ids)}  # the last wins

    def __len__(self) -> int:
        return len(self._text)

    @property
    def ids(self) -> list[str]:
        return list(self._ids)

    @property
    def numbers(self) -> Sequence[int]:
        """Each entry's line number in the file."""
        return self._numbers

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
        except (ValueError, RecursionError) as exc:
            raise SuiteError(_not_json(path, n, exc, self.shape), path=str(path)) from None
        problem = _shape_problem(obj, path, n, fields, self.shape)
        if problem is not None:
            raise SuiteError(problem, path=str(path))
        if self.rename is not None:
            obj[fields[0]] = self.rename(obj[fields[0]])
        if i < len(self._ids) and obj[fields[0]] != self._ids[i]:
            raise SuiteError(
                f"{path}, line {n}: field {fields[0]}: each line must be "
                f"{self.shape}, its id first",
                path=str(path),
            )
        if self.transform is not None:
            try:
                self.transform(obj)
            except KeyError as exc:
                raise SuiteError(
                    f"{path}, line {n} ({obj[fields[0]]}): field {exc.args[0]} is "
                    f"missing; each line must be {self.shape}",
                    path=str(path),
                ) from None
            except (TypeError, ValueError, AttributeError, IndexError) as exc:
                raise SuiteError(
                    f"{path}, line {n} ({obj[fields[0]]}): {exc}; each line must be {self.shape}",
                    path=str(path),
                ) from None
        self._parsed[i] = obj
        return obj


def _same(entry_id: str) -> str:
    return entry_id


class _Source(Protocol):
    """What :class:`CategoryData` reads entries from: a file's lines, or a built list."""

    @property
    def ids(self) -> list[str]: ...

    def __len__(self) -> int: ...

    def position(self, entry_id: str) -> int | None: ...

    def distinct_ids(self) -> Iterator[str]: ...

    def n_distinct(self) -> int: ...

    def get(self, i: int) -> dict[str, Any]: ...


class _Listed:
    """Entries built in memory (format sensitivity's), with the interface of :class:`_Lines`."""

    __slots__ = ("_entries", "_index")

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self._entries = entries
        self._index = {e["id"]: i for i, e in enumerate(entries)}

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def ids(self) -> list[str]:
        return [e["id"] for e in self._entries]

    def position(self, entry_id: str) -> int | None:
        return self._index.get(entry_id)

    def distinct_ids(self) -> Iterator[str]:
        return iter(self._index)

    def n_distinct(self) -> int:
        return len(self._index)

    def get(self, i: int) -> dict[str, Any]:
        return self._entries[i]


#: a line that starts ``{"id": "<text without quotes or escapes>"`` (its bytes)
_ID_AT_START = re.compile(rb'\{\s*"id"\s*:\s*"([^"\\]*)"')
#: the same after a newline (a literal first character: the regex engine skips to each "\n"
#: at C speed, where ``^`` in MULTILINE mode would be tried at every byte)
_IDS_AFTER_NEWLINE = re.compile(rb'\n\{\s*"id"\s*:\s*"([^"\\]*)"')


class _ById(Mapping[str, Any]):
    """The entries (or their answers' ``ground_truth``) of one file by id, parsed on access."""

    __slots__ = ("_lines", "_field")

    def __init__(self, lines: _Source, field: str | None = None) -> None:
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
    Entries are shared: a caller that changes one (BFCL's loop adds a miss_func turn's
    functions to ``function``) changes a copy.
    """

    def __init__(
        self,
        category: str,
        questions: _Source,
        answers: _Source | None,
        questions_path: Path,
        answers_path: Path | None,
        fingerprint: str,
        prereq: Sequence[dict[str, Any]] = (),
    ) -> None:
        self.category = category
        self.questions_path = questions_path
        self.answers_path = answers_path
        self.fingerprint = fingerprint
        #: memory: the prerequisite conversations (every scenario's, in BFCL's run order:
        #: by their number); each entry ``depends_on`` these of its scenario
        self.prereq: tuple[dict[str, Any], ...] = tuple(prereq)
        self._questions = questions
        #: entry id -> the entry (parsed on access)
        self.by_id: Mapping[str, dict[str, Any]] = _ById(questions)
        #: entry id -> its ground truth (``None`` for the relevance categories)
        self.answers: Mapping[str, list[Any]] | None = (
            _ById(answers, "ground_truth") if answers is not None else None
        )

    def __repr__(self) -> str:
        return (
            f"CategoryData({self.category!r}, {len(self._questions)} entries, {self.fingerprint})"
        )

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


class JsonLines(NamedTuple):
    """A JSON Lines file read: its bytes, its objects, and each object's line number."""

    raw: bytes
    objects: list[dict[str, Any]]
    lines: list[int]


def read_jsonl(
    path: str | os.PathLike[str],
    *,
    what: str = "BFCL data file",
    fields: tuple[str, ...] = ("id",),
    shape: str = "a JSON object with a text id",
    hint: str = _HOW,
    problems: list[str] | None = None,
) -> JsonLines:
    """One JSON Lines file of BFCL's (questions, answers, results, function docs; blank lines
    skipped): the one reader of them.

    Args:
        path: the file.
        what: what the file is, for the message when it cannot be read.
        fields: the fields every line must have (the first, the id, as text); ``()`` for any
            JSON object.
        shape: what every line must be, for the message naming a bad line.
        hint: what to do when the file cannot be read ("" for nothing).
        problems: where to add the message of each bad line (which is then skipped) instead of
            raising at the first one; a file that cannot be read still raises.

    Raises:
        SuiteError: the file cannot be read, or a line is not JSON or lacks a field; the
            message names the file, and the line and field.
    """
    p = Path(path)
    return _parse_jsonl(_read_bytes(p, what, hint), p, fields, shape, problems)


def _read_bytes(path: Path, what: str, hint: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        tail = f"; {hint}" if hint else ""
        raise SuiteError(
            f"cannot read {what} {path}: {exc.strerror}{tail}", path=str(path)
        ) from None


def _parse_jsonl(
    raw: bytes,
    path: Path,
    fields: tuple[str, ...] = ("id",),
    shape: str = "a JSON object with a text id",
    problems: list[str] | None = None,
) -> JsonLines:
    if problems is None and fields[:1] == ("id",):  # indexed by id at once (BFCL's files)
        lines = _Lines(raw, path, fields, shape)
        return JsonLines(raw, [lines.get(i) for i in range(len(lines))], list(lines.numbers))
    objects: list[dict[str, Any]] = []
    numbers: list[int] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:
            problem: str | None = _not_json(path, n, exc, shape)
        else:
            problem = _shape_problem(obj, path, n, fields, shape)
        if problem is None:
            objects.append(obj)
            numbers.append(n)
        elif problems is None:
            raise SuiteError(problem, path=str(path))
        else:
            problems.append(problem)
    return JsonLines(raw, objects, numbers)


def _not_json(path: Path, n: int, exc: Exception, shape: str) -> str:
    if isinstance(exc, RecursionError):
        return f"{path}, line {n}: brackets nest too deep to read; each line must be {shape}"
    return f"{path}, line {n}: not JSON ({exc}); each line must be {shape}"


def _shape_problem(obj: Any, path: Path, n: int, fields: tuple[str, ...], shape: str) -> str | None:
    """Why a parsed line is not ``shape`` (None when it is)."""
    if not isinstance(obj, dict):
        return f"{path}, line {n}: each line must be {shape}, not {type(obj).__name__}"
    if fields and (
        not isinstance(obj.get(fields[0]), str) or any(f not in obj for f in fields[1:])
    ):
        return f"{path}, line {n}: field {'/'.join(fields)}: each line must be {shape}"
    return None


def _category_data(
    category: str,
    qpath: Path,
    raw: bytes,
    apath: Path | None,
    araw: bytes,
    fingerprint: str,
    rename: Callable[[str], str] | None = None,
    transform: Callable[[dict[str, Any]], None] | None = None,
    prereq: Sequence[dict[str, Any]] = (),
) -> CategoryData:
    questions = _Lines(raw, qpath, rename=rename, transform=transform)
    answers = None
    if apath is not None:
        answers = _Lines(araw, apath, rename=rename)
        missing = [i for i in questions.ids if answers.position(i) is None]
        if missing:
            raise SuiteError(
                f"{apath}: no ground truth for {len(missing)} question(s) of "
                f"{qpath.name}, e.g. {missing[:5]}; the two files must come "
                "from the same BFCL version",
                path=str(apath),
            )
    return CategoryData(category, questions, answers, qpath, apath, fingerprint, prereq)


def _number(entry_id: str) -> int:
    """The entry's number (``memory_kv_prereq_22-student-0`` -> 22), BFCL's sort key."""
    tail = entry_id.split(":", 1)[0].rsplit("_", 1)[-1].split("-", 1)[0]
    return int(tail) if tail.isdigit() else -1


class BfclData:
    """BFCL's data folder, read category by category (each read once).

    Args:
        data_dir: the folder; None to locate it (:func:`locate_data`).
    """

    def __init__(self, data_dir: str | os.PathLike[str] | None = None) -> None:
        self.folder = locate_data(data_dir)
        self._cache: dict[str, CategoryData] = {}
        self._docs: dict[str, tuple[bytes, list[dict[str, Any]]]] = {}

    def __repr__(self) -> str:
        return f"BfclData({str(self.folder)!r})"

    def questions_path(self, category: str) -> Path:
        """The question file of a category (memory's backends share one, web search's too)."""
        if is_memory(category):
            return self.folder / f"{VERSION_PREFIX}_memory.json"
        if category in WEB_SEARCH:
            return self.folder / f"{VERSION_PREFIX}_web_search.json"
        return self.folder / f"{VERSION_PREFIX}_{category}.json"

    def answers_path(self, category: str) -> Path | None:
        """The possible-answer file of a category (None: relevance and format sensitivity,
        whose answers are the original entries')."""
        if is_relevance(category) or is_format_sensitivity(category):
            return None
        return self.folder / "possible_answer" / self.questions_path(category).name

    def category(self, category: str) -> CategoryData:
        """The entries of ``category`` (SuiteError naming the missing file and the fix)."""
        if category in self._cache:
            return self._cache[category]
        if is_format_sensitivity(category):
            data = self._format_sensitivity()
        else:
            data = self._read(category)
        self._cache[category] = data
        return data

    def _read(self, category: str) -> CategoryData:
        qpath = self.questions_path(category)
        if not qpath.is_file():
            raise SuiteError(
                f"{qpath}: no question file for BFCL category {category!r} in "
                f"{self.folder}; {_HOW}",
                path=str(qpath),
            )
        raw = _read_bytes(qpath, "BFCL data file", _HOW)
        apath = self.answers_path(category)
        if apath is not None and not apath.is_file():
            _parse_jsonl(raw, qpath)  # a bad line of the questions is named first
            raise SuiteError(
                f"{apath}: no possible-answer file for BFCL category {category!r}; {_HOW}",
                path=str(apath),
            )
        araw = _read_bytes(apath, "BFCL data file", _HOW) if apath is not None else b""
        digest = hashlib.sha256(raw)
        digest.update(araw)
        rename: Callable[[str], str] | None = None
        transform: Callable[[dict[str, Any]], None] | None = None
        prereq: list[dict[str, Any]] = []
        if is_multi_turn(category) or is_memory(category):
            classes = (
                [memory_class(category)]
                if is_memory(category)
                else [c for c in FUNC_DOC_FILES if not c.startswith(("Memory", "WebSearch"))]
            )
            for name in classes:  # a missing one is named when an entry needs it
                if (self.folder / "multi_turn_func_doc" / FUNC_DOC_FILES[name]).is_file():
                    digest.update(self._func_doc_file(name)[0])
        if is_multi_turn(category):
            transform = self._multi_turn_entry
        elif is_memory(category):
            prereq = self._prereq(category, digest)
            depends = {s: [e["id"] for e in prereq if e["scenario"] == s] for s in MEMORY_SCENARIOS}
            rename = _renamer(category)
            transform = self._memory_entry(category, depends)
        return _category_data(
            category, qpath, raw, apath, araw, digest.hexdigest()[:16], rename, transform, prereq
        )

    # -- function docs -------------------------------------------------------------------------
    def _func_doc_file(self, class_name: str) -> tuple[bytes, list[dict[str, Any]]]:
        found = self._docs.get(class_name)
        if found is None:
            name = FUNC_DOC_FILES.get(class_name)
            if name is None:
                raise SuiteError(
                    f"no function docs for BFCL class {class_name!r}; the classes "
                    f"with docs: {', '.join(FUNC_DOC_FILES)}"
                )
            path = self.folder / "multi_turn_func_doc" / name
            raw = _read_bytes(path, "BFCL function-doc file", _HOW)
            found = (
                raw,
                _parse_jsonl(raw, path, ("name",), "a JSON object with a text name").objects,
            )
            self._docs[class_name] = found
        return found

    def func_docs(self, class_name: str) -> list[dict[str, Any]]:
        """The function docs of one environment class (``multi_turn_func_doc/<file>.json``),
        a fresh copy each call."""
        return json.loads(json.dumps(self._func_doc_file(class_name)[1]))

    def _multi_turn_entry(self, entry: dict[str, Any]) -> None:
        """bfcl-eval's ``populate_test_cases_with_predefined_functions`` on one entry."""
        functions: list[dict[str, Any]] = []
        for class_name in entry["involved_classes"]:
            functions.extend(self.func_docs(class_name))
        missed = entry.get("missed_function")
        if isinstance(missed, dict):
            for turn, names in missed.items():
                moved = []
                for name in names:
                    for i, doc in enumerate(functions):
                        if doc["name"] == name:
                            moved.append(functions.pop(i))
                            break
                missed[turn] = moved
        entry["function"] = functions

    # -- memory --------------------------------------------------------------------------------
    def _prereq(self, category: str, digest: Any) -> list[dict[str, Any]]:
        """Every scenario's prerequisite conversation for one backend, in BFCL's run order."""
        out: list[dict[str, Any]] = []
        rename = _renamer(category)
        class_name = memory_class(category)
        for scenario in MEMORY_SCENARIOS:
            path = self.folder / "memory_prereq_conversation" / f"memory_{scenario}.json"
            raw = _read_bytes(path, "BFCL memory prerequisite file", _HOW)
            digest.update(raw)
            before: list[str] = []
            for entry in _parse_jsonl(raw, path).objects:
                entry["id"] = rename(entry["id"])
                entry["depends_on"] = list(before)
                entry["involved_classes"] = [class_name]
                entry["function"] = self.func_docs(class_name)
                before.append(entry["id"])
                out.append(entry)
        out.sort(key=lambda e: _number(e["id"]))
        return out

    def _memory_entry(
        self, category: str, depends: dict[str, list[str]]
    ) -> Callable[[dict[str, Any]], None]:
        class_name = memory_class(category)

        def complete(entry: dict[str, Any]) -> None:
            """bfcl-eval's ``process_memory_test_case``, ``process_agentic_test_case`` and
            ``populate_test_cases_with_predefined_functions`` on one memory entry."""
            scenario = entry["scenario"]
            if scenario not in depends:
                raise ValueError(
                    f"field scenario: {scenario!r} is not one of {', '.join(MEMORY_SCENARIOS)}"
                )
            entry["depends_on"] = list(depends[scenario])
            entry["involved_classes"] = [class_name]
            entry["question"][0].insert(0, {"role": "system", "content": AGENTIC_RESPONSE_FORMAT})
            entry["function"] = self.func_docs(class_name)

        return complete

    # -- format sensitivity --------------------------------------------------------------------
    def _format_sensitivity(self) -> CategoryData:
        """bfcl-eval's ``load_format_sensitivity_test_cases``: each listed entry (by category in
        the file's order, then in its category's file order) under each of the 26 configs."""
        qpath = self.folder / f"{VERSION_PREFIX}_{FORMAT_SENSITIVITY}.json"
        raw = _read_bytes(qpath, "BFCL format-sensitivity file", _HOW)
        try:
            listed = json.loads(raw)
        except ValueError as exc:
            raise SuiteError(
                f"{qpath}: not JSON ({exc}); it must map categories to entry ids", path=str(qpath)
            ) from None
        if not isinstance(listed, dict) or not all(
            isinstance(v, list) and all(isinstance(i, str) for i in v) for v in listed.values()
        ):
            raise SuiteError(
                f"{qpath}: it must be a JSON object mapping categories to lists of entry ids",
                path=str(qpath),
            )
        digest = hashlib.sha256(raw)
        entries: list[dict[str, Any]] = []
        answers: list[dict[str, Any]] = []
        index = 0
        for category, ids in listed.items():
            data = self.category(category)
            digest.update(data.fingerprint.encode())
            wanted = set(ids)
            missing = wanted.difference(data.ids)
            if missing:
                raise SuiteError(
                    f"{qpath}: field {category}: ids not in "
                    f"{data.questions_path.name}: {sorted(missing)[:5]}",
                    path=str(qpath),
                )
            for original_id in data.ids:
                if original_id not in wanted:
                    continue
                original = data.by_id[original_id]
                truth = data.answers[original_id] if data.answers is not None else None
                for config in FORMAT_SENSITIVITY_CONFIGS:
                    entry = json.loads(json.dumps(original))
                    entry["id"] = f"{FORMAT_SENSITIVITY}_{index}:{config}:{original_id}"
                    entries.append(entry)
                    answers.append({"id": entry["id"], "ground_truth": truth})
                    index += 1
        return CategoryData(
            FORMAT_SENSITIVITY,
            _Listed(entries),
            _Listed(answers),
            qpath,
            None,
            digest.hexdigest()[:16],
        )


def _renamer(category: str) -> Callable[[str], str]:
    """bfcl-eval's id of a memory entry for one backend: ``memory`` -> the category."""
    return lambda entry_id: entry_id.replace("memory", category)
