"""The runs a report shows: read from the store by id (no model is called), the newest run of
each suite, their combined frames, and their headline figures.

An unknown id is an error that names the store and lists the nearest ids in it.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import StoreError
from ..runner import load_run
from ..runner.store import resolve_store
from ..scoring.summary import summarize_scores

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..runner import Run, Store
    from ..suite import Suite

__all__ = [
    "UnknownRunError",
    "SuiteRuns",
    "ModelHeadline",
    "Headline",
    "load_runs",
    "find_runs",
    "latest_run_ids",
    "headline",
]


class UnknownRunError(StoreError):
    """A run id (or a suite for ``--latest``) that is not in the store: a usage error."""


@dataclass
class SuiteRuns:
    """The runs of a report, one per suite, and their combined frames (with a ``suite`` column;
    ``case_id`` is prefixed ``suite/`` when several suites are shown, so ids never collide).

    ``suites`` holds the :class:`Suite` objects when the runs were made here; for runs read
    from the store it is empty and every figure comes from the runs themselves.
    """

    suites: list[Any]
    runs: list[Any]
    elapsed_s: float = 0.0
    results: pd.DataFrame = field(default=None)  # type: ignore[assignment]
    summary: pd.DataFrame = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        import pandas as pd

        several = len({r.suite_name for r in self.runs}) > 1
        results, summaries = [], []
        for run in self.runs:
            df = run.results_df()
            df.insert(0, "suite", run.suite_name)
            if several:
                df["case_id"] = [f"{run.suite_name}/{c}" for c in df["case_id"]]
            results.append(df)
            summary = run.summary_df()
            summary.insert(0, "suite", run.suite_name)
            summaries.append(summary)
        self.results = pd.concat(results, ignore_index=True) if results else pd.DataFrame()
        self.summary = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()

    @property
    def run_ids(self) -> list[str]:
        return [r.id for r in self.runs]

    @property
    def suite_names(self) -> list[str]:
        return list(dict.fromkeys(r.suite_name for r in self.runs))

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(m for r in self.runs for m in r.models))

    def calls(self) -> pd.DataFrame:
        """Every call made, one row each (:meth:`Run.calls_df` of every run, with ``suite``)."""
        import pandas as pd

        frames = []
        for run in self.runs:
            df = run.calls_df()
            df.insert(0, "suite", run.suite_name)
            frames.append(df)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _nearest(wanted: str, ids: Sequence[str], n: int = 5) -> list[str]:
    close = difflib.get_close_matches(wanted, ids, n=n, cutoff=0.4)
    return close or [i for i in ids if i.startswith(wanted[:8])][:n]


def find_runs(run_ids: Sequence[str], store: Store | str | None = None) -> list[Run]:
    """The runs ``run_ids`` (job ids work too) from ``store``, in order.

    Raises:
        UnknownRunError: an id is not in the store; the message names the store and lists the
            nearest ids in it (or says it is empty).
    """
    the_store = resolve_store(store)
    known = {r.id: r for r in the_store.runs()}
    known_jobs = {r.job_id: r.id for r in known.values() if r.job_id}
    out, missing = [], []
    for wanted in run_ids:
        run_id = known_jobs.get(wanted, wanted)
        if run_id not in known:
            missing.append(wanted)
            continue
        out.append(load_run(run_id, the_store))
    if missing:
        newest = list(known)  # newest first
        lines = []
        for wanted in missing:
            near = _nearest(wanted, newest + list(known_jobs))
            lines.append(f"{wanted!r} (nearest: {', '.join(near)})" if near else f"{wanted!r}")
        have = f"{len(known)} run(s), newest {', '.join(newest[:3])}" if known else "no runs at all"
        raise UnknownRunError(
            f"no run {'; '.join(lines)} in the run store {the_store.path} "
            f"({have}); `tooleval-nb history --store {the_store.path}` lists them, "
            "or pass --store for another store"
        )
    return out


def latest_run_ids(suites: Sequence[Suite | str], store: Store | str | None = None) -> list[str]:
    """The newest run of each suite (by name), in the order given.

    Raises:
        UnknownRunError: a suite has no run in the store (the message names the store and the
            suites that do).
    """
    the_store = resolve_store(store)
    newest: dict[str, str] = {}
    for row in the_store.runs():  # newest first
        newest.setdefault(row.suite_name or "", row.id)
    names = [s if isinstance(s, str) else s.name for s in suites]
    missing = [n for n in names if n not in newest]
    if missing:
        have = ", ".join(repr(n) for n in newest) or "none"
        raise UnknownRunError(
            f"--latest: no run of suite(s) {', '.join(map(repr, missing))} in the "
            f"run store {the_store.path} (suites with runs: {have}); run them "
            "first (tooleval-nb run) or check --store"
        )
    return [newest[n] for n in dict.fromkeys(names)]


def load_runs(run_ids: Sequence[str], store: Store | str | None = None) -> SuiteRuns:
    """The stored runs ``run_ids`` as a :class:`SuiteRuns` (no model is called)."""
    return SuiteRuns(suites=[], runs=find_runs(run_ids, store))


class ModelHeadline(BaseModel):
    """One model's figures over every result of a report."""

    model: str
    n_results: int
    n_passed: int
    n_errored: int
    pass_rate: float | None
    overall: float | None


class Headline(BaseModel):
    """A report's headline figures: per model, and over every result."""

    suites: list[str]
    runs: list[str]
    models: list[ModelHeadline]
    n_results: int
    n_errored: int
    overall: float | None
    pass_rate: float | None


def headline(runs: SuiteRuns) -> Headline:
    """The headline figures of ``runs`` (over every case × sample of every suite): per model,
    :func:`tooleval_nb.scoring.summarize_scores`' figures (errored cases count, with score 0)."""
    df = runs.results
    columns = ["model", "passed", "error", "tool_score", "param_score", "overall"]
    table = summarize_scores(df[columns]) if len(df) else None
    by_model = {} if table is None else {row["model"]: row for row in table.to_dict("records")}
    models = []
    for model in runs.models:
        row = by_model.get(model)
        models.append(
            ModelHeadline(
                model=model,
                n_results=int(row["n_cases"]) if row else 0,
                n_passed=int(row["n_passed"]) if row else 0,
                n_errored=int(row["n_errored"]) if row else 0,
                pass_rate=float(row["pass_rate"]) if row else None,
                overall=float(row["overall"]) if row else None,
            )
        )
    overall = summarize_scores(df[columns].assign(model="*")).iloc[0] if len(df) else None
    return Headline(
        suites=runs.suite_names,
        runs=runs.run_ids,
        models=models,
        n_results=len(df),
        n_errored=int(overall["n_errored"]) if overall is not None else 0,
        overall=float(overall["overall"]) if overall is not None else None,
        pass_rate=float(overall["pass_rate"]) if overall is not None else None,
    )
