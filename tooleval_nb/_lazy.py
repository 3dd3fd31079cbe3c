"""The one lazy-facade mechanism: a package's public names, written once, loaded on first use.

A facade (``tooleval_nb/__init__.py``, ``scoring/__init__.py``, ``parsers/__init__.py``) names
each public name once, in its ``if TYPE_CHECKING:`` block, in the form the typing spec reads
as a re-export::

    if TYPE_CHECKING:
        from .formats import load_suite as load_suite     # a name, from the module defining it
        from . import charts as charts                    # a subpackage

    if not TYPE_CHECKING:
        __getattr__, __dir__, __all__ = attach(__name__)

mypy, pyright and IDEs read the block as plain imports, so they see the real types (and, with
``__getattr__`` hidden from them, a misspelled name is their error, not ``Any``). At run time
:func:`attach` reads the same block from the facade's source (:mod:`ast`, once, about a
millisecond) and builds the table PEP 562's ``__getattr__`` loads from: ``te.load_suite``
imports ``tooleval_nb.formats`` on first use and keeps the value in the facade's namespace;
``te.charts`` imports the subpackage. ``__all__`` and ``dir()`` are the block's names.

Nothing else is written per name: no second table, no ``__all__`` list to keep in step.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import types
from collections.abc import Callable
from typing import Any

__all__ = ["attach", "lazy_names"]


def _is_type_checking(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def lazy_names(package: str, source: str | bytes, filename: str = "<facade>") -> dict[str, str]:
    """Public name -> ``"module:attr"`` (or ``"module"`` for a submodule), read from the
    ``if TYPE_CHECKING:`` block of a facade's source.

    Raises:
        ImportError: the block is missing, or holds something else than ``from .x import a as
            a`` / ``from . import sub as sub`` (the message names the file and the line).
    """
    table: dict[str, str] = {}
    block = next((n for n in ast.parse(source, filename).body if _is_type_checking(n)), None)
    if block is None:
        raise ImportError(f"{filename}: a lazy facade needs an 'if TYPE_CHECKING:' block")
    for stmt in block.body:  # type: ignore[attr-defined]
        if not isinstance(stmt, ast.ImportFrom) or not stmt.level:
            raise ImportError(
                f"{filename}, line {stmt.lineno}: the TYPE_CHECKING block of a lazy facade "
                "holds only relative imports ('from .module import name as name')"
            )
        base = package.rsplit(".", stmt.level - 1)[0] if stmt.level > 1 else package
        module = f"{base}.{stmt.module}" if stmt.module else base
        for alias in stmt.names:
            public = alias.asname or alias.name
            if alias.asname not in (None, alias.name) or public.startswith("_"):
                raise ImportError(
                    f"{filename}, line {stmt.lineno}: {alias.name!r} must be imported as "
                    "itself ('name as name'), and a public name has no leading underscore"
                )
            if public in table:
                raise ImportError(f"{filename}, line {stmt.lineno}: {public!r} is named twice")
            table[public] = (
                f"{module}.{alias.name}" if stmt.module is None else f"{module}:{public}"
            )
    return table


def attach(
    package: str,
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for the facade ``package`` (its module must be in
    ``sys.modules``, as it is while it runs), from its ``TYPE_CHECKING`` block.

    Besides the block's names, any submodule of the package (``tooleval_nb.scoring.case``) is
    an attribute before anything imported it, as it is after."""
    module = sys.modules[package]
    filename = getattr(module, "__file__", None) or package
    loader = getattr(module.__spec__, "loader", None)
    try:  # the bytes, as ast reads them (get_source would load tokenize to decode them)
        source = loader.get_data(filename)  # type: ignore[union-attr]
    except (AttributeError, OSError) as exc:
        raise ImportError(
            f"{filename}: a lazy facade's source is needed to read its names"
        ) from exc
    table = lazy_names(package, source, filename)
    namespace = vars(module)
    module.__class__ = type("LazyFacade", (_Facade,), {"_names": table})

    def __getattr__(name: str) -> Any:
        where = table.get(name)
        if where is None:
            if not name.startswith("_") and _is_submodule(f"{package}.{name}"):
                return importlib.import_module(f"{package}.{name}")
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        path, _, attr = where.partition(":")
        loaded = importlib.import_module(path)
        value = getattr(loaded, attr) if attr else loaded
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    # a subpackage is an attribute, not a name of ``__all__`` (a star import loads no package)
    names = sorted(
        {n for n, where in table.items() if ":" in where} | ({"__version__"} & set(namespace))
    )
    return __getattr__, __dir__, names


class _Facade(types.ModuleType):
    """A facade module whose public name is also the name of one of its submodules
    (``tooleval_nb.runner.history``, the module, defines ``history``, the function): importing
    the submodule binds it on the package (Python's import system does), which would hide the
    public name. Here the public name wins, as it did when facades imported their names
    eagerly: the value bound is the one the table names, taken from the submodule just run."""

    _names: dict[str, str] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        where = self._names.get(name, "")
        if isinstance(value, types.ModuleType) and where.startswith(value.__name__ + ":"):
            value = getattr(value, where.partition(":")[2])
        super().__setattr__(name, value)


def _is_submodule(name: str) -> bool:
    """A module or a regular package of ours (a data folder, a namespace package, is not)."""
    spec = importlib.util.find_spec(name)
    return spec is not None and spec.origin is not None and spec.origin != "namespace"
