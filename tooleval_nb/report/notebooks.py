"""Any notebook as a report: ``tooleval-nb report --notebook NAME -p KEY VALUE ...``.

Every notebook of ``notebooks/`` has a cell tagged ``parameters`` (papermill's convention). Its
names are the notebook's parameters: :func:`notebook_parameters` reads them, :func:`coerce_values`
turns command-line text into values of the default's kind, and :func:`render_notebook` executes
the notebook with them (:mod:`.execute`, the report template's way), exports it to one standalone
HTML page that draws its charts offline (:func:`~.build.export_html`) and lists it in the
folder's index with the headline figures of the runs it stored.
"""

from __future__ import annotations

import ast
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..credentials import credential_paths, refusal, url_credentials
from ..errors import JobError, ToolEvalError
from ..runner.store import resolve_store
from .build import ReportFiles, export_html
from .execute import execute_notebook
from .runs import Headline, headline, load_runs
from .site import INDEX, add_report, check_writable

__all__ = [
    "NotebookParameter",
    "find_notebook",
    "notebook_parameters",
    "coerce_values",
    "render_notebook",
    "notebook_dirs",
]


class NotebookParameter(BaseModel):
    """One name of a notebook's ``parameters`` cell."""

    name: str
    #: the default as written in the cell (Python source)
    default: str
    #: papermill's inferred type name (``str``, ``list``, ``None`` ...)
    type_name: str = "None"
    help: str = ""


def notebook_dirs() -> list[Path]:
    """Where a notebook NAME is looked for: ``./notebooks``, ``.``, then the source tree's
    ``notebooks/`` (a checkout)."""
    here = Path.cwd()
    source = Path(__file__).resolve().parents[2] / "notebooks"
    return list(dict.fromkeys([here / "notebooks", here, source]))


def find_notebook(name: str | os.PathLike[str], where: Sequence[Path] | None = None) -> Path:
    """The notebook ``name``: a path, or a name (``02_compare_models``, with or without
    ``.ipynb``) in :func:`notebook_dirs`.

    Raises:
        ToolEvalError: no such notebook (the message lists those found).
    """
    path = Path(name)
    if path.suffix == ".ipynb" and path.is_file():
        return path.resolve()
    file = path.name if path.suffix == ".ipynb" else f"{path.name}.ipynb"
    dirs = list(where) if where is not None else notebook_dirs()
    for folder in dirs:
        if (folder / file).is_file():
            return (folder / file).resolve()
    known = sorted({p.stem for d in dirs if d.is_dir() for p in d.glob("*.ipynb")})
    raise ToolEvalError(
        f"no notebook {str(name)!r} in {', '.join(str(d) for d in dirs)}; give "
        "a path to an .ipynb file or one of: " + (", ".join(known) or "(none)")
    )


def notebook_parameters(notebook: str | os.PathLike[str]) -> dict[str, NotebookParameter]:
    """The names of ``notebook``'s cell tagged ``parameters``, in order.

    Raises:
        ToolEvalError: the notebook has no such cell.
    """
    import papermill

    found = papermill.inspect_notebook(str(notebook))
    if not found:
        raise ToolEvalError(
            f"{notebook}: no cell tagged 'parameters' (papermill injects values "
            "after it): tag the cell that sets the notebook's parameters"
        )
    return {
        name: NotebookParameter(
            name=name,
            default=str(p.get("default")),
            type_name=str(p.get("inferred_type_name")),
            help=str(p.get("help") or ""),
        )
        for name, p in found.items()
    }


def _literal(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def coerce_values(notebook: str | os.PathLike[str], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` checked against ``notebook``'s parameters; text (from the command line) read
    as JSON or a Python literal where it parses, else kept as text, and a text given for a list
    parameter split on commas.

    Every value becomes a plain JSON type (a tuple a list; a set, bytes or a complex number is
    refused) before papermill writes it into the notebook's code, so no value can be anything
    but data there. Values are checked for credentials as ``--param`` is: a key (``api_key``,
    an ``Authorization`` header, a password in a URL) would be written into the executed
    notebook and its report, and is refused, naming the safe way.

    Raises:
        ToolEvalError: a name is not one of the notebook's parameters (all are listed), a value
            is not data, or a value holds a credential.
    """
    params = notebook_parameters(notebook)
    unknown = [k for k in values if k not in params]
    if unknown:
        raise ToolEvalError(
            f"{Path(notebook).name} has no parameter {', '.join(map(repr, unknown))}; its "
            f"parameters are: {', '.join(f'{p.name} (default {p.default})' for p in params.values())}"
        )
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, str):
            value = _literal(value)
            default = _literal(params[key].default)
            if isinstance(default, list) and isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
        out[key] = plain_value(value, f"{Path(notebook).name}: parameter {key!r}")
    refuse_credentials(out, Path(notebook).name)
    return out


def plain_value(value: Any, where: str) -> Any:
    """``value`` as plain JSON data (str, int, float, bool, None, lists, string-keyed dicts):
    tuples become lists; anything else is a :class:`ToolEvalError` naming ``where``."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain_value(v, where) for v in value]
    if isinstance(value, Mapping):
        bad = [k for k in value if not isinstance(k, str)]
        if bad:
            raise ToolEvalError(
                f"{where}: the key {bad[0]!r} is not text; a parameter's value must be JSON "
                "data (give an object with string keys)"
            )
        return {k: plain_value(v, where) for k, v in value.items()}
    raise ToolEvalError(
        f"{where}: a {type(value).__name__} is not a parameter value; give JSON data (text, "
        "a number, true/false, null, a list or an object)"
    )


def refuse_credentials(values: Mapping[str, Any], notebook: str) -> None:
    """Refuse parameter values holding a credential (a credential's key anywhere in them, or a
    user name or password in a URL): they would be written into the executed notebook."""
    paths = credential_paths(dict(values))
    paths += [f"[{k!r}] (a URL holding {', '.join(found)})" for k, found in _url_problems(values)]
    if paths:
        models = [m for m in _strings(values.get("models")) if "/" in m]
        raise ToolEvalError(f"{notebook}: " + refusal(paths, "report parameters", models, cli=True))


def _url_problems(values: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    out = []
    for key, value in values.items():
        found = [f for text in _strings(value) for f in url_credentials(text)]
        if found:
            out.append((key, list(dict.fromkeys(found))))
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _title(notebook: Path) -> str:
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def _stored_since(store: Any, since: float) -> Headline:
    """The headline of the runs stored in ``store`` from ``since`` on (none: empty)."""
    resolved = resolve_store(store)
    ids = [r.id for r in resolved.runs(None) if (r.created_at or 0) >= since]
    if ids:
        return headline(load_runs(ids, resolved))
    return Headline(
        suites=[], runs=[], models=[], n_results=0, n_errored=0, overall=None, pass_rate=None
    )


def render_notebook(
    notebook: str | os.PathLike[str],
    output: str | os.PathLike[str],
    parameters: Mapping[str, Any] | None = None,
    *,
    title: str | None = None,
    timeout: float | None = None,
    kernel_name: str = "python3",
    progress: Any = "none",
) -> ReportFiles:
    """Execute a notebook with ``parameters`` into ``output``, as the report template is: its
    executed copy ``NAME.ipynb``, ``NAME.html`` (inputs hidden, charts drawn offline), and the
    folder's ``index.html``. The notebook runs in its own folder (its relative paths hold).

    Raises:
        ToolEvalError: no such notebook, a parameter it does not have, or ``output`` cannot be
            written (before anything runs).
        JobError: a cell failed (the partly executed notebook and its HTML are kept).
    """
    import papermill

    path = find_notebook(notebook)
    values = coerce_values(path, parameters or {})
    out_dir = check_writable(output)
    nb_path, html_path = out_dir / f"{path.stem}.ipynb", out_dir / f"{path.stem}.html"
    shown = title or _title(path)
    started = time.time()
    try:
        execute_notebook(
            path,
            nb_path,
            values,
            cwd=path.parent,
            kernel_name=kernel_name,
            timeout=timeout,
            progress=progress,
            desc=f"rendering {path.stem}",
        )
    except papermill.PapermillExecutionError as exc:
        export_html(nb_path, html_path, shown)
        raise JobError(
            f"{path.name} failed in cell {exc.exec_count} with {exc.ename}: {exc.evalue}; the "
            f"partly executed notebook is {nb_path} (open it to see the traceback)"
        ) from None
    export_html(nb_path, html_path, shown)
    figures = _stored_since(values.get("store"), started)
    add_report(out_dir, html_path, nb_path, shown, figures)
    return ReportFiles(
        notebook=nb_path,
        html=html_path,
        index=out_dir / INDEX,
        runs=tuple(figures.runs),
        headline=figures,
    )
