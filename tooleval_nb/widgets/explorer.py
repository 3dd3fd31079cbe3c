"""ResultsExplorer: browse a run's results case by case (thin ipywidgets over :mod:`.exploring`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as W

from ..charts.frame import split_tags
from .exploring import ALL, OUTCOMES, detail_html, filter_results, row_label

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ResultsExplorer"]

_FINAL = ("job_completed", "job_failed", "job_cancelled")


class ResultsExplorer(W.VBox):
    """Filter a run's results by model, tag and outcome; pick a result to see its prompt, the
    expected and actual calls side by side (differing parameters highlighted), the raw output,
    parse problems, latency and tokens.

    Args:
        run: A :class:`~tooleval_nb.Run` (its stored details give raw output and parse problems).
        results: A results frame instead of (or besides) a run, e.g. a filtered
            ``run.results_df()``.
    """

    def __init__(self, run: Any = None, results: pd.DataFrame | None = None, **kwargs: Any) -> None:
        self.run = run
        self.results: pd.DataFrame | None = None
        self.model_filter = W.Dropdown(description="model", options=[ALL], value=ALL)
        self.tag_filter = W.Dropdown(description="tag", options=[ALL], value=ALL)
        self.outcome_filter = W.ToggleButtons(
            description="outcome", options=list(OUTCOMES), value="all"
        )
        self.case_select = W.Select(
            description="results", options=[], rows=12, layout=W.Layout(width="95%")
        )
        self.count = W.HTML()
        self.detail = W.HTML()
        for widget in (self.model_filter, self.tag_filter, self.outcome_filter):
            widget.observe(lambda _: self.refresh(), "value")
        self.case_select.observe(self._on_select, "value")
        self._unsubscribe: Any = None
        super().__init__(
            [
                W.HBox([self.model_filter, self.tag_filter]),
                self.outcome_filter,
                self.count,
                self.case_select,
                self.detail,
            ],
            **kwargs,
        )
        if results is not None or run is not None:
            self.set_results(results if results is not None else run.results_df(), run)

    def set_results(self, results: pd.DataFrame, run: Any = None) -> None:
        """Show ``results`` (keeping the filters that still apply)."""
        self.results = results.reset_index(drop=True)
        if run is not None:
            self.run = run
        labels = filter_results(self.results)["label"].drop_duplicates().tolist()
        tags = sorted({t for v in self.results.get("tags", []) for t in split_tags(v)})
        keep_model = self.model_filter.value if self.model_filter.value in labels else ALL
        keep_tag = self.tag_filter.value if self.tag_filter.value in tags else ALL
        with self.hold_trait_notifications():
            self.model_filter.options = [ALL, *labels]
            self.tag_filter.options = [ALL, *tags]
            self.model_filter.value, self.tag_filter.value = keep_model, keep_tag
        self.refresh()

    def filtered(self) -> pd.DataFrame:
        """The results the filters keep (with ``label`` and ``score`` columns)."""
        if self.results is None:
            import pandas as pd

            return pd.DataFrame()
        return filter_results(
            self.results, self.model_filter.value, self.tag_filter.value, self.outcome_filter.value
        )

    def refresh(self) -> None:
        """Re-apply the filters to the list."""
        df = self.filtered()
        total = 0 if self.results is None else len(self.results)
        self.count.value = f"{len(df)} of {total} results"
        previous = self.case_select.value
        options = [
            (row_label(row), int(idx))
            for idx, row in zip(df.index, df.to_dict("records"), strict=True)
        ]
        self.case_select.options = options
        values = [v for _, v in options]
        if previous in values:
            self.case_select.value = previous
        elif values:
            self.case_select.value = values[0]
        else:
            self.detail.value = "<i>no result matches the filters</i>"

    def show(self, index: int) -> str:
        """Show the result at row ``index`` of the results frame; returns its HTML."""
        assert self.results is not None
        row = filter_results(self.results.loc[[index]]).iloc[0].to_dict()
        detail = None
        if self.run is not None and hasattr(self.run, "detail"):
            try:
                original = self.results.loc[index]  # the run's own label, not the bare model
                detail = self.run.detail(
                    original["case_id"], original["model"], int(original.get("sample") or 0)
                )
            except (KeyError, ValueError):
                detail = None
        self.detail.value = detail_html(row, detail)
        return self.detail.value

    def _on_select(self, change: dict[str, Any]) -> None:
        if change["new"] is not None:
            self.show(change["new"])

    def attach(self, job: Any) -> ResultsExplorer:
        """Follow a running job: the explorer fills with its results when it ends (any end:
        completed, failed or cancelled keep the finished cases)."""
        if self._unsubscribe is not None:
            self._unsubscribe()

        def on_event(event: Any) -> None:
            if event.type in _FINAL:
                run = job.snapshot()
                self.set_results(run.results_df(), run)

        self._unsubscribe = job.subscribe(on_event)
        if job.done():
            run = job.snapshot()
            self.set_results(run.results_df(), run)
        return self
