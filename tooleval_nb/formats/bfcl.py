"""The Berkeley Function Calling Leaderboard (BFCL) format: question and possible-answer JSONL.

Questions (``BFCL_v4_<category>.json``), one JSON object per line::

    {"id": "simple_python_0", "question": [[{"role": "user", "content": "..."}]],
     "function": [{"name": "math.factorial", "description": "...",
                   "parameters": {"type": "dict", "properties": {...}, "required": [...]}}]}

Answers (``possible_answer/BFCL_v4_<category>.json``)::

    {"id": "simple_python_0", "ground_truth": [{"math.factorial": {"number": [5]}}]}

How an entry becomes an :class:`~tooleval_nb.suite.EvalCase`:

* ``id`` → ``id``; the question turns → ``messages`` (flattened; when there is not exactly one
  turn, the turn lengths are kept in ``metadata["bfcl_turns"]``); the category (from the file
  name, else from the id) → ``category`` and the tags ``["bfcl", category]``; the language
  (``simple_java`` → java, ``simple_javascript`` → javascript, else python) →
  ``metadata["bfcl_language"]``. Keys BFCL may add later are kept in ``metadata["bfcl_extra"]``
  and ``metadata["bfcl_answer_extra"]``.
* ``function`` → the case's own ``tools``. Names keep their dots (``Tool.api_name`` gives the
  provider-safe one). Schemas are converted from the gorilla dialect to JSON Schema with BFCL's
  own type table (:data:`GORILLA_TO_OPENAPI`: dict→object, float→number, tuple→array,
  any→string, Java/JavaScript names too, unknown or missing → string), recursively through
  ``properties``, ``items`` and ``additionalProperties``. Every converted node keeps its original
  type under :data:`BFCL_TYPE_KEY` (``"x-bfcl-type"``; null when the node had no type) so that the
  BFCL checker can make its exact type checks. As BFCL does for function-calling models, the
  top-level parameters of java and javascript entries are presented as ``string`` (BFCL's
  checker expects Java/JavaScript values in string representation). Descriptions are not changed.
* ``ground_truth`` → ``expected_calls``, every call, each parameter with its list of acceptable
  values (``""`` = may be omitted). Irrelevance categories have no answers: nothing is expected
  (``expected_tool`` null). ``live_relevance`` has no answers either and passes on any call: its
  ``expected_tool`` lists every function of the entry, with parameters not scored.

Inconsistencies inside BFCL's own data (a ground-truth parameter missing from the schema, a value
outside an enum) do not stop the load: each is recorded in ``metadata["bfcl_problems"]`` and the
suite's cross-checks accept exactly those. Broken files (bad JSON, missing keys, answers without
questions or questions without answers) raise one SuiteError listing every problem.

:func:`save` writes both files back; loading what was saved gives an equal suite, and saving a
loaded BFCL file gives back the same JSON objects, line for line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..bfcl_rules.categories import category_of, category_of_file, is_relevance, language_of
from ..bfcl_rules.data import read_jsonl
from ..bfcl_rules.gorilla import (
    BFCL_TYPE_KEY,
    GORILLA_TO_OPENAPI,
    to_gorilla_parameters,
    to_openai_parameters,
)
from ..errors import SuiteError
from ..suite import EvalCase, ExpectedCall, FunctionDef, Suite, Tool, case_problems
from .build import raise_problems, validation_problems

__all__ = [
    "BFCL_TYPE_KEY",
    "GORILLA_TO_OPENAPI",
    "load",
    "save",
    "to_openai_parameters",
    "to_gorilla_parameters",
    "is_bfcl_file",
]

_QUESTION_KEYS = ("id", "question", "function")
_ANSWER_KEYS = ("id", "ground_truth")
_FUNCTION_KEYS = ("name", "description", "parameters")


def is_bfcl_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` looks like a BFCL question file (by name, else by its first line)."""
    p = Path(path)
    if p.suffix == ".jsonl" or category_of_file(p) is not None:
        return True
    try:
        with p.open(encoding="utf-8") as fh:
            first = fh.readline()
        obj = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and "question" in obj and "function" in obj


# -- load ------------------------------------------------------------------------------------
def load(
    questions_path: str | os.PathLike[str],
    answers_path: str | os.PathLike[str] | None = None,
    *,
    category: str | None = None,
) -> Suite:
    """Load a BFCL question file and its possible answers as a suite.

    Args:
        questions_path: ``BFCL_v4_<category>.json`` (JSON lines).
        answers_path: the possible-answer file; by default ``possible_answer/<same name>`` next
            to the questions, when it exists. Categories other than irrelevance and
            live_relevance need one.
        category: overrides the category taken from the file name.

    Raises:
        SuiteError: every problem of the files at once (nothing is loaded).
    """
    qpath = Path(questions_path)
    source = str(qpath)
    questions = _read_jsonl(qpath)
    category = (
        category
        or category_of_file(qpath)
        or (category_of(str(questions[0][1].get("id"))) if questions else "bfcl")
    )
    language = language_of(category).lower()
    if answers_path is None:
        guess = qpath.parent / "possible_answer" / qpath.name
        apath = guess if guess.is_file() else None
    else:
        apath = Path(answers_path)
    problems: list[str] = []
    answers = _answers_by_id(apath, problems) if apath else {}
    needs_answer = not is_relevance(category)
    if needs_answer and apath is None:
        raise SuiteError(
            f"{source}: no possible-answer file found (looked for "
            f"{qpath.parent / 'possible_answer' / qpath.name}); category "
            f"{category!r} needs one: pass answers_path=...",
            path=source,
        )
    cases: list[EvalCase] = []
    seen: set[str] = set()
    for i, (line, entry) in enumerate(questions):
        where = f"{source}: line {line}, case {i} ({entry.get('id', '?')!r})"
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            if entry_id in seen:
                problems.append(f"{where}: field id: duplicate id; BFCL ids must be unique")
            seen.add(entry_id)
        case = _case(entry, answers, category, language, where, problems, needs_answer, apath)
        if case is not None:
            cases.append(case)
    for entry_id, (line, _) in answers.items():
        if entry_id not in seen:
            problems.append(
                f"{apath}: line {line}: field id: {entry_id!r} has no question in "
                f"{source}; remove it or add the question"
            )
    raise_problems(problems, source)
    return Suite(
        name=f"bfcl_{category}", description=f"BFCL {category}", cases=cases, source=source
    )


def _read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Each line's number and object; every bad line at once (one SuiteError)."""
    problems: list[str] = []
    read = read_jsonl(
        path,
        what="BFCL file",
        fields=(),
        shape="one JSON object",
        hint="check the path",
        problems=problems,
    )
    raise_problems(problems, str(path))
    return list(zip(read.lines, read.objects, strict=True))


def _answers_by_id(path: Path, problems: list[str]) -> dict[str, tuple[int, dict[str, Any]]]:
    out: dict[str, tuple[int, dict[str, Any]]] = {}
    for line, entry in _read_jsonl(path):
        entry_id = entry.get("id")
        where = f"{path}: line {line}"
        if not isinstance(entry_id, str):
            problems.append(f"{where}: field id: required text but missing")
        elif not isinstance(entry.get("ground_truth"), list):
            problems.append(
                f"{where} ({entry_id!r}): field ground_truth: must be a list of "
                "{function name: {parameter: [acceptable values]}}"
            )
        elif entry_id in out:
            problems.append(f"{where} ({entry_id!r}): field id: duplicate answer")
        else:
            out[entry_id] = (line, entry)
    return out


def _case(
    entry: dict[str, Any],
    answers: dict[str, tuple[int, dict[str, Any]]],
    category: str,
    language: str,
    where: str,
    problems: list[str],
    needs_answer: bool,
    apath: Path | None,
) -> EvalCase | None:
    n_before = len(problems)
    entry_id = entry.get("id")
    if not isinstance(entry_id, str):
        problems.append(f"{where}: field id: required text but missing")
    turns = entry.get("question")
    if not (isinstance(turns, list) and all(isinstance(t, list) for t in turns)):
        problems.append(
            f"{where}: field question: must be a list of turns, each a list of "
            "{role, content} messages"
        )
        turns = []
    functions = entry.get("function")
    if not isinstance(functions, list):
        problems.append(f"{where}: field function: must be a list of function schemas")
        functions = []
    tools = []
    for j, fn in enumerate(functions):
        tool = _tool(fn, language, where, f"function[{j}]", problems)
        if tool is not None:
            tools.append(tool)
    metadata: dict[str, Any] = {"bfcl_language": language}
    extra = {k: v for k, v in entry.items() if k not in _QUESTION_KEYS}
    if extra:
        metadata["bfcl_extra"] = extra
    if len(turns) != 1:
        metadata["bfcl_turns"] = [len(t) for t in turns]
    data: dict[str, Any] = {
        "id": entry_id,
        "messages": [m for t in turns for m in t],
        "tools": tools,
        "category": category,
        "tags": ["bfcl", category],
        "metadata": metadata,
    }
    answer = answers.get(entry_id) if isinstance(entry_id, str) else None
    if answer is not None:
        a_line, a_entry = answer
        a_extra = {k: v for k, v in a_entry.items() if k not in _ANSWER_KEYS}
        if a_extra:
            metadata["bfcl_answer_extra"] = a_extra
        calls = _expected_calls(
            a_entry["ground_truth"],
            f"{apath}: line {a_line} ({entry_id!r}): field ground_truth",
            problems,
        )
        data["expected_calls"] = calls or None
    elif needs_answer:
        problems.append(f"{where}: no ground truth for this id in {apath}; add its answer line")
    elif category == "live_relevance":
        data["expected_tool"] = [t.name for t in tools] or None
    if len(problems) > n_before:
        return None
    try:
        case = EvalCase.model_validate(data)
    except ValidationError as exc:
        problems += [f"{where}: {p}" for p in validation_problems(exc, EvalCase.model_fields)]
        return None
    own = case_problems(case, tools)
    if own:
        case = case.model_copy(update={"metadata": {**metadata, "bfcl_problems": own}})
    return case


def _tool(fn: Any, language: str, where: str, field: str, problems: list[str]) -> Tool | None:
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        problems.append(f"{where}: field {field}: must be a function schema with a name")
        return None
    name = fn["name"]
    params = fn.get("parameters", {"type": "dict", "properties": {}})
    if not isinstance(params, dict):
        problems.append(f"{where}: field {field}.parameters ({name!r}): must be a schema mapping")
        return None
    extra = {k: v for k, v in fn.items() if k not in _FUNCTION_KEYS}
    try:
        return Tool(
            function=FunctionDef(
                name=name,
                description=fn.get("description", ""),
                parameters=to_openai_parameters(params, language),
                **extra,
            )
        )
    except ValidationError as exc:
        for p in validation_problems(exc):
            sub, _, text = p.removeprefix("field ").partition(": ")
            problems.append(f"{where}: field {field}.{sub} ({name!r}): {text}")
        return None


def _expected_calls(ground_truth: list[Any], where: str, problems: list[str]) -> list[ExpectedCall]:
    calls = []
    for k, item in enumerate(ground_truth):
        if not isinstance(item, dict) or not item:
            problems.append(f"{where}[{k}]: must be {{function name: {{parameter: [values]}}}}")
            continue
        for name, args in item.items():
            if not isinstance(args, dict):
                problems.append(
                    f"{where}[{k}].{name}: must map parameters to lists of acceptable values"
                )
                continue
            calls.append(ExpectedCall(name=name, arguments=args))
    return calls


# -- save ------------------------------------------------------------------------------------
def save(
    suite: Suite, directory: str | os.PathLike[str], category: str | None = None
) -> tuple[str, str | None]:
    """Write ``suite`` as ``BFCL_v4_<category>.json`` and ``possible_answer/BFCL_v4_<category>.json``.

    The category is ``category``, else the one all cases share, else the suite's name. Cases
    from a BFCL file are written back as they were read. Other cases become entries too: the
    suite's system prompt and the prompt become the question, the offered tools the functions
    (object→dict, number→float), and the expected calls the ground truth (``[]`` for a case
    that expects no call; of several acceptable tool names only the first can be written).

    Returns:
        The questions path and the answers path (None when no answer is written: irrelevance
        categories, or no case expects a call).
    """
    cats = {c.category for c in suite.cases}
    name = (
        category
        or (cats.pop() if len(cats) == 1 and None not in cats else None)
        or (suite.name.removeprefix("bfcl_"))
    )
    out_dir = Path(directory)
    qpath = out_dir / f"BFCL_v4_{name}.json"
    apath = out_dir / "possible_answer" / qpath.name
    questions, answers = [], []
    for case in suite.cases:
        questions.append(_question(case, suite))
        meta = case.metadata
        no_answer = case.category is not None and is_relevance(case.category)
        if not no_answer:
            answers.append(
                {
                    "id": case.id,
                    "ground_truth": [{c.name: c.arguments} for c in case.expected_call_list()],
                    **meta.get("bfcl_answer_extra", {}),
                }
            )
    if not any(a["ground_truth"] for a in answers):
        answers = []
    out_dir.mkdir(parents=True, exist_ok=True)
    qpath.write_text(_jsonl(questions), encoding="utf-8")
    if not answers:
        return str(qpath), None
    apath.parent.mkdir(parents=True, exist_ok=True)
    apath.write_text(_jsonl(answers), encoding="utf-8")
    return str(qpath), str(apath)


def _question(case: EvalCase, suite: Suite) -> dict[str, Any]:
    meta = case.metadata
    messages = (
        case.messages
        if case.messages is not None and "bfcl_language" in meta
        else case.to_messages(suite.system_prompt)
    )
    sizes = meta.get("bfcl_turns") or [len(messages)]
    turns, start = [], 0
    for size in sizes:
        turns.append(list(messages[start : start + size]))
        start += size
    functions = []
    for tool in suite.tools_for(case):
        fn: dict[str, Any] = {
            "name": tool.name,
            "description": tool.function.description,
            "parameters": to_gorilla_parameters(tool.function.parameters),
        }
        fn.update(tool.function.model_extra or {})
        functions.append(fn)
    return {"id": case.id, "question": turns, "function": functions, **meta.get("bfcl_extra", {})}


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
