"""The manual's examples run: every Python block of ``docs/*.md`` and ``README.md``, in order, one
namespace per page (as a notebook runs its cells), in a scratch folder with a private run store.

A block that cannot run here (it needs the embedded model, a provider's key, a Ray cluster, your
own server) is marked as an illustration on the line before it, with the reason::

    <!-- illustration: needs the embedded model (the `embedded` extra) -->

A block with a top-level ``await`` runs as a notebook cell does, on an event loop; the others run
as a script does (``te.run_eval`` then blocks until the run is finished). The docs site's own build
(``bash scripts/docs.sh``, strict) is checked by the test command, not here.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: the pages whose Python blocks run (the notebooks run under nbval, not here)
PAGES = sorted(DOCS.glob("*.md")) + sorted((DOCS / "api").glob("*.md")) + [ROOT / "README.md"]

#: pages whose examples another piece of work is rewriting (they join this test when it lands)
PENDING: dict[str, str] = {}

_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)[^\n]*$")
_ILLUSTRATION = re.compile(r"^\s*<!--\s*illustration:(?P<reason>.*?)-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced Python block of a page."""

    page: Path
    line: int  # 1-based line of the opening fence
    code: str
    illustration: str | None  # the reason it does not run, or None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def python_blocks(page: Path) -> list[Block]:
    """Every ```python block of ``page``, with the illustration reason written before it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start, indent = i, fence["indent"]
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1  # the closing fence
        if fence["lang"] not in ("python", "py"):
            continue
        before = next((ln for ln in reversed(lines[:start]) if ln.strip()), "")
        marked = _ILLUSTRATION.match(before)
        reason = marked["reason"].strip() if marked else None
        blocks.append(Block(page, start + 1, "\n".join(body) + "\n", reason))
    return blocks


def _run_page(blocks: list[Block]) -> None:
    namespace: dict[str, object] = {"__name__": "__docs__"}
    with asyncio.Runner() as runner:
        for block in blocks:
            if block.illustration is not None:
                continue
            try:
                code = compile(
                    block.code, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
                )
                if code.co_flags & inspect.CO_COROUTINE:
                    runner.run(eval(code, namespace))  # a notebook cell with `await`
                else:
                    exec(code, namespace)
            except Exception as exc:
                raise AssertionError(
                    f"the example at {block.where} failed: {type(exc).__name__}: {exc}\n"
                    f"{textwrap.indent(block.code, '    ')}\nmark it `<!-- illustration: "
                    "reason -->` only if it cannot run in a test"
                ) from exc


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The examples run in a folder of their own, with a run store of their own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLEVAL_STORE", str(tmp_path / "runs.db"))
    return tmp_path


@pytest.mark.parametrize(
    "page", [p for p in PAGES if python_blocks(p)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_examples_run(page: Path, scratch: Path) -> None:
    if page.name in PENDING and page.parent == DOCS:
        pytest.skip(PENDING[page.name])
    _run_page(python_blocks(page))


def test_examples_run_twice_in_one_process(scratch: Path) -> None:
    """The getting-started page again (same store): a rerun answers the same."""
    page = DOCS / "getting-started.md"
    _run_page(python_blocks(page))
    _run_page(python_blocks(page))


def test_illustrations_say_why() -> None:
    problems = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8").splitlines()
        in_fence = False
        for n, line in enumerate(text, 1):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            if in_fence:
                continue  # a marker shown inside a code block is an example of one
            marked = _ILLUSTRATION.match(line)
            if "illustration" in line and "<!--" in line and not marked:
                problems.append(f"{page.name}:{n}: write `<!-- illustration: reason -->`")
            if marked and not marked["reason"].strip():
                problems.append(f"{page.name}:{n}: an illustration without its reason")
            if marked:
                after = next((ln for ln in text[n:] if ln.strip()), "")
                if not after.lstrip().startswith("```python"):
                    problems.append(f"{page.name}:{n}: the marker is not before a Python block")
    assert not problems, "\n".join(problems)


def test_most_examples_run() -> None:
    """Illustrations are the exception: most of the manual's Python runs in this test."""
    blocks = [b for p in PAGES for b in python_blocks(p)]
    running = [b for b in blocks if b.illustration is None]
    assert len(blocks) >= 20
    assert len(running) >= len(blocks) / 2, [b.where for b in blocks if b.illustration]


def test_readme_first_example_runs_alone(scratch: Path) -> None:
    """The README's first Python block runs on its own in a fresh interpreter (the wheel check
    runs the same block in a venv that has only the core wheel)."""
    first = python_blocks(ROOT / "README.md")[0]
    assert first.illustration is None, "the README's first example must run"
    assert "data/" not in first.code, "use bundled: suites, which an installed wheel has"
    done = subprocess.run(
        [sys.executable, "-c", first.code], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip(), "the first example prints what it found"


def test_block_parser(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```python\nx = 1\n```\n\n<!-- illustration: needs a key -->\n"
        "```python\ncall()\n```\n\n- item\n\n    ```python\n    y = x + 1\n    ```\n"
        "```bash\nls\n```\n"
    )
    blocks = python_blocks(page)
    assert [(b.line, b.code, b.illustration) for b in blocks] == [
        (3, "x = 1\n", None),
        (8, "call()\n", "needs a key"),
        (14, "y = x + 1\n", None),
    ]


def test_every_public_name_is_in_the_api_reference() -> None:
    """Each ``te.*`` name is rendered on an API page (by name, or with its module), with a
    docstring when it is a function or a class."""
    import tooleval_nb as te

    pages = " ".join(p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.md"))
    listed = set(re.findall(r"^::: tooleval_nb\.(\w+)$", pages, re.MULTILINE))
    by_module = {"errors": set(te.errors.__all__)}
    covered = listed | {n for m, names in by_module.items() if m in listed for n in names}
    missing = [n for n in te.__all__ if n not in covered and n != "__version__"]
    assert not missing, f"public names on no page of docs/api/: {missing}"
    unknown = sorted(n for n in listed if not hasattr(te, n))  # a name, or a subpackage
    assert not unknown, f"docs/api/ names what tooleval_nb does not export: {unknown}"
    undocumented = [
        n
        for n in te.__all__
        if (inspect.isfunction(getattr(te, n)) or inspect.isclass(getattr(te, n)))
        and not (getattr(te, n).__doc__ or "").strip()
    ]
    assert not undocumented, f"public names without a docstring: {undocumented}"


def test_docstring_roles_become_inline_code() -> None:
    """The docs site's griffe extension (scripts/griffe_roles.py) writes reST roles as code."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from griffe_roles import plain_roles
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    text = (
        "Returns the :class:`Job`; see :func:`~tooleval_nb.runner.run_eval`, "
        ":meth:`.Run.results_df`, :data:`te.DEFAULT_MODEL` and :ref:`the guide <guide>`."
    )
    assert plain_roles(text) == (
        "Returns the `Job`; see `run_eval`, `Run.results_df`, `te.DEFAULT_MODEL` and `the guide`."
    )
    assert plain_roles("no role, ``literal``") == "no role, ``literal``"
    assert plain_roles("derives from it::\n\n    tree\n::\n") == "derives from it:\n\n    tree\n\n"
