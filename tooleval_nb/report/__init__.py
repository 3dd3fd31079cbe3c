"""Reports: an executed notebook plus a standalone HTML page, from stored runs or fresh ones.

:func:`build_report` validates everything first (parameters, suites or run ids, the output
folder), gets the runs (read from the store by id, the newest of each suite, or made here by
running the suites), executes the report notebook on them with papermill (the notebook shipped in
``tooleval_nb/templates/report.ipynb``; ``notebooks/report.ipynb`` is the same file; it only reads
the store), exports it with nbconvert, inputs hidden, to one HTML file whose charts draw without a
kernel or a network, and adds it to the folder's ``index.html``. The console script
``tooleval-nb report`` is a thin layer over it.

Modules: :mod:`.params` (the parameters), :mod:`.suites` (loading and running suites),
:mod:`.runs` (stored runs, headline figures), :mod:`.tables` (styled tables, configuration),
:mod:`.experiment` (the experiment section), :mod:`.build` (notebook and HTML), :mod:`.site`
(the folder's index), :mod:`.execute` (papermill on a kernel over local sockets),
:mod:`.notebooks` (any notebook of ``notebooks/`` rendered as a report with its parameters).
"""

from __future__ import annotations

from .build import TEMPLATE, ReportFiles, build_report, export_html, render_report
from .execute import LocalKernelManager, execute_notebook
from .experiment import TIMELINE_REPORT_COLUMNS, experiment_summary, open_experiment, timeline_table
from .markdown import markdown_code, markdown_text
from .notebooks import (
    NotebookParameter,
    coerce_values,
    find_notebook,
    notebook_parameters,
    render_notebook,
)
from .params import (
    DEFAULT_MODEL,
    DEFAULT_TITLE,
    ENV_PARAMS,
    PARAMETERS,
    Mode,
    ReportParams,
    params_from,
    validate_params,
)
from .runs import (
    Headline,
    ModelHeadline,
    SuiteRuns,
    UnknownRunError,
    find_runs,
    headline,
    latest_run_ids,
    load_runs,
)
from .site import ReportEntry, SiteManifest, read_manifest
from .suites import (
    bundled_suites_dir,
    load_report_suites,
    run_options,
    run_suites,
    run_suites_async,
    targets,
)
from .tables import VERSIONED, configuration, environment_info, styled
from .tau2 import tau2_frames

__all__ = [
    "markdown_code",
    "markdown_text",
    "ReportParams",
    "ReportFiles",
    "SuiteRuns",
    "validate_params",
    "params_from",
    "bundled_suites_dir",
    "load_report_suites",
    "run_suites",
    "run_suites_async",
    "run_options",
    "targets",
    "load_runs",
    "find_runs",
    "latest_run_ids",
    "headline",
    "Headline",
    "ModelHeadline",
    "UnknownRunError",
    "styled",
    "tau2_frames",
    "environment_info",
    "configuration",
    "build_report",
    "render_report",
    "export_html",
    "open_experiment",
    "experiment_summary",
    "timeline_table",
    "read_manifest",
    "ReportEntry",
    "SiteManifest",
    "TEMPLATE",
    "DEFAULT_TITLE",
    "DEFAULT_MODEL",
    "ENV_PARAMS",
    "PARAMETERS",
    "Mode",
    "VERSIONED",
    "TIMELINE_REPORT_COLUMNS",
    "render_notebook",
    "find_notebook",
    "notebook_parameters",
    "coerce_values",
    "NotebookParameter",
    "execute_notebook",
    "LocalKernelManager",
]
