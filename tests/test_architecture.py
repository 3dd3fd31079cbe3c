"""The architecture, checked: every import of our own modules, module-level or inside a function,
against one rule set (below, and drawn in ``docs/architecture.md``).

The rules:

1. **Floors.** Each room (a top-level module or package of ``tooleval_nb``) may import only the
   rooms listed for it in :data:`MAY_IMPORT`: arrows point down, never up or sideways.
2. **Private modules stay private.** A module whose name starts with ``_`` is imported only from
   inside its own package (``scoring`` may not reach ``models._sync``).
3. **No loops.** The graph of module imports has no cycle, counting every import: at the top,
   inside functions and in ``TYPE_CHECKING`` blocks (a type named in an annotation is an arrow
   too; a lazy facade's names are arrows to the modules that define them). Importing ``a.b.c``
   runs ``a`` and ``a.b`` first, so a module also depends on the packages above what it imports,
   except those it sits in; ``from a.b import c`` reads the package ``a.b`` itself, even the
   importer's own (a module that reads its own package's facade while that facade names the
   module is a loop). A loop is resolved by moving what the two modules share, never listed.
4. **Imports at the top.** An import of our own modules inside a function hides an arrow; each
   one needs a reason in :data:`LAZY_IMPORTS` (keep ``import tooleval_nb`` light, keep a heavy
   optional dependency out of a light module).

:data:`LEGACY_ARROWS` would list a deprecated path that still points the wrong way, with the
release that removes it; it is empty (0.1.0 is unreleased: no shim).

5. **One definition per concept.** A value that has one definition (:data:`ONE_DEFINITION`: the
   default model, the request timeout, ...) appears as a literal nowhere else in the package, and
   a public name in :data:`ONE_NAME` is bound at module level by one module only (others import
   it).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tooleval_nb"
ARCHITECTURE_DOC = PACKAGE.parent / "docs" / "architecture.md"

# extras: which optional parts are installed (the one check naming a missing extra), package data
# display: the one guard of the _repr_mimebundle_ methods (pure, imports nothing of ours)
# memo: the one memo keyed by the identity of a list's items (pure, imports nothing of ours)
# _lazy: the one lazy-facade mechanism every facade uses (imports nothing of ours)
# envvars: the one reader of a count from an environment variable (imports nothing of ours)
_CORE = {
    "errors",
    "toolcall",
    "credentials",
    "extras",
    "display",
    "memo",
    "jsontext",
    "_lazy",
    "envvars",
}
#: BFCL's rules (the bfcl_rules package), below scoring and formats: generic scoring (every
#: case's bfcl_pass) and the BFCL suite format use BFCL's names, data files, prompts and AST
#: checker without reaching the benchmark (bfcl) or the runner
BFCL_RULES = "bfcl_rules"
#: room -> the rooms it may import (itself always allowed). Bottom to top.
MAY_IMPORT: dict[str, set[str]] = {
    "errors": set(),
    "_lazy": set(),
    "display": set(),
    "memo": set(),
    "envvars": set(),
    # the JSON a run writes per case and the reply it reads (pydantic-core): pure
    "jsontext": set(),
    "extras": {"errors"},
    "aio": set(),
    # what a credential is, and its redaction: pure, for every room that stores or shows data
    "credentials": set(),
    "toolcall": {"errors"},
    "suite": _CORE,
    "parsers": _CORE | {"suite"},
    BFCL_RULES: _CORE | {"suite"},
    "scoring": _CORE | {"suite", "aio", BFCL_RULES},  # + models for the model callers, below
    "formats": _CORE | {"suite", BFCL_RULES},
    # + models: MockTransport implements the models' Transport protocol (models never import it)
    "testing": _CORE | {"suite", "parsers", "aio", "models", BFCL_RULES},
    "models": _CORE | {"suite", "parsers", "aio"},
    "mcp": _CORE | {"suite", "formats", "models", "aio", BFCL_RULES},
    # the Ray executor: model replicas and a shared rate limit; it runs the runner's cells
    # (a pickled runner.cell.CaseRunner) without importing the runner
    "cluster": _CORE | {"suite", "parsers", "models", "aio"},
    "runner": _CORE
    | {"suite", "parsers", "scoring", "formats", "models", "mcp", "cluster", "aio", BFCL_RULES},
    "experiments": _CORE
    | {"suite", "parsers", "scoring", "formats", "models", "runner", "cluster", "aio", BFCL_RULES},
    # the benchmark floor: what a benchmark run through the runner needs that is not its own
    # (the job and run it returns, the agent hook, options, side files); the runner and below
    "benchmark": _CORE
    | {"suite", "parsers", "scoring", "formats", "models", "mcp", "cluster", "runner", "aio"}
    | {BFCL_RULES},
    # BFCL as a benchmark: entries as cases, through the runner, to BFCL's result files
    "bfcl": _CORE
    | {"suite", "parsers", "scoring", "formats", "models", "mcp", "cluster", "runner", "aio"}
    | {"benchmark", BFCL_RULES},
    # τ²-bench as a benchmark, beside BFCL on the same floor (never importing it)
    "tau2": _CORE
    | {"suite", "parsers", "scoring", "formats", "models", "mcp", "cluster", "runner", "aio"}
    | {"benchmark", BFCL_RULES},
    "charts": _CORE | {"suite", "scoring", BFCL_RULES},
    "widgets": _CORE
    | {
        "suite",
        "parsers",
        "scoring",
        "formats",
        "models",
        "cluster",
        "mcp",
        "runner",
        "experiments",
        "charts",
        "aio",
        BFCL_RULES,
    },
    "report": _CORE
    | {
        "suite",
        "parsers",
        "scoring",
        "formats",
        "models",
        "cluster",
        "mcp",
        "runner",
        "experiments",
        "benchmark",
        "tau2",  # the τ² section: a stored τ² run scored again
        "charts",
        "aio",
        BFCL_RULES,
    },
    "cli": _CORE
    | {
        "suite",
        "parsers",
        "scoring",
        "formats",
        "models",
        "mcp",
        "cluster",
        "bfcl",
        "tau2",
        "runner",
        "experiments",
        "charts",
        "report",
        "aio",
        BFCL_RULES,
    },
    "__main__": {"cli"},  # python -m tooleval_nb: the command line
}

#: the parts of scoring that may call a model (LLM graders, the semantic matcher's optional
#: embedding model), through the models package and only inside the function that calls it
SCORING_MODEL_CALLS: dict[tuple[str, str], str] = {
    (
        "tooleval_nb.scoring.graders",
        "tooleval_nb.models",
    ): "scoring stays pure and light: models loads only when a case has an LLM grader",
    (
        "tooleval_nb.scoring.semantic",
        "tooleval_nb.models.embed",
    ): "scoring stays pure and light: models loads only for a provider embedding model",
}

#: (importer, imported) -> why the import sits inside a function
LAZY_IMPORTS: dict[tuple[str, str], str] = {
    **SCORING_MODEL_CALLS,
    (
        "tooleval_nb.models.call",
        "tooleval_nb.models.litellm_transport",
    ): "litellm only when used: a call through the direct OpenAI-compatible client loads "
    "neither litellm nor our litellm module (test_the_direct_path_never_imports_litellm); "
    "it loads in transport_for for a litellm-routed spec, or for a price",
    (
        "tooleval_nb.models.embed",
        "tooleval_nb.models.litellm_transport",
    ): "litellm only when used: import tooleval_nb.models loads embed, and our litellm module "
    "loads only with the first embedding call",
    (
        "tooleval_nb.cluster.executor",
        "tooleval_nb.cluster.backend",
    ): "ray is an optional extra: the backend imports it and loads only for a run that asks "
    "for the Ray executor (te.RayExecutor() itself needs no Ray)",
    (
        "tooleval_nb.runner.live",
        "tooleval_nb.mcp.live",
    ): "import tooleval_nb.runner stays free of the MCP client (about a sixth of its import "
    "time): it loads only for a run with live tools (open_live, then their answers)",
    (
        "tooleval_nb.bfcl_rules.checker",
        "tooleval_nb.bfcl_rules.convert",
    ): "a run's first case pays every import the scorer makes (issue 31: first run within "
    "0.1 s of a warm one): Java and JavaScript type conversion loads for such an entry only",
    (
        "tooleval_nb.bfcl_rules.checker",
        "tooleval_nb.bfcl_rules.prompt",
    ): "a run's first case pays every import the scorer makes: BFCL's prompt configurations "
    "load for a format-sensitivity entry only",
    (
        "tooleval_nb.runner.finish",
        "tooleval_nb.scoring.case",
    ): "import tooleval_nb.runner stays free of the scorer and BFCL's checker (about 45% of its "
    "import time; issue 31: first run within 0.1 s of a warm one): the finisher imports it "
    "at its first case, in the loop's idle time while the other requests are in flight",
    (
        "tooleval_nb.runner.launch",
        "tooleval_nb.formats",
    ): "import tooleval_nb.runner stays free of formats and PyYAML (about 80 ms, 27 modules): "
    "a suite file is read only when run_eval is given a path instead of a Suite",
}

#: arrows that point the wrong way, kept for deprecated names: (importer, imported) -> plan.
#: Empty: 0.1.0 is unreleased, so no shim protects anybody (issue 31 deleted the last ones).
LEGACY_ARROWS: dict[tuple[str, str], str] = {}


#: values with one definition: (module, name) -> the literal that must appear nowhere else in
#: the package's code. (module, name) is the definition; docstrings and comments don't count.
ONE_DEFINITION: dict[tuple[str, str], object] = {
    ("tooleval_nb.models.spec", "DEFAULT_MODEL"): "local/smollm2-135m",
    ("tooleval_nb.models.spec", "DEFAULT_TIMEOUT"): 60.0,
}
#: literals that equal a one-definition value yet are not that concept: (module, value) -> why
ONE_DEFINITION_EXCEPTIONS: dict[tuple[str, object], str] = {
    ("tooleval_nb.runner.limits", 60.0): "a rate limit's window is a minute, not a timeout",
    ("tooleval_nb.models.retry", 60.0): "the longest Retry-After honoured, not a timeout",
    ("tooleval_nb.experiments.budget", 60.0): "seconds per minute",
}
#: public names bound at module level by exactly one module of the package (a second binding,
#: even equal, is a copy that can drift; re-exports by import are fine)
ONE_NAME = (
    "DEFAULT_MODEL",
    "DEFAULT_TIMEOUT",
    "SUMMARY_COLUMNS",
    "MODES",
    "MATCH_MODES",
    "SCORE_SUMMARY_COLUMNS",
    "expected_calls_of",
    "SUMMARY_FIELDS",
    "EventRow",
    "ResultRow",
    "RunRow",
    "JobRow",
    "Transport",
)


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    target: str  # dotted module name (a module or a package)
    line: int
    in_function: bool
    type_only: bool
    #: the module the statement names and reads (``from a.b import c`` reads ``a.b``)
    named: str


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:]) if "." in name else Path()
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path) -> list[Import]:
    """Every import of a ``tooleval_nb`` module in ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for stmt in child.body:
                    visit_stmt(stmt, in_function, True)
                for stmt in child.orelse:
                    visit_stmt(stmt, in_function, type_only)
                continue
            visit_stmt(child, in_function, type_only)

    def visit_stmt(node: ast.AST, in_function: bool, type_only: bool) -> None:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "tooleval_nb":
                return
            for alias in node.names:  # ``from pkg import submodule`` imports the submodule
                sub = f"{module}.{alias.name}"
                target = sub if _is_module(sub) else module
                found.append(Import(name, target, node.lineno, in_function, type_only, module))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "tooleval_nb":
                    found.append(
                        Import(name, alias.name, node.lineno, in_function, type_only, alias.name)
                    )
        else:
            inner = in_function or isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            visit(node, inner, type_only)

    visit(ast.parse(path.read_text(encoding="utf-8")), False, False)
    return found


ALL_IMPORTS: list[Import] = [
    imp for path in sorted(PACKAGE.rglob("*.py")) for imp in imports_of(path)
]


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def arrow_allowed(imp: Import) -> bool:
    src, dst = room(imp.importer), room(imp.target)
    if src == "__init__" or src == dst:  # the facade may import anything; a room itself
        return True
    if (imp.importer, imp.target) in LEGACY_ARROWS:
        return True
    if (imp.importer, imp.target) in SCORING_MODEL_CALLS:
        return True
    return dst in MAY_IMPORT.get(src, set())


def _private_violation(imp: Import) -> bool:
    parts = imp.target.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = ".".join(parts[:i])  # the package holding the private module
            return not (imp.importer == owner or imp.importer.startswith(owner + "."))
    return False


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts))]


def import_graph(imports: list[Import] | None = None) -> dict[str, set[str]]:
    """Module -> modules it depends on: every import (inside functions and ``TYPE_CHECKING``
    blocks too; the listed legacy arrows left out), the packages above its target (those the
    importer sits in are already running), and the module a ``from`` statement reads, even the
    importer's own package."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in ALL_IMPORTS if imports is None else imports:
        if (imp.importer, imp.target) in LEGACY_ARROWS:
            continue
        for target in _ancestors(imp.target):
            if not imp.importer.startswith(target + "."):
                graph[imp.importer].add(target)
        for target in (imp.target, imp.named):
            if target != imp.importer:
                graph[imp.importer].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _where(imp: Import) -> str:
    return f"{imp.importer} (line {imp.line}) -> {imp.target}"


def _report(imports: list[Import]) -> list[str]:
    return list(dict.fromkeys(_where(i) for i in imports))  # one line per import statement


def test_the_rule_set_names_every_room():
    rooms = {
        module_name(p).split(".")[1]
        for p in PACKAGE.iterdir()
        if p.suffix == ".py" and p.name != "__init__.py" or (p / "__init__.py").is_file()
    }
    assert rooms == set(MAY_IMPORT), "add the new room to MAY_IMPORT (and docs/architecture.md)"


def test_the_parser_sees_imports_inside_functions_and_type_checking_blocks():
    imps = {(i.importer, i.target): i for i in ALL_IMPORTS}
    lazy = imps[("tooleval_nb.runner.launch", "tooleval_nb.formats")]
    assert lazy.in_function and not lazy.type_only
    assert any(i.type_only for i in ALL_IMPORTS)


def test_arrows_point_down():
    wrong = _report([i for i in ALL_IMPORTS if not arrow_allowed(i)])
    assert not wrong, "imports against the floors (MAY_IMPORT):\n" + "\n".join(wrong)


def test_private_modules_stay_in_their_package():
    wrong = _report([i for i in ALL_IMPORTS if _private_violation(i)])
    assert not wrong, "private modules imported from outside their package:\n" + "\n".join(wrong)


def test_no_import_cycle():
    loops = cycles(import_graph())
    assert not loops, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in loops)


def test_our_imports_sit_at_the_top_unless_listed():
    hidden = _report(
        [
            i
            for i in ALL_IMPORTS
            if i.in_function
            and not i.type_only
            and (i.importer, i.target) not in LAZY_IMPORTS
            and (i.importer, i.target) not in LEGACY_ARROWS
        ]
    )
    assert not hidden, (
        f"{len(hidden)} imports of our modules inside functions (move them to "
        "the top, or give the reason in LAZY_IMPORTS):\n" + "\n".join(hidden)
    )


@pytest.mark.parametrize(
    "pair", [*LAZY_IMPORTS, *LEGACY_ARROWS], ids=lambda pair: f"{pair[0]}->{pair[1]}"
)
def test_every_listed_exception_is_still_needed(pair):
    assert any((i.importer, i.target) == pair for i in ALL_IMPORTS), (
        f"{pair} is no longer imported: remove it from the rule set"
    )


@pytest.mark.parametrize(
    ("graph", "want"),
    [
        pytest.param({"a": {"b"}, "b": {"a"}}, [["a", "b"]], id="two"),
        pytest.param(
            {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]], id="three"
        ),
        pytest.param({"a": {"b"}, "b": set()}, [], id="none"),
    ],
)
def test_cycles_finds_loops(graph, want):
    assert cycles(graph) == want


def _literals(path: Path) -> list[tuple[object, int]]:
    """Every str / float / int constant in the code of ``path`` (docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.value, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and id(node) not in docs
        and isinstance(node.value, str | float)
        and not isinstance(node.value, bool)
    ]


def _bindings(path: Path) -> set[str]:
    """The names ``path`` binds at module level by assignment or definition (not by import)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def test_a_concept_with_one_definition_is_not_written_again():
    copies = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        for (home, name), value in ONE_DEFINITION.items():
            if module == home:
                continue
            lines = [
                line
                for literal, line in _literals(path)
                if type(literal) is type(value) and literal == value
            ]
            if lines and (module, value) not in ONE_DEFINITION_EXCEPTIONS:
                copies.append(f"{module} (line {lines[0]}): {value!r}; import {home}.{name}")
    assert not copies, "a one-definition value written again:\n" + "\n".join(copies)
    for (home, name), value in ONE_DEFINITION.items():
        path = PACKAGE.joinpath(*home.split(".")[1:]).with_suffix(".py")
        assert value in [v for v, _ in _literals(path)] and name in _bindings(path), (
            f"{home}.{name} is no longer the definition of {value!r}: update ONE_DEFINITION"
        )


def test_each_listed_public_name_is_bound_by_one_module():
    homes: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in _bindings(path) & set(ONE_NAME):
            homes[name].append(module_name(path))
    twice = {name: where for name, where in homes.items() if len(where) > 1}
    assert not twice, f"one concept, two definitions (import one from the other): {twice}"
    assert set(homes) == set(ONE_NAME), f"gone: {set(ONE_NAME) - set(homes)}"


def _imp(importer: str, target: str, named: str | None = None, **flags: bool) -> Import:
    return Import(
        f"tooleval_nb.{importer}",
        f"tooleval_nb.{target}",
        1,
        flags.get("in_function", False),
        flags.get("type_only", False),
        f"tooleval_nb.{named or target}",
    )


@pytest.mark.parametrize(
    ("imports", "loops"),
    [
        pytest.param(
            [_imp("p", "p.a"), _imp("p.a", "p.b", named="p")],
            [["tooleval_nb.p", "tooleval_nb.p.a"]],
            id="from-dot-import-reads-its-own-package",
        ),
        pytest.param([_imp("p", "p.a"), _imp("p.a", "p.b")], [], id="from-dot-module-import-names"),
        pytest.param(
            [_imp("a", "b"), _imp("b", "a", type_only=True)],
            [["tooleval_nb.a", "tooleval_nb.b"]],
            id="type-checking-back",
        ),
        pytest.param(
            [_imp("a", "b", in_function=True), _imp("b", "a")],
            [["tooleval_nb.a", "tooleval_nb.b"]],
            id="function-level",
        ),
        pytest.param(
            [_imp("p", "p.a", type_only=True), _imp("p.a", "p.b", named="p")],
            [["tooleval_nb.p", "tooleval_nb.p.a"]],
            id="lazy-facade-read-by-its-module",
        ),
        pytest.param([_imp("p.a", "q.b"), _imp("q.b", "p.c")], [], id="through-packages-above"),
    ],
)
def test_the_import_graph_counts_every_import(imports, loops):
    assert cycles(import_graph(imports)) == loops


# -- every facade name reachable from a fresh import ----------------------------------------------

#: run in a fresh interpreter: for each (package, subpackage) not loaded yet by an earlier check,
#: ``import package`` then ``getattr(package, subpackage)``; the rest is postponed to the next
#: interpreter. With ``names``, then every name of every facade's ``__all__`` and ``dir()``.
_REACH = r"""
import importlib, json, sys
pending, names = json.loads(sys.argv[1]), sys.argv[2] == "names"
out = {"failed": [], "postponed": []}
for parent, child in pending:
    if f"{parent}.{child}" in sys.modules:  # loaded by an earlier check: not a fresh import
        out["postponed"].append([parent, child])
        continue
    try:
        getattr(importlib.import_module(parent), child)
    except Exception as exc:
        out["failed"].append(f"{parent}.{child} (a fresh import): {type(exc).__name__}: {exc}")
if names:
    for facade in json.loads(sys.argv[3]):
        module = importlib.import_module(facade)
        for name in sorted({*getattr(module, "__all__", ()), *dir(module)}):
            try:
                getattr(module, name)
            except Exception as exc:
                out["failed"].append(f"{facade}.{name}: {type(exc).__name__}: {exc}")
print(json.dumps(out))
"""


def _packages() -> list[str]:
    return sorted(module_name(p) for p in PACKAGE.rglob("__init__.py"))


def _reach(pending: list[list[str]], names: list[str] | None) -> dict[str, list]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _REACH,
            json.dumps(pending),
            "names" if names else "",
            json.dumps(names),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PACKAGE.parent,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.process
def test_every_facade_name_and_subpackage_is_reachable_from_a_fresh_import():
    """``import tooleval_nb as te`` then ``te.<subpackage>`` for every subpackage (and likewise
    each package's own subpackages), each from an interpreter that has not loaded it yet; then
    every name of every facade's ``__all__`` and ``dir()``."""
    packages = _packages()
    pending = [list(p.rsplit(".", 1)) for p in packages if "." in p]
    failed: list[str] = []
    while pending:  # each interpreter checks at least its first pair
        out = _reach(pending, None)
        failed += out["failed"]
        assert len(out["postponed"]) < len(pending)
        pending = out["postponed"]
    failed += _reach([], packages)["failed"]
    assert not failed, "not reachable:\n" + "\n".join(failed)


# -- docs/architecture.md's room table is MAY_IMPORT ----------------------------------------------


def _doc_rooms() -> tuple[set[str], dict[str, set[str]]]:
    """The doc's definition of **core** and its room table: room -> the rooms it may import."""
    text = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    # the definition may run onto the next line: read up to the ';' that ends it
    start = text.index("**core** stands for")
    core = set(re.findall(r"`([^`]+)`", text[start : text.index(";", start)]))
    table: dict[str, set[str]] = {}
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| room | may import |"))
    for line in lines[head + 2 :]:
        if not line.startswith("|"):
            break
        rooms, allowed = line.strip("|").split("|")[:2]
        names = set(re.findall(r"`([^`]+)`", allowed))
        if re.search(r"\bcore\b", allowed):
            names |= core
        for name in re.findall(r"`([^`]+)`", rooms):
            assert name not in table, f"docs/architecture.md: room {name!r} has two rows"
            table[name] = names
    return core, table


def test_the_architecture_doc_room_table_is_may_import():
    core, table = _doc_rooms()
    differences = [
        f"core: doc only {sorted(core - _CORE)}, _CORE only {sorted(_CORE - core)}"
        for _ in range(core != _CORE)
    ] + [
        f"{room}: doc only {sorted(table.get(room, set()) - MAY_IMPORT.get(room, set()))}, "
        f"MAY_IMPORT only {sorted(MAY_IMPORT.get(room, set()) - table.get(room, set()))}"
        + ("" if room in table else " (no row in the doc)")
        + ("" if room in MAY_IMPORT else " (not in MAY_IMPORT)")
        for room in sorted(set(table) | set(MAY_IMPORT))
        if table.get(room) != MAY_IMPORT.get(room)
    ]
    assert not differences, "docs/architecture.md's room table and MAY_IMPORT differ:\n" + (
        "\n".join(differences)
    )
