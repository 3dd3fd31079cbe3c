"""The public surface (``import tooleval_nb as te``): fixed, resolvable, typed, light, and without
side effects on the user's process.

Like httpx's ``test_exported_members``: a name added to or dropped from the facade is a decision,
so it shows up here. Each public name is written once, in a facade's ``TYPE_CHECKING`` block
(``tooleval_nb/_lazy.py`` reads it); these tests read the same block.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import tooleval_nb as te
import tooleval_nb.experiments as tx
from tooleval_nb._lazy import lazy_names

PACKAGE = Path(te.__file__).parent
#: the lazy facades (tooleval_nb/_lazy.py): package -> its table of names
FACADES = {
    name: lazy_names(name, (PACKAGE.parent / name.replace(".", "/") / "__init__.py").read_bytes())
    for name in ("tooleval_nb", "tooleval_nb.scoring", "tooleval_nb.parsers", "tooleval_nb.runner")
}
TABLE = FACADES["tooleval_nb"]
#: every public subpackage of tooleval_nb
SUBPACKAGES = sorted(
    p.name
    for p in PACKAGE.iterdir()
    if (p / "__init__.py").is_file() and not p.name.startswith("_")
)
#: what ``import tooleval_nb`` may load besides our own modules: the standard library's parts
#: that the facade and tooleval_nb/_lazy.py use (typing for TYPE_CHECKING, ast to read the block)
#: and what they load themselves, on Python 3.11 to 3.13
IMPORT_MAY_LOAD = {
    "typing",
    "_typing",
    "typing.io",
    "typing.re",
    "collections.abc",
    "ast",
    "_ast",
    "importlib.util",
    "importlib._abc",
    "importlib.machinery",
}


def _fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter; its stdout."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_all_is_sorted_and_unique():
    assert te.__all__ == sorted(set(te.__all__))


def test_all_is_the_names_of_the_type_checking_block_and_the_version():
    names = {name for name, where in TABLE.items() if ":" in where}
    assert set(te.__all__) == {*names, "__version__"}


def test_the_exception_tree_is_public():
    from tooleval_nb import errors

    assert set(errors.__all__) <= set(te.__all__)


@pytest.mark.parametrize("name", te.__all__)
def test_every_public_name_resolves_without_a_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(te, name) is not None


@pytest.mark.process
@pytest.mark.parametrize("facade", sorted(FACADES))
def test_every_facade_name_and_subpackage_is_reachable_from_a_fresh_import(facade):
    """A fresh ``import tooleval_nb`` reaches each name of each lazy facade, and every
    subpackage is an attribute of it (``te.cluster``, ``te.bfcl``, ``te.cli`` once raised
    AttributeError until something else had imported them)."""
    code = (
        "import importlib, json, sys\n"
        f"facade = importlib.import_module({facade!r})\n"
        "missing = [n for n in facade.__all__ if getattr(facade, n, None) is None]\n"
        "import tooleval_nb as te\n"
        f"subs = {SUBPACKAGES!r}\n"
        "missing += [s for s in subs if getattr(te, s).__name__ != 'tooleval_nb.' + s]\n"
        "print(json.dumps(missing))"
    )
    assert json.loads(_fresh(code)) == []


def test_the_subpackages_once_missing_from_a_fresh_import_are_among_those_checked():
    """Each subpackage as an attribute of a fresh import, each in an interpreter that has not
    loaded it yet, is tests/test_architecture.py's reachability test (every package's
    subpackages); these are the ones that once raised."""
    assert {"bfcl", "cli", "cluster", "charts", "runner"} <= set(SUBPACKAGES)


@pytest.mark.parametrize("facade", sorted(FACADES))
def test_a_facade_names_each_value_from_the_module_that_defines_it(facade):
    """No private module is reached from outside its package, and each name is bound where the
    table says (the value is the module's own, not a copy)."""
    for name, where in FACADES[facade].items():
        assert not name.startswith("_")
        path, _, attr = where.partition(":")
        inside = facade + "."
        private = [p for p in path.split(".") if p.startswith("_")]
        assert not private or path.startswith(inside), (name, where)
        if attr:
            module = sys.modules.get(path) or __import__(path, fromlist=[attr])
            assert getattr(sys.modules[facade], name) is getattr(module, attr), (facade, name)


def test_an_unknown_name_says_so():
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        te.nope  # noqa: B018


def test_a_type_checking_block_with_something_else_is_refused():
    with pytest.raises(ImportError, match="line 3"):
        lazy_names("pkg", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import os\n")
    with pytest.raises(ImportError, match="as itself"):
        lazy_names("pkg", "if TYPE_CHECKING:\n    from .a import b as c\n")
    assert lazy_names("pkg.sub", "if TYPE_CHECKING:\n    from ..a import b as b\n") == {
        "b": "pkg.a:b"
    }


@pytest.mark.parametrize("name", tx.__all__)
def test_every_experiments_name_resolves(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(tx, name) is not None


@pytest.mark.parametrize(
    "heavy", ["pandas", "numpy", "litellm", "altair", "ipywidgets", "aiohttp", "ray"]
)
def test_import_stays_light(heavy):
    out = _fresh(f"import sys, tooleval_nb; print({heavy!r} in sys.modules)").strip()
    assert out == "False", f"import tooleval_nb loaded {heavy}"


@pytest.mark.process
def test_importing_tooleval_nb_then_altair_changes_nothing_of_the_process():
    """``import tooleval_nb`` then ``import altair``: no import hook (``sys.meta_path``), no
    renderer (Altair's stays its default, as in a process without us), and ``import
    tooleval_nb`` loads only our modules and the few standard ones it uses; ``import altair``
    then loads none of ours."""
    finders = "[type(f).__module__ + '.' + type(f).__qualname__ for f in sys.meta_path]"
    code = (
        "import json, sys\n"
        "hooks, before = list(sys.meta_path), set(sys.modules)\n"
        "import tooleval_nb\n"
        "ours = set(sys.modules) - before\n"
        "middle, unhooked = set(sys.modules), sys.meta_path == hooks\n"
        "import altair as alt\n"
        f"print(json.dumps({{'hooks': unhooked, 'finders': {finders}, "
        "'renderer': alt.renderers.active, 'loaded': sorted(ours), 'with_altair': "
        "sorted(m for m in set(sys.modules) - middle if m.startswith('tooleval_nb'))}))"
    )
    seen = json.loads(_fresh(code))
    alone = json.loads(
        _fresh(
            "import json, sys; import altair as alt; "
            f"print(json.dumps([alt.renderers.active, {finders}]))"
        )
    )
    assert seen["hooks"] is True  # import tooleval_nb added no finder
    assert seen["finders"] == alone[1]  # after altair: what altair's own import adds, no more
    assert not [f for f in seen["finders"] if f.startswith("tooleval_nb")]
    assert seen["renderer"] == alone[0] == "default"
    beyond = [m for m in seen["loaded"] if m.split(".")[0] != "tooleval_nb"]
    assert set(beyond) <= IMPORT_MAY_LOAD, sorted(set(beyond) - IMPORT_MAY_LOAD)
    assert seen["with_altair"] == []


def test_the_runner_loads_neither_the_llama_launcher_nor_parser_formats_nor_the_kit():
    """``import tooleval_nb.runner`` with every name of its facade resolved (what a run needs
    to start) loads no ``models._llama_main`` (the launcher runs in the server's process), no
    parser format module (a format loads when a run asks for it) and no conformance kit."""
    formats = sorted(
        f"tooleval_nb.parsers.{w.split(':')[0]}"
        for w in __import__("tooleval_nb.parsers.registry", fromlist=["PARSERS"]).PARSERS.values()
    )
    code = (
        "import json, sys\n"
        "import tooleval_nb.runner as r\n"
        "[getattr(r, n) for n in r.__all__]\n"
        "import tooleval_nb.runner.execute, tooleval_nb.models.embedded\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tooleval_nb'))))"
    )
    loaded = set(json.loads(_fresh(code)))
    assert "tooleval_nb.models.embedded" in loaded
    assert "tooleval_nb.models._llama_main" not in loaded
    assert not loaded & set(formats), sorted(loaded & set(formats))
    assert not loaded & {"tooleval_nb.parsers.conformance", "tooleval_nb.parsers.corpus"}
