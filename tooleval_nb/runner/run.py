"""A finished (or partial) run read from the store: its results and summary as DataFrames.

``results_df()`` has one row per case × model × sample with the columns of
:data:`tooleval_nb.runner.record.RESULT_COLUMNS`; ``summary_df()`` one row per model with
:data:`tooleval_nb.runner.record.SUMMARY_COLUMNS` (both documented in :mod:`.record`);
``calls_df()`` one row per tool call made and ``arguments_df()`` one row per argument
(documented in :mod:`.calls`).
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from ..display import mimebundle
from ..scoring.summary import summarize_scores
from .calls import arguments_frame, call_rows, calls_frame
from .record import RESULT_COLUMNS, RESULT_FIELDS, SUMMARY_COLUMNS
from .results import ResultRow, RunRow
from .store import Store

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Run"]

_BOOL_COLUMNS = ("passed", "fallback", "cached")

#: the stored fields that are not result columns (order keys, time, detail)
_NOT_COLUMNS = tuple(f for f in RESULT_FIELDS if f not in RESULT_COLUMNS)


def _mode(target: dict[str, Any]) -> str:
    """A stored target's mode (``Target.to_config`` keeps it in ``spec``)."""
    spec = target.get("spec") or {}
    return str(target.get("mode") or spec.get("mode") or "native")


class Run:
    """One run of a suite against one or more models.

    Attributes:
        id: the run id; ``job_id`` the job that ran (or runs) it.
        status: queued | running | completed | failed | cancelled | interrupted (when loaded).
        suite_name: the suite's name.
        suite_fingerprint: the suite's content hash (two runs of one suite share it).
        targets: the models, each ``{"label", "spec"}``.
        settings: the run's ``RunSettings`` as a dict.
        created_at: when the run started (UTC).
        finished_at: when it finished (UTC; None while it runs).
        n_total: the case x model x sample cells the run evaluates.
        drafts_skipped: draft cases the run did not evaluate.
    """

    def __init__(self, store: Store, row: RunRow, results: list[ResultRow] | None = None) -> None:
        self.store = store
        self.id: str = row.id
        self.job_id: str | None = row.job_id
        self.name: str | None = row.name
        self.status: str = row.status
        self.suite_name: str = row.suite_name or ""
        self.suite_fingerprint: str = row.suite_fingerprint or ""
        self.targets: list[dict[str, Any]] = row.targets
        self.settings: dict[str, Any] = row.settings
        self.n_total: int = row.n_total
        self.created_at: float = row.created_at
        self.finished_at: float | None = row.finished_at
        #: draft cases the run skipped (``run_eval(include_drafts=True)`` runs them)
        self.drafts_skipped: int = row.drafts_skipped or 0
        #: the result rows (without ``detail``); None until first read (see :meth:`load`)
        self._loaded = results
        self._calls: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None

    @classmethod
    def load(cls, store: Store, run_id: str, *, lazy: bool = False) -> Run:
        """Read a run and its results from ``store`` (StoreError when the id is unknown); each
        result's detail is read when :meth:`detail` asks for it.

        ``lazy``: read the results when first used instead of now, for a run that no longer
        changes (a completed job's: the job returns without reading back the rows it has just
        written, which a caller that only wanted the run's id or summary never uses)."""
        row = store.run_row(run_id)
        return cls(store, row, None if lazy else store.results(run_id, detail=False))

    @property
    def _rows(self) -> list[ResultRow]:
        if self._loaded is None:
            self._loaded = self.store.results(self.id, detail=False)
        return self._loaded

    def _count(self) -> int:
        """How many results (counted in the store while the rows are not read: a repr, which
        asyncio may take of a job's task, reads no rows)."""
        return len(self._loaded) if self._loaded is not None else self.store.count_results(self.id)

    def refresh(self) -> Run:
        """A fresh copy read from the store (for a run still going)."""
        return Run.load(self.store, self.id)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def models(self) -> list[str]:
        return [t["label"] for t in self.targets]

    @property
    def complete(self) -> bool:
        """Every planned case × model × sample is stored."""
        return len(self._rows) >= self.n_total

    # -- frames ------------------------------------------------------------------------------
    def results_df(self) -> pd.DataFrame:
        """One row per case × model × sample (columns: ``record.RESULT_COLUMNS``).

        ``tags`` is a list; ``passed``, ``fallback`` and ``cached`` are booleans; ``bfcl_pass``
        a nullable boolean; ``expected`` and ``tool_calls`` JSON text.
        """
        import pandas as pd

        df = pd.DataFrame.from_records(
            self._rows, columns=list(RESULT_FIELDS), exclude=list(_NOT_COLUMNS)
        )
        df["tags"] = [json.loads(t) if isinstance(t, str) else [] for t in df["tags"]]
        for name in _BOOL_COLUMNS:
            df[name] = df[name].fillna(0).astype(bool)
        df["bfcl_pass"] = df["bfcl_pass"].astype("boolean")
        for name in (
            "tool_score",
            "param_score",
            "overall",
            "completion",
            "efficiency",
            "redundancy_penalty",
            "detour_penalty",
            "latency_ms",
            "cost",
        ):
            df[name] = df[name].astype("float64")
        for name in ("prompt_tokens", "completion_tokens", "seed"):
            df[name] = df[name].astype("Int64")
        return df

    def calls_df(self) -> pd.DataFrame:
        """One row per tool call the models made: case, model, turn, position, tool name, the
        arguments (a dict, and each as its own ``arg_<name>`` column) and whether it matched
        the expected call it was paired with (columns: :data:`.calls.CALL_COLUMNS`).

        Every call to ``get_weather`` that did not match::

            calls = run.calls_df()
            calls[(calls.tool_name == "get_weather") & ~calls.matched]
        """
        return calls_frame(self._call_rows()[0])

    def arguments_df(self) -> pd.DataFrame:
        """The tidy argument table: one row per argument of every call made, with the expected
        values and whether it was right (columns: :data:`.calls.ARGUMENT_COLUMNS`).

        Every call to ``get_weather`` with a wrong ``city``::

            args = run.arguments_df()
            args[(args.tool_name == "get_weather") & (args.argument == "city")
                 & (args.correct == False)]
        """
        return arguments_frame(self._call_rows()[1])

    def _call_rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        if self._calls is None:  # the details are large: read once, only when asked
            self._calls = call_rows(r._asdict() for r in self.store.results(self.id, detail=True))
        return self._calls

    def summary_df(self) -> pd.DataFrame:
        """One row per model (columns: ``record.SUMMARY_COLUMNS``; see :mod:`.record`): the score
        columns are :func:`tooleval_nb.scoring.summarize_scores`' (errored cases count, with
        score 0), then latency, tokens, cost and fallbacks."""
        import pandas as pd

        df = self.results_df()
        rows = []
        for target in self.targets:
            label = target["label"]
            part = df[df["model"] == label]
            scores = summarize_scores(
                part.assign(model=label)[
                    ["model", "passed", "error", "tool_score", "param_score", "overall"]
                ]
            )
            score = (
                scores.iloc[0].to_dict()
                if len(scores)
                else {
                    "n_cases": 0,
                    "n_passed": 0,
                    "n_failed": 0,
                    "n_errored": 0,
                    "pass_rate": float("nan"),
                    "tool_score": float("nan"),
                    "param_score": float("nan"),
                    "overall": float("nan"),
                }
            )
            latency = part["latency_ms"].dropna()
            cost = part["cost"].dropna()
            rows.append(
                {
                    **score,
                    "run_id": self.id,
                    "model": label,
                    "mode": _mode(target),
                    "latency_p50_ms": latency.quantile(0.5) if len(latency) else float("nan"),
                    "latency_p95_ms": latency.quantile(0.95) if len(latency) else float("nan"),
                    "prompt_tokens": int(part["prompt_tokens"].fillna(0).sum()),
                    "completion_tokens": int(part["completion_tokens"].fillna(0).sum()),
                    "cost": float(cost.sum()) if len(cost) else None,
                    "fallback_count": int(part["fallback"].sum()),
                }
            )
        return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))

    def detail(self, case_id: str, model: str | None = None, sample: int = 0) -> dict[str, Any]:
        """Everything stored for one case: the row, the full score, every hop, raw replies."""
        label = model or self.models[0]
        for row in self._rows:
            if row.case_id == case_id and row.model == label and row.sample == sample:
                stored = row._asdict()
                out = {k: stored[k] for k in RESULT_COLUMNS}
                detail = row.detail
                if detail is None:
                    detail = self.store.result_detail(self.id, label, case_id, sample)
                out.update(json.loads(detail or "{}"))
                return out
        raise KeyError(
            f"no result for case {case_id!r}, model {label!r}, sample {sample} in run {self.id}"
        )

    # -- display -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (
            f"Run(id={self.id!r}, suite={self.suite_name!r}, models={self.models!r}, "
            f"status={self.status!r}, results={self._count()}/{self.n_total})"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return mimebundle(repr(self), self._html)

    def _html(self) -> str:
        summary = self.summary_df()
        body = summary.drop(columns=["run_id"]).to_html(index=False, float_format="%.3f")
        head = (
            f"<b>Run {html.escape(self.id)}</b> — suite "
            f"<i>{html.escape(self.suite_name)}</i>, {len(self._rows)}/{self.n_total} "
            f"results, status {html.escape(self.status)}"
        )
        return head + body
