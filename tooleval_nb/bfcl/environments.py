"""BFCL's executable environments: its own classes, driven without ``eval``.

Multi-turn and memory entries run their calls against stateful Python classes (a file system,
a trading bot, a travel API, a memory store...). These are **BFCL's own classes**, imported from
the installed ``bfcl-eval`` (``pip install --no-deps bfcl-eval==2026.3.23``, the ``bfcl``
extra, plus the few small packages the classes import: ``mpmath``, ``rank-bm25``; memory also
``overrides`` and ``filelock``); their code is not copied here.

:class:`Environments` builds the instances of one entry as BFCL's executor
(``multi_turn_utils.execute_multi_turn_func_call``) does: one instance per involved class,
``_load_scenario(deepcopy(initial_config[class]), long_context=...)`` for the stateful ones, and
every public method reachable by its bare name (a later class wins a shared name). A call is a
string such as ``cd(folder='docs')``; BFCL prefixes every ``name(`` in it that is a method name
with the instance's variable name (inside string literals too: that text is what the method
receives) and then calls ``eval``. Here the rewritten text is parsed with :mod:`ast` and
evaluated by a small interpreter: literals, containers, arithmetic, and calls of the
instances' methods (nested calls included); nothing else runs. The results are BFCL's: a
``str`` as is, a ``dict`` as JSON, anything else through ``str``; any exception becomes
``"Error during execution: <message>"``, which is the text the model sees, as in BFCL (an
unknown function: ``name 'f' is not defined``; bad arguments: Python's ``TypeError`` text; an
exception inside a method: its message; ``kill``, ``exit``, ``remove``... are refused with
BFCL's words). One deliberate difference: a call of a Python builtin (``print``, ``open``) is
an unknown name here, where BFCL's ``eval`` would run it.

:func:`decode_execute` turns one model step (what BFCL stores per step: an FC call list or the
prompt-mode text) into those call strings, as BFCL's handlers' ``decode_execute`` does.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import keyword
import math
import operator
import os
import pickle
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from ..bfcl_rules.decode import DecodeError, decode_prompt
from ..errors import SuiteError

__all__ = [
    "Environments",
    "decode_execute",
    "is_empty_execute",
    "load_class",
    "BFCL_INSTALL",
    "long_context_of",
    "MEMORY_CLASSES",
    "ExecuteMode",
]

#: how to get BFCL's environment classes (the ``bfcl`` extra)
BFCL_INSTALL = (
    "pip install --no-deps bfcl-eval==2026.3.23 mpmath rank-bm25 (the 'bfcl' extra: "
    "pip install 'tooleval_nb[bfcl]')"
)
_BACKEND = "bfcl_eval.constants.executable_backend_config"
#: the memory backends' classes (their entries name ``MemoryAPI`` until a backend is chosen)
MEMORY_CLASSES = ("MemoryAPI_kv", "MemoryAPI_vector", "MemoryAPI_rec_sum")
#: the PyPI package of a module the environment classes import
_PACKAGES = {
    "mpmath": "mpmath",
    "rank_bm25": "rank-bm25",
    "overrides": "overrides",
    "filelock": "filelock",
    "faiss": "faiss-cpu",
    "sentence_transformers": "sentence-transformers",
    "numpy": "numpy",
    "bs4": "beautifulsoup4",
    "serpapi": "google-search-results",
    "html2text": "html2text",
    "requests": "requests",
}
#: BFCL refuses these before ``eval`` (the name after the first ``.`` of the text before ``(``)
_FORBIDDEN = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
#: a function name followed by ``(``: the names BFCL prefixes with an instance
_CALL_NAME = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
_INSTANCE_CHARS = re.compile(r"[-./:]")

ExecuteMode = Literal["fc", "prompt"]


def _backend() -> Any:
    """BFCL's table of environment classes (``executable_backend_config``)."""
    try:
        return importlib.import_module(_BACKEND)
    except ImportError as exc:
        raise SuiteError(
            f"BFCL's multi-turn environments need the bfcl-eval package, which is "
            f"not installed ({exc}): {BFCL_INSTALL}"
        ) from None


def load_class(name: str) -> type:
    """BFCL's environment class ``name`` (``GorillaFileSystem``, ``MemoryAPI_kv``...).

    Raises:
        SuiteError: bfcl-eval is not installed, the class is unknown, or its module needs a
            package that is missing (named, with the command that installs it).
    """
    return _load_class(name)


@cache
def _load_class(name: str) -> type:
    modules = _backend().CLASS_FILE_PATH_MAPPING
    if name not in modules:
        raise SuiteError(
            f"unknown BFCL environment class {name!r}; bfcl-eval knows {', '.join(sorted(modules))}"
        )
    if name in MEMORY_CLASSES or name == "WebSearchAPI":
        # bfcl_eval.utils (which memory imports) makes result/ and score/ folders under its
        # project root when imported: keep them out of site-packages
        os.environ.setdefault("BFCL_PROJECT_ROOT", str(_project_root()))
    try:
        module = importlib.import_module(modules[name])
    except ImportError as exc:
        missing = exc.name or str(exc)
        package = _PACKAGES.get(missing.split(".")[0], missing)
        raise SuiteError(
            f"BFCL's environment class {name} cannot be imported: module "
            f"{missing!r} is missing; install it with pip install {package}"
        ) from None
    return getattr(module, name)  # type: ignore[no-any-return]


def _project_root() -> Path:
    root = Path(os.environ.get("TOOLEVAL_CACHE_DIR") or Path.home() / ".cache" / "tooleval_nb")
    return root / "bfcl_project"


def long_context_of(entry_id: str) -> bool:
    """BFCL's rule: the entry's category (its id without the last ``_<n>``) names
    ``long_context`` or ``composite``."""
    category = entry_id.rsplit("_", 1)[0]
    return "long_context" in category or "composite" in category


class Environments:
    """The instances of one entry's involved classes, and calls executed against them.

    Args:
        involved_classes: BFCL class names, in the entry's order.
        initial_config: ``{class: config}`` as in the entry (each config is deep-copied).
        entry_id: the entry's id (part of the instances' variable names, as in BFCL).
        model_name: the other part: BFCL uses the model's name, ``+ "_eval"`` when checking
            (:meth:`from_entry`'s ``evaluation``), ``+ "_ground_truth_eval"`` for the ground
            truth. It matters only where a string argument contains ``method(`` (BFCL
            rewrites it with the variable name).
        long_context: passed to ``_load_scenario`` (default: :func:`long_context_of`).

    Raises:
        SuiteError: the classes cannot be imported (see :func:`load_class`).
    """

    def __init__(
        self,
        involved_classes: Sequence[str],
        initial_config: Mapping[str, Any],
        *,
        entry_id: str,
        model_name: str = "tooleval",
        long_context: bool | None = None,
    ) -> None:
        stateless = set(_backend().STATELESS_CLASSES)
        if long_context is None:
            long_context = long_context_of(entry_id)
        self.entry_id = entry_id
        self.model_name = model_name
        self.long_context = long_context
        self.instances: dict[str, Any] = {}
        #: variable name -> instance (what BFCL's ``eval`` sees as globals)
        self._names: dict[str, Any] = {}
        #: method name -> variable name of the instance that has it
        self._methods: dict[str, str] = {}
        for class_name in involved_classes:
            instance = load_class(class_name)()
            if class_name not in stateless:
                instance._load_scenario(
                    _copy_config(initial_config.get(class_name, {})), long_context=long_context
                )
            self._add(class_name, instance)

    def _add(self, class_name: str, instance: Any) -> None:
        var = _INSTANCE_CHARS.sub("_", f"{self.model_name}_{self.entry_id}_{class_name}_instance")
        self.instances[class_name] = instance
        self._names[var] = instance
        for method_name in _public_methods(instance):
            self._methods[method_name] = var

    @classmethod
    def from_entry(
        cls,
        entry: Mapping[str, Any],
        *,
        model_name: str = "tooleval",
        evaluation: bool = False,
        long_context: bool | None = None,
        result_dir: str | os.PathLike[str] | None = None,
        backend: str | None = None,
    ) -> Environments:
        """The environments of one BFCL multi-turn or memory entry.

        Args:
            entry: the question entry (``id``, ``involved_classes``, ``initial_config``; memory:
                ``scenario``).
            model_name: as BFCL's handler names it (``/``, ``-``, ``.`` become ``_``).
            evaluation: the checker's instances (BFCL appends ``_eval`` to the name).
            long_context: default from the entry id (:func:`long_context_of`).
            result_dir: memory only: the model's result folder, under which BFCL's memory
                classes keep their snapshots (``agentic/memory/<backend>/memory_snapshot/``:
                a prerequisite conversation's memory, flushed with :meth:`flush_memory`, is
                what the later entries of its scenario start from).
            backend: memory only, for an entry still naming ``MemoryAPI``: ``kv``,
                ``vector`` or ``rec_sum`` (default: from the id, ``memory_kv_...``).
        """
        entry_id = str(entry["id"])
        classes = [str(c) for c in entry.get("involved_classes", [])]
        config: dict[str, Any] = dict(entry.get("initial_config") or {})
        if "MemoryAPI" in classes or any(c in MEMORY_CLASSES for c in classes):
            classes = [_memory_class(c, entry_id, backend) for c in classes]
            for c in classes:
                if c in config:
                    continue
                if result_dir is None:
                    raise SuiteError(
                        f"memory entry {entry_id}: give result_dir=, the folder "
                        "where the memory snapshots of this model are kept"
                    )
                config[c] = {
                    "model_result_dir": Path(result_dir),
                    "scenario": entry.get("scenario"),
                    "test_id": entry_id,
                    "test_category": entry_id.rsplit("_", 1)[0],
                }
        if evaluation:
            model_name += "_eval"
        else:
            model_name = model_name.replace("/", "_").replace("-", "_").replace(".", "_")
        return cls(
            classes, config, entry_id=entry_id, model_name=model_name, long_context=long_context
        )

    # -- execution ---------------------------------------------------------------------------
    def execute(self, calls: Iterable[str]) -> list[str]:
        """Run each call string in order; one result text per call (an error is a result)."""
        return [self.execute_one(call) for call in calls]

    def execute_one(self, call: str) -> str:
        """Run one call string as BFCL's executor does; returns the text the model sees."""
        plan = self._plan(call)
        try:
            if plan is not None:  # a CallText whose text BFCL would run unchanged but its name
                name, args = plan
                if name in _FORBIDDEN:
                    raise Exception(f"Function call {name} is not allowed.")
                value = getattr(self._names[self._methods[name]], name)(**json.loads(args))
            else:
                text = _CALL_NAME.sub(self._prefixed, call)
                head = text.split("(")[0] if "(" in text else text
                if "." in head:
                    head = head.split(".")[1]
                if head in _FORBIDDEN:
                    raise Exception(f"Function call {head} is not allowed.")
                value = _Interpreter(self._names).run(text)
        except Exception as exc:  # any error is the model's to read, as in BFCL
            return f"Error during execution: {exc}"
        if type(value) is str:
            return value
        if type(value) is dict:
            try:
                return json.dumps(value)
            except Exception:
                return str(value)
        return str(value)

    def _plan(self, call: str) -> tuple[str, str] | None:
        """``(name, arguments JSON)`` of a :class:`CallText` when running it directly is what
        BFCL's ``eval`` of the text does: the name is a method, and no other ``name(`` in the
        text is one (BFCL would rewrite it inside a string value)."""
        plan = getattr(call, "plan", None)
        if plan is None or plan[0] not in self._methods:
            return None
        for match in _CALL_NAME.finditer(call, len(plan[0])):
            if match.group(1) in self._methods:
                return None
        return plan  # type: ignore[no-any-return]

    def _prefixed(self, match: re.Match[str]) -> str:
        name = match.group(1)
        var = self._methods.get(name)
        return f"{var}.{name}" if var is not None else name

    # -- state -------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, dict[str, Any]]:
        """``{class: {attribute: value}}``: a deep copy of every instance's public attributes
        (what BFCL's state check compares and its inference log shows)."""
        return {name: copy.deepcopy(public_state(inst)) for name, inst in self.instances.items()}

    def differences(self, other: Environments) -> dict[str, dict[str, dict[str, Any]]]:
        """BFCL's state check of ``self`` (the model's) against ``other`` (the ground truth's):
        ``{class: {attribute: {"model": ..., "ground_truth": ...}}}`` for every class that
        differs, in ``other``'s order (empty: the states match)."""
        out = {}
        for name, truth in other.instances.items():
            diff = _compare(self.instances[name], truth)
            if diff:
                out[name] = diff
        return out

    def copy(self, model_name: str | None = None) -> Environments:
        """An independent copy (instances deep-copied), e.g. the ground truth's state to
        replay a model's next turn from. ``model_name``: the copy's (default this one's)."""
        new = object.__new__(Environments)
        new.entry_id, new.long_context = self.entry_id, self.long_context
        new.model_name = self.model_name if model_name is None else model_name
        new.instances, new._names, new._methods = {}, {}, {}
        for name, inst in self.instances.items():
            new._add(name, _copy_config(inst))
        return new

    # -- memory ------------------------------------------------------------------------------
    @property
    def memory(self) -> Any:
        """The memory backend's instance of a memory entry (BFCL's ``MemoryAPI``), or None."""
        return next((i for n, i in self.instances.items() if n in MEMORY_CLASSES), None)

    def flush_memory(self) -> None:
        """Write the memory to its snapshot files, as BFCL does at the end of a prerequisite
        conversation (the next entries of the scenario load it)."""
        if self.memory is None:
            raise SuiteError(f"{self.entry_id}: not a memory entry; nothing to flush")
        self.memory._flush_memory_to_local_file()

    def __repr__(self) -> str:
        return f"Environments({self.entry_id!r}, {list(self.instances)})"


_METHODS: dict[type, tuple[str, ...]] = {}


def _public_methods(instance: Any) -> tuple[str, ...]:
    """The public bound methods BFCL maps by name (``inspect.getmembers(instance,
    inspect.ismethod)``), found once per class: an instance's own attributes hold data."""
    cls = type(instance)
    found = _METHODS.get(cls)
    if found is None or any(name in vars(instance) for name in found):
        found = tuple(
            name
            for name, _ in inspect.getmembers(instance, inspect.ismethod)
            if not name.startswith("_")
        )
        _METHODS[cls] = found
    return found


def _copy_config(config: Any) -> Any:
    """``copy.deepcopy`` of an entry's configuration (JSON data, memory's paths) or of an
    instance, through pickle (several times faster on these trees of plain data)."""
    try:
        return pickle.loads(pickle.dumps(config, pickle.HIGHEST_PROTOCOL))
    except Exception:
        return copy.deepcopy(config)


def public_state(instance: Any) -> dict[str, Any]:
    """An instance's attributes not starting with ``_`` (BFCL's notion of its state)."""
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


def _compare(model: Any, truth: Any) -> dict[str, dict[str, Any]]:
    """BFCL's ``_compare_instances``: the truth's public attributes the model's differ on."""
    diff = {}
    for attr in vars(truth):
        if attr.startswith("_"):
            continue
        mine, theirs = getattr(model, attr), getattr(truth, attr)
        if mine != theirs:
            diff[attr] = {"model": mine, "ground_truth": theirs}
    return diff


def _memory_class(name: str, entry_id: str, backend: str | None) -> str:
    if name != "MemoryAPI":
        return name
    if backend is None:
        m = re.match(r"memory_(kv|vector|rec_sum)", entry_id)
        if m is None:
            raise SuiteError(
                f"memory entry {entry_id} names MemoryAPI without a backend: give "
                "backend='kv', 'vector' or 'rec_sum'"
            )
        backend = m.group(1)
    return f"MemoryAPI_{backend}"


# -- the interpreter of one call text ------------------------------------------------------------
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
#: the most items or characters an operation of a call text may make
_MAX_SIZE = 1_000_000
#: the most bits of an integer an operation of a call text may make
_MAX_BITS = 4_000_000
_SIZED = (str, bytes, list, tuple)
#: a ``%`` conversion's width and precision (``%-08.3f``, ``%*d``, ``%(name)10s``)
_FORMAT_FIELD = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


@lru_cache(maxsize=65536)
def _parse(text: str) -> ast.expr:
    # eval() skips leading blanks and tabs
    return ast.parse(text.lstrip(" \t"), "<string>", "eval").body


class _Interpreter:
    """Evaluates the subset of Python that BFCL's call texts use; calls reach only the
    instances' public methods."""

    __slots__ = ("names", "instances")

    def __init__(self, names: Mapping[str, Any]) -> None:
        self.names = names
        self.instances = {id(v) for v in names.values()}

    def run(self, text: str) -> Any:
        return self.value(_parse(text))

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Call):
            _no_repeated_keyword(node)
            func = self.value(node.func)
            args: list[Any] = []
            for a in node.args:
                if isinstance(a, ast.Starred):
                    args.extend(self.value(a.value))
                else:
                    args.append(self.value(a))
            kwargs: dict[str, Any] = {}
            for kw in node.keywords:
                if kw.arg is None:
                    kwargs.update(self.value(kw.value))
                else:
                    kwargs[kw.arg] = self.value(kw.value)
            return func(*args, **kwargs)
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            raise NameError(f"name '{node.id}' is not defined")
        if isinstance(node, ast.Attribute):
            obj = self.value(node.value)
            if id(obj) not in self.instances or node.attr.startswith("_"):
                raise AttributeError(
                    f"'{type(obj).__name__}' object attribute '{node.attr}' is not available here"
                )
            return getattr(obj, node.attr)
        if isinstance(node, ast.List):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Tuple):
            return tuple(self.value(e) for e in node.elts)
        if isinstance(node, ast.Set):
            return {self.value(e) for e in node.elts}
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for k, v in zip(node.keys, node.values, strict=True):
                if k is None:
                    out.update(self.value(v))
                else:
                    out[self.value(k)] = self.value(v)
            return out
        if isinstance(node, ast.Subscript):
            return self.value(node.value)[self.value(node.slice)]
        if isinstance(node, ast.Slice):
            return slice(
                *(None if n is None else self.value(n) for n in (node.lower, node.upper, node.step))
            )
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self.value(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = self.value(node.left), self.value(node.right)
            _check_size(node.op, left, right)
            return _BINOPS[type(node.op)](left, right)
        raise SyntaxError(f"{type(node).__name__} is not evaluated in a function call here")


def _no_repeated_keyword(node: ast.Call) -> None:
    """The one compiler check a call text meets (``eval`` refuses the text before running)."""
    if len(node.keywords) > 1:
        seen: set[str] = set()
        for kw in node.keywords:
            if kw.arg is not None:
                if kw.arg in seen:
                    raise SyntaxError(
                        f"keyword argument repeated: {kw.arg}",
                        ("<string>", 1, kw.col_offset + 1, None),
                    )
                seen.add(kw.arg)


def _check_size(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse, before it is computed, an operation whose result would pass the bounds: more
    than :data:`_MAX_SIZE` items or characters, or an integer of more than :data:`_MAX_BITS`
    bits (a model's call text is input; ``'%999999999d' % 1`` would take a gigabyte)."""
    if isinstance(op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > 10_000:
        raise ValueError("exponent too large to evaluate")
    if isinstance(op, ast.Pow) and _is_int(left) and _is_int(right) and right > 0:
        if max(left.bit_length(), 1) * right > _MAX_BITS:
            raise ValueError("power too large to evaluate")
    if isinstance(op, ast.Mult):
        if _is_int(left) and _is_int(right):
            if left.bit_length() + right.bit_length() > _MAX_BITS:
                raise ValueError("product too large to evaluate")
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int):
                if len(seq) * n > _MAX_SIZE:
                    raise ValueError("repetition too large to evaluate")
    if isinstance(op, ast.Add) and isinstance(left, _SIZED) and isinstance(right, _SIZED):
        if len(left) + len(right) > _MAX_SIZE:
            raise ValueError("concatenation too large to evaluate")
    if isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        _check_format(left, right)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_format(template: str | bytes, args: Any) -> None:
    """Refuse a ``%`` format whose widths or precisions (written, or taken from ``args`` by
    ``*``) would make a result larger than :data:`_MAX_SIZE`."""
    text = template.decode("latin-1") if isinstance(template, bytes) else template
    fields = _FORMAT_FIELD.findall(text)
    if len(fields) > _MAX_SIZE // 10:
        raise ValueError("format too large to evaluate")
    stars = False
    for width, precision in fields:
        for number in (width, precision):
            if number == "*":
                stars = True
            elif number and int(number) > _MAX_SIZE:
                raise ValueError("format width too large to evaluate")
    if stars:
        values = args if isinstance(args, tuple) else (args,)
        if any(_is_int(v) and abs(v) > _MAX_SIZE for v in values):
            raise ValueError("format width too large to evaluate")


# -- one model step -> call texts -----------------------------------------------------------------
def decode_execute(step: Any, mode: ExecuteMode) -> list[str]:
    """BFCL's ``decode_execute`` of one stored step: the call texts to execute.

    ``fc``: a list of ``{name: arguments}`` (a dict alone is taken as one; arguments as a JSON
    string or an object), each key a call ``name(k=repr(v),...)``. ``prompt``: text such as
    ``[f(a=1), g(b='x')]``, read as BFCL's prompt decoder reads it (a nested call with
    keyword arguments stays a call).

    Raises:
        DecodeError: the step holds no call list (a text reply in FC mode, prose in prompt
            mode); BFCL moves on to the next turn.
    """
    try:
        if mode == "fc":
            return _fc_calls(step)
        if not isinstance(step, str):
            raise DecodeError(f"a prompt-mode step is text, not a {type(step).__name__}")
        decoded = decode_prompt(step, "Python")
        return [
            _call_text(name, args, ", ", _nested) for call in decoded for name, args in call.items()
        ]
    except DecodeError:
        raise
    except Exception as exc:  # BFCL's decoders fail in many ways; each is "no call"
        raise DecodeError(f"cannot decode the step: {type(exc).__name__}: {exc}") from None


class CallText(str):
    """A call text as BFCL writes it, knowing its name and arguments (as JSON) when they are
    plain: keyword names that are identifiers, values that are JSON data whose ``repr`` reads
    back as the same value (no ``inf``, no tuple). :meth:`Environments.execute_one` then calls
    the method with them instead of reading the text again: the same call, faster."""

    __slots__ = ("plan",)
    plan: tuple[str, str] | None


def _call_text(
    name: Any,
    args: dict[Any, Any],
    sep: str,
    render: Callable[[Any], str],
    given: str | None = None,
) -> CallText:
    text = CallText(f"{name}({sep.join(f'{k}={render(v)}' for k, v in args.items())})")
    text.plan = None
    if (
        isinstance(name, str)
        and name.isascii()
        and name.isidentifier()
        and all(
            isinstance(k, str) and k.isascii() and k.isidentifier() and not keyword.iskeyword(k)
            for k in args
        )
        and all(_plain(v) for v in args.values())
        # prompt mode writes a dict argument its own way (a dict of dicts as a call)
        and (render is repr or not any(type(v) is dict for v in args.values()))
    ):
        text.plan = (name, given if given is not None else json.dumps(args))
    return text


def _plain(value: Any) -> bool:
    """JSON data whose repr evaluates back to an equal value of the same type."""
    if value is None or type(value) in (str, bool, int):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return all(_plain(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    return False


def _fc_calls(step: Any) -> list[str]:
    if type(step) is dict:
        step = [step]
    out: list[str] = []
    for call in step:
        for name, args in call.items():
            given = None
            if type(args) is str:
                given, args = args, json.loads(args)
            if type(args) is not dict:
                args.items()  # fails as in BFCL (a JSON list, a number...)
            out.append(_call_text(name, args, ",", repr, given))
    return out


def _nested(value: Any) -> str:
    """A prompt-mode argument as BFCL writes it back: a dict of dicts is a nested call
    ``f(k=v)``, another dict ``{'k': v}``, anything else its ``repr``."""
    if isinstance(value, dict):
        if all(isinstance(v, dict) for v in value.values()):
            name = list(value)[0]  # an empty dict fails here, as in BFCL
            return f"{name}({', '.join(f'{k}={_nested(v)}' for k, v in value[name].items())})"
        return "{" + ", ".join(f"'{k}': {_nested(v)}" for k, v in value.items()) + "}"
    return repr(value)


def is_empty_execute(decoded: Sequence[Any]) -> bool:
    """BFCL's ``is_empty_execute_response``: no call (``[]`` or ``[[]]``/``[""]``)."""
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)
