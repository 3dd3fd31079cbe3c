"""ipywidgets for experiments: a thin layer over the objects, the charts and pure helpers.

* :func:`experiment_widget`: the timeline chart above its table; Pin baseline / Run best /
  Open entry.
* :class:`SweepForm` (``te.sweep_form``): pick parameters and values, strategy and budget; Run /
  Cancel; a live forest plot (eliminated trials greyed) and a budget bar; then the effects, the
  trials table and Confirm / Promote.
* :func:`sweep_widget`, :func:`prompt_tune_widget`: views of a finished sweep or prompt tune.

Long work runs as a task on the kernel's loop (the cell returns at once); without a running loop
(scripts, tests) it runs to completion.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from .display import html_table

if TYPE_CHECKING:  # pragma: no cover
    import ipywidgets as widgets

    from ..suite import Suite
    from .config import Config

__all__ = ["experiment_widget", "sweep_widget", "prompt_tune_widget", "SweepForm", "sweep_form",
           "parse_values", "space_from_fields", "promote_block_reason", "SWEEP_FIELDS"]

#: the form's parameters and their default values (empty = not swept)
SWEEP_FIELDS: dict[str, str] = {"temperature": "0, 0.7", "tool_choice": "auto, required",
                                "max_tokens": "", "top_p": "", "repeat_penalty": "",
                                "min_p": ""}


def parse_values(text: str) -> list[Any]:
    """``"0, 0.7"`` → ``[0.0, 0.7]``; ``"auto, required"`` → strings; ``"128"`` → ``[128]``."""
    out: list[Any] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        for cast in (int, float):
            try:
                out.append(cast(part))
                break
            except ValueError:
                continue
        else:
            out.append(part)
    return out


def space_from_fields(fields: dict[str, str]) -> Any:
    """A :class:`~.space.Space` from the form's text fields (empty fields are not swept)."""
    from .space import space

    values = {k: parse_values(v) for k, v in fields.items() if parse_values(v)}
    return space(**values)


def _start(coro: Coroutine[Any, Any, Any], done: Callable[[Any, BaseException | None], None]
           ) -> Any:
    """Run ``coro`` as a task on the running loop, else to completion; call ``done``."""
    from ..runner.bridge import running_loop, spawn

    if running_loop() is not None:
        task = spawn(coro)

        def finished(t: Any) -> None:
            if t.cancelled():
                done(None, None)
            else:
                done(t.result() if t.exception() is None else None, t.exception())

        task.add_done_callback(finished)
        return task
    from .evaluate import run_sync

    try:
        result = run_sync(coro)
    except BaseException as exc:  # shown in the widget, not raised into the event handler
        done(None, exc)
        return None
    done(result, None)
    return None


def _show(out: widgets.Output, *items: Any) -> None:
    from IPython.display import display

    out.clear_output(wait=True)
    with out:
        for item in items:
            display(item)


def experiment_widget(exp: Any) -> widgets.VBox:
    """Timeline chart, its table, and Pin baseline / Run best / Open entry buttons."""
    import ipywidgets as widgets

    from .charts import timeline_chart

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
        entries.options = [(f"#{r.entry_id} {r.kind} {r.run_id or r.ref_id}", int(r.entry_id))
                           for r in tl.itertuples()]
        if len(tl):
            _show(chart, timeline_chart(tl))
        table.value = html_table(tl.drop(columns=["created_at"]))
        best = exp.best
        status.value = (f"best: <b>{html.escape(best.source)}</b> — "
                        f"{html.escape(best.config.describe_diff(exp.baseline.config))}"
                        if exp.baseline else "no run yet: exp.run(te.Config())")

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
            _show(detail, exp.open_entry(entries.value))

    def on_run_best(_: Any) -> None:
        run_best.disabled = True
        status.value = "running the best config…"

        def done(result: Any, error: BaseException | None) -> None:
            run_best.disabled = False
            refresh()
            if error is not None:
                status.value = f"run best failed: {html.escape(str(error))}"

        _start(exp.run_best_async(), done)

    pin.on_click(on_pin)
    run_best.on_click(on_run_best)
    open_entry.on_click(on_open)
    refresh()
    box = widgets.VBox([chart, table, widgets.HBox([entries, pin, run_best, open_entry]), status,
                        detail])
    box.refresh = refresh  # type: ignore[attr-defined]
    return box


def sweep_widget(sw: Any, experiment: Any = None) -> widgets.VBox:
    """Forest plot, effects, trials table, and Confirm / Promote buttons for a sweep."""
    import ipywidgets as widgets

    from .charts import effects_chart, forest_chart

    exp = experiment or sw.experiment
    plots = widgets.Output()
    table = widgets.HTML(html_table(sw.trials_df()))
    status = widgets.HTML(html.escape(sw.message))
    confirm = widgets.Button(description="Confirm on holdout")
    promote = widgets.Button(description="Promote", button_style="success",
                             disabled=exp is None,
                             tooltip="link the sweep to an experiment to promote" if exp is None
                             else "merge the confirmed winner into the experiment's best")
    _show(plots, forest_chart(sw.trials_df()), effects_chart(sw.effects_df()))

    def on_confirm(_: Any) -> None:
        def done(result: Any, error: BaseException | None) -> None:
            status.value = (html_table(result) if error is None
                            else f"confirmation failed: {html.escape(str(error))}")
        _start(sw.confirm_async(), done)

    def on_promote(_: Any) -> None:
        def done(result: Any, error: BaseException | None) -> None:
            status.value = (f"promoted: {result}" if error is None
                            else f"promotion failed: {html.escape(str(error))}")
        _start(sw._promote(exp), done)

    confirm.on_click(on_confirm)
    promote.on_click(on_promote)
    return widgets.VBox([plots, table, widgets.HBox([confirm, promote]), status])


def prompt_tune_widget(pt: Any, experiment: Any = None) -> widgets.VBox:
    """Leaderboard (dev and holdout CIs), best-so-far curve, case heatmap, diff, Promote."""
    import ipywidgets as widgets

    from .charts import best_so_far_chart, case_heatmap, leaderboard_chart

    exp = experiment if experiment is not None else getattr(pt, "experiment", None)
    plots = widgets.Output()
    _show(plots, leaderboard_chart(pt.candidates_df()), best_so_far_chart(pt.generations_df()),
          case_heatmap(pt.case_matrix_df()))
    why = promote_block_reason(pt, exp)
    promote = widgets.Button(description="Promote", button_style="success",
                             disabled=why is not None, tooltip=why or "promote the winner")
    status = widgets.HTML(html.escape(why or pt.message))

    def on_promote(_: Any) -> None:
        promote.disabled = True

        def done(result: Any, error: BaseException | None) -> None:
            status.value = (f"promoted: {result}" if error is None
                            else f"promotion failed: {html.escape(str(error))}")
            blocked = promote_block_reason(pt, exp)
            promote.disabled = blocked is not None
            promote.tooltip = blocked or "promote the winner"
        _start(pt.promote_async(exp), done)

    promote.on_click(on_promote)
    return widgets.VBox([plots, widgets.HTML(pt.diff()), promote, status])


def promote_block_reason(pt: Any, exp: Any) -> str | None:
    """Why a prompt tune's Promote button is disabled (None when it can promote)."""
    if pt.winner is None:
        return f"nothing to promote: {pt.message}"
    if exp is None:
        return "pass experiment=... (or use exp.tune_prompt) to promote"
    tl = exp.timeline()
    done = tl[(tl["kind"] == "confirm") & (tl["promoted_from"] == pt.id)]
    if len(done):
        last = done.iloc[-1]
        return (f"already promoted into experiment {exp.name!r} (timeline entry "
                f"#{int(last['entry_id'])}: {last['note'] or 'linked'})")
    return None


class SweepForm:
    """A form that drives sweeps (``te.sweep_form(suite)``); ``.widget`` is the ipywidget."""

    def __init__(self, suite: Suite, base: Config | None = None, *, store: Any = None,
                 experiment: Any = None, calls: int = 60) -> None:
        import ipywidgets as widgets

        from .config import Config

        self.suite, self.store, self.experiment = suite, store, experiment
        self.base = base or (experiment.best.config if experiment is not None else Config())
        self.fields = {k: widgets.Text(value=v, description=k, placeholder="not swept")
                       for k, v in SWEEP_FIELDS.items()}
        self.strategy = widgets.Dropdown(options=["race", "grid", "random"], value="race",
                                         description="strategy")
        self.calls = widgets.IntText(value=calls, description="calls")
        self.minutes = widgets.FloatText(value=15.0, description="minutes")
        self.run = widgets.Button(description="Run", button_style="primary", icon="play")
        self.cancel = widgets.Button(description="Cancel", disabled=True, icon="stop")
        self.bar = widgets.IntProgress(min=0, max=calls, description="budget")
        self.live = widgets.Output()
        self.result_box = widgets.VBox([])
        self.status = widgets.HTML()
        self.sweep: Any = None
        self.task: Any = None
        self.run.on_click(self._on_run)
        self.cancel.on_click(self._on_cancel)
        self.widget = widgets.VBox([
            widgets.HTML("<b>Parameter sweep</b> (comma-separated values; empty = not swept)"),
            *self.fields.values(), widgets.HBox([self.strategy, self.calls, self.minutes]),
            widgets.HBox([self.run, self.cancel, self.bar]), self.status, self.live,
            self.result_box])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def space(self) -> Any:
        return space_from_fields({k: w.value for k, w in self.fields.items()})

    def _on_event(self, kind: str, data: dict[str, Any]) -> None:
        self.bar.value = min(self.bar.max, int(data.get("calls", 0)))
        if kind == "round" and data.get("arms"):
            from .charts import forest_chart
            from .race import live_trials

            _show(self.live, forest_chart(live_trials(data["arms"])))

    def _on_run(self, _: Any) -> None:
        from .budget import Budget
        from .sweep import sweep_async

        try:
            space = self.space()
        except Exception as exc:  # a bad field: say which, keep the form usable
            self.status.value = f"<span style='color:#c00'>{html.escape(str(exc))}</span>"
            return
        self.run.disabled, self.cancel.disabled = True, False
        self.bar.max = self.calls.value
        self.status.value = "running…"
        coro = sweep_async(self.suite, self.base, space, strategy=self.strategy.value,
                           budget=Budget(calls=self.calls.value, minutes=self.minutes.value),
                           store=self.store, experiment=self.experiment, on_event=self._on_event,
                           split=getattr(self.experiment, "split", None))
        self.task = _start(coro, self._done)

    def _done(self, result: Any, error: BaseException | None) -> None:
        self.run.disabled, self.cancel.disabled = False, True
        if error is not None:
            self.status.value = f"<span style='color:#c00'>{html.escape(str(error))}</span>"
            return
        if result is None:
            self.status.value = "cancelled (finished cells are kept; Run resumes)"
            return
        self.sweep = result
        self.status.value = html.escape(result.message)
        self.result_box.children = (sweep_widget(result, self.experiment),)

    def _on_cancel(self, _: Any) -> None:
        if self.task is not None:
            self.task.cancel()


def sweep_form(suite: Suite, base: Config | None = None, **kwargs: Any) -> SweepForm:
    """The sweep form (see :class:`SweepForm`)."""
    return SweepForm(suite, base, **kwargs)
