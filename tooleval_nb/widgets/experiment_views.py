"""Views of the experiment layer's objects: a thin ipywidgets layer over their methods and the
charts of :mod:`tooleval_nb.charts`.

* :func:`experiment_view`: an experiment's timeline chart above its table; Pin baseline / Run
  best / Open entry.
* :func:`sweep_view`: a finished sweep's forest plot, effects, trials table; Confirm / Promote.
* :func:`prompt_tune_view`: a prompt tune's candidates (dev and holdout CIs), best-so-far curve,
  case heatmap, prompt diff; Promote (:func:`promote_block_reason` says why it is disabled).

Long work runs as a task on the kernel's loop (:mod:`.background`): the cell returns at once.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from ..charts import (
    best_so_far_chart,
    candidate_heatmap,
    candidates_chart,
    effects_chart,
    forest_chart,
    timeline_chart,
)
from ..experiments import Experiment, PromptTune, Sweep
from ..experiments.display import html_table
from .background import show, start

__all__ = ["experiment_view", "sweep_view", "prompt_tune_view", "promote_block_reason"]


def experiment_view(exp: Experiment) -> widgets.VBox:
    """Timeline chart, its table, and Pin baseline / Run best / Open entry buttons."""
    chart = widgets.Output()
    table = widgets.HTML()
    status = widgets.HTML()
    detail = widgets.Output()
    entries = widgets.Dropdown(description="entry", options=[])
    pin = widgets.Button(description="Pin baseline", icon="thumb-tack")
    run_best = widgets.Button(description="Run best", icon="play", button_style="success")
    open_entry = widgets.Button(description="Open entry", icon="folder-open")
    kinds: dict[int, tuple[str, str | None]] = {}

    def refresh(*_: Any) -> None:
        tl = exp.timeline()
        kinds.clear()
        kinds.update({int(r.entry_id): (r.kind, r.run_id) for r in tl.itertuples()})
        entries.options = [
            (f"#{r.entry_id} {r.kind} {r.run_id or r.ref_id}", int(r.entry_id))
            for r in tl.itertuples()
        ]
        if len(tl):
            show(chart, timeline_chart(tl))
        table.value = html_table(tl.drop(columns=["created_at"]))
        best = exp.best
        status.value = (
            f"best: <b>{html.escape(best.source)}</b> — "
            f"{html.escape(best.config.describe_diff(exp.baseline.config))}"
            if exp.baseline
            else "no run yet: exp.run(te.Config())"
        )

    def on_pin(_: Any) -> None:
        kind, run_id = kinds.get(entries.value or -1, ("", None))
        if kind not in ("eval", "confirm") or not run_id:
            status.value = "pick an eval or confirm entry to pin as the baseline"
            return
        try:
            exp.pin_baseline(run_id)
        except Exception as exc:  # shown, not raised into the event handler
            status.value = f"cannot pin: {html.escape(str(exc))}"
            return
        refresh()

    def on_open(_: Any) -> None:
        if entries.value is not None:
            show(detail, exp.open_entry(entries.value))

    def on_run_best(_: Any) -> None:
        run_best.disabled = True
        status.value = "running the best config…"

        def done(result: Any, error: BaseException | None) -> None:
            run_best.disabled = False
            refresh()
            if error is not None:
                status.value = f"run best failed: {html.escape(str(error))}"

        start(exp.run_best_async(), done)

    pin.on_click(on_pin)
    run_best.on_click(on_run_best)
    open_entry.on_click(on_open)
    refresh()
    box = widgets.VBox(
        [chart, table, widgets.HBox([entries, pin, run_best, open_entry]), status, detail]
    )
    box.refresh = refresh
    return box


def sweep_view(sw: Sweep, experiment: Experiment | None = None) -> widgets.VBox:
    """Forest plot, effects, trials table, and Confirm / Promote buttons for a sweep."""
    exp = experiment or sw.experiment
    plots = widgets.Output()
    table = widgets.HTML(html_table(sw.trials_df()))
    status = widgets.HTML(html.escape(sw.message))
    confirm = widgets.Button(description="Confirm on holdout")
    promote = widgets.Button(
        description="Promote",
        button_style="success",
        disabled=exp is None,
        tooltip="link the sweep to an experiment to promote"
        if exp is None
        else "merge the confirmed winner into the experiment's best",
    )
    show(plots, forest_chart(sw.trials_df()), effects_chart(sw.effects_df()))

    def on_confirm(_: Any) -> None:
        def done(result: Any, error: BaseException | None) -> None:
            status.value = (
                html_table(result)
                if error is None
                else f"confirmation failed: {html.escape(str(error))}"
            )

        start(sw.confirm_async(), done)

    def on_promote(_: Any) -> None:
        def done(result: Any, error: BaseException | None) -> None:
            status.value = (
                f"promoted: {result}"
                if error is None
                else f"promotion failed: {html.escape(str(error))}"
            )

        start(sw.promote_async(exp), done)

    confirm.on_click(on_confirm)
    promote.on_click(on_promote)
    return widgets.VBox([plots, table, widgets.HBox([confirm, promote]), status])


def prompt_tune_view(pt: PromptTune, experiment: Experiment | None = None) -> widgets.VBox:
    """Candidates (dev and holdout CIs), best-so-far curve, case heatmap, diff, Promote."""
    exp = experiment if experiment is not None else getattr(pt, "experiment", None)
    plots = widgets.Output()
    show(
        plots,
        candidates_chart(pt.candidates_df()),
        best_so_far_chart(pt.generations_df()),
        candidate_heatmap(pt.case_matrix_df()),
    )
    why = promote_block_reason(pt, exp)
    promote = widgets.Button(
        description="Promote",
        button_style="success",
        disabled=why is not None,
        tooltip=why or "promote the winner",
    )
    status = widgets.HTML(html.escape(why or pt.message))

    def on_promote(_: Any) -> None:
        promote.disabled = True

        def done(result: Any, error: BaseException | None) -> None:
            status.value = (
                f"promoted: {result}"
                if error is None
                else f"promotion failed: {html.escape(str(error))}"
            )
            blocked = promote_block_reason(pt, exp)
            promote.disabled = blocked is not None
            promote.tooltip = blocked or "promote the winner"

        start(pt.promote_async(exp), done)

    promote.on_click(on_promote)
    return widgets.VBox([plots, widgets.HTML(pt.diff()), promote, status])


def promote_block_reason(pt: PromptTune, exp: Experiment | None) -> str | None:
    """Why a prompt tune's Promote button is disabled (None when it can promote)."""
    if pt.winner is None:
        return f"nothing to promote: {pt.message}"
    if exp is None:
        return "pass experiment=... (or use exp.tune_prompt) to promote"
    tl = exp.timeline()
    done = tl[(tl["kind"] == "confirm") & (tl["promoted_from"] == pt.id)]
    if len(done):
        last = done.iloc[-1]
        return (
            f"already promoted into experiment {exp.name!r} (timeline entry "
            f"#{int(last['entry_id'])}: {last['note'] or 'linked'})"
        )
    return None
