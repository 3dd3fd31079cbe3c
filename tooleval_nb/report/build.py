"""Writing a report: the runs (stored, or made here first), the report notebook executed on them
with papermill (it reads the runs from the store and calls no model), one standalone HTML page
exported from it, and the folder's index updated.

Every check happens before any work: the parameters, the suites or the run ids, the experiment,
and that the folder can be written.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import JobError
from ..runner.store import resolve_store
from .execute import execute_notebook
from .experiment import open_experiment
from .params import ENV_PARAMS, ReportParams, validate_params
from .runs import Headline, SuiteRuns, headline, latest_run_ids, load_runs
from .site import INDEX, add_report, check_writable
from .suites import load_report_suites, run_suites

__all__ = ["ReportFiles", "build_report", "export_html", "render_report", "TEMPLATE"]

#: The report notebook shipped inside the package.
TEMPLATE = Path(__file__).resolve().parent.parent / "templates" / "report.ipynb"


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`build_report` wrote, and the figures of the runs it shows."""

    notebook: Path
    html: Path
    index: Path | None = None
    runs: tuple[str, ...] = ()
    headline: Headline | None = None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        text = f"report: {self.html}\nnotebook: {self.notebook}"
        page = f"report: <a href='{self.html}'>{self.html}</a><br>notebook: {self.notebook}"
        if self.index is not None:
            text += f"\nindex: {self.index}"
            page += f"<br>index: <a href='{self.index}'>{self.index}</a>"
        return {"text/plain": text, "text/html": page}


_EXTERNAL_SCRIPT = re.compile(r"<script[^>]*\bsrc=\"https?://[^\"]*\"[^>]*>\s*</script>\s*")


def export_html(notebook: str | Path, html: str | Path, title: str | None = None) -> Path:
    """Write ``notebook`` as one standalone HTML file with the code cells' inputs hidden.

    The page loads nothing from the network: the charts' Vega bundle is inline (see
    :mod:`tooleval_nb.charts.embed`), and the template's CDN scripts (require.js, MathJax; a
    report uses neither) are left out.
    """
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(notebook), as_version=4)
    exporter = HTMLExporter(
        template_name="lab",
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    if title:
        nb.metadata["title"] = title
    body, _ = exporter.from_notebook_node(nb)
    out = Path(html)
    out.write_text(_EXTERNAL_SCRIPT.sub("", body), encoding="utf-8")
    return out


@contextlib.contextmanager
def _without_env(name: str) -> Iterator[None]:
    """The kernel papermill starts inherits the environment: keep ``name`` out of it."""
    saved = os.environ.pop(name, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[name] = saved


def render_report(
    params: ReportParams,
    out_dir: Path,
    *,
    template: str | Path | None = None,
    timeout: float | None = None,
    kernel_name: str = "python3",
    progress: Any = "none",
) -> tuple[Path, Path]:
    """Execute the report notebook on the stored runs ``params.runs`` into ``out_dir`` and
    export it; returns the notebook and the HTML page. ``progress`` other than ``"none"``
    shows the cells done on stderr.

    Raises:
        JobError: a cell failed (the partly executed notebook and its HTML are kept).
    """
    import papermill

    nb_path, html_path = out_dir / "report.ipynb", out_dir / "report.html"
    values = params.model_dump(mode="json")
    values["suites"] = [str(Path(s).resolve()) for s in params.suites]
    try:
        with _without_env(ENV_PARAMS):
            execute_notebook(
                template or TEMPLATE,
                nb_path,
                values,
                cwd=out_dir,
                kernel_name=kernel_name,
                timeout=timeout,
                progress=progress,
            )
    except papermill.PapermillExecutionError as exc:
        export_html(nb_path, html_path, params.title)
        raise JobError(
            f"the report notebook failed in cell {exc.exec_count} with {exc.ename}: "
            f"{exc.evalue}; the partly executed notebook is {nb_path} (open it to see the "
            "traceback)"
        ) from None
    export_html(nb_path, html_path, params.title)
    return nb_path, html_path


def build_report(
    output: str | Path,
    *,
    runs: Sequence[str] | None = None,
    latest: bool = False,
    template: str | Path | None = None,
    timeout: float | None = None,
    kernel_name: str = "python3",
    progress: Any = "none",
    on_runs: Any = None,
    **params: Any,
) -> ReportFiles:
    """Write a report of stored runs, or of the suites run here first, to ``output``.

    With ``runs`` (run or job ids), or ``latest=True`` (the newest stored run of each suite of
    ``suites``), the report is rendered from the store and no model is called. Otherwise every
    suite runs first, in this process, through ``run_eval`` (``progress`` is its display), and
    the report is rendered from the runs just stored. Either way the notebook itself only reads
    the store.

    Args:
        output: Folder to write ``report.ipynb``, ``report.html`` and ``index.html`` into
            (created). Every report written there is kept under ``reports/``.
        runs: Stored run ids to report on.
        latest: Report on the newest stored run of each suite instead of running them.
        template: Another report notebook (it needs a cell tagged ``parameters``).
        timeout: Per-cell time limit in seconds (None: no limit).
        kernel_name: The Jupyter kernel to execute with.
        progress: The runner's progress display while the suites run, then the cells done
            while the notebook renders (``"text"``: on stderr; ``"none"``).
        on_runs: Called with the :class:`SuiteRuns` once they are known, before rendering.
        **params: :class:`ReportParams` fields (suites, models, temperature, ...).

    Raises:
        ToolEvalError / SuiteError / UnknownRunError: invalid parameters, suites, run ids or
            output folder (before anything runs).
        JobError: a report cell failed (the message names the cell; the partly executed
            notebook and its HTML are kept).
    """
    checked = validate_params(runs=list(runs) if runs else None, **params)
    out_dir = check_writable(output)
    if checked.experiment:
        open_experiment(checked)  # an unknown experiment fails before any work
    if checked.runs:
        shown = load_runs(checked.runs, checked.store)
    elif latest:
        shown = load_runs(latest_run_ids(load_report_suites(checked), checked.store), checked.store)
    else:
        made = run_suites(checked, load_report_suites(checked), progress=progress)
        shown = SuiteRuns(suites=made.suites, runs=made.runs, elapsed_s=made.elapsed_s)
    if on_runs is not None:
        on_runs(shown)
    store = _store_path(checked.store)
    rendered = checked.model_copy(update={"runs": shown.run_ids, "store": store})
    nb_path, html_path = render_report(
        rendered,
        out_dir,
        template=template,
        timeout=timeout,
        kernel_name=kernel_name,
        progress=progress,
    )
    figures = headline(shown)
    add_report(out_dir, html_path, nb_path, checked.title, figures)
    return ReportFiles(
        notebook=nb_path,
        html=html_path,
        index=out_dir / INDEX,
        runs=tuple(shown.run_ids),
        headline=figures,
    )


def _store_path(store: str | None) -> str:
    return str(resolve_store(store).path)
