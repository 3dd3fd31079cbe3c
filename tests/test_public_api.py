"""The public surface (``import tooleval_nb as te``): fixed, resolvable, typed, light.

Like httpx's ``test_exported_members``: a name added to or dropped from the facade is a decision,
so it shows up here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import tooleval_nb as te
import tooleval_nb.experiments as tx

FACADE = Path(te.__file__)


def _type_checking_imports() -> dict[str, str]:
    """name -> module, from the facade's ``if TYPE_CHECKING:`` block."""
    tree = ast.parse(FACADE.read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    )
    return {
        alias.name: f"tooleval_nb.{node.module}"
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_all_is_sorted_and_unique():
    assert te.__all__ == sorted(set(te.__all__))


def test_all_is_the_errors_the_lazy_names_and_the_version():
    from tooleval_nb import errors

    assert set(te.__all__) == {*errors.__all__, *te._LAZY, "__version__"}


@pytest.mark.parametrize("name", te.__all__)
def test_every_public_name_resolves_without_a_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(te, name) is not None


@pytest.mark.parametrize("name", sorted(te._LAZY))
def test_the_type_checking_block_matches_the_lazy_table(name):
    """What an IDE or mypy sees is what ``__getattr__`` loads (from the facade module, or from the
    submodule that defines a name a submodule shares)."""
    module = _type_checking_imports().get(name, "")
    assert module == te._LAZY[name] or module.startswith(te._LAZY[name] + ".")


def test_the_type_checking_block_has_no_extra_name():
    assert set(_type_checking_imports()) == set(te._LAZY)


@pytest.mark.parametrize("name", sorted(te._LAZY))
def test_no_private_module_is_reachable(name):
    assert not name.startswith("_")
    assert not any(part.startswith("_") for part in te._LAZY[name].split("."))


def test_subpackages_reachable_as_attributes_are_public():
    assert all(not name.startswith("_") for name in te._SUBPACKAGES)


def test_an_unknown_name_says_so():
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        te.nope  # noqa: B018


@pytest.mark.parametrize("name", tx.__all__)
def test_every_experiments_name_resolves(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(tx, name) is not None


@pytest.mark.parametrize(
    "heavy", ["pandas", "numpy", "litellm", "altair", "ipywidgets", "aiohttp", "ray"]
)
def test_import_stays_light(heavy):
    code = f"import sys, tooleval_nb; print({heavy!r} in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False", f"import tooleval_nb loaded {heavy}"
