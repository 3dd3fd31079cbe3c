"""Charts: pure functions from a run's results frame to Altair charts.

Every chart takes ``run.results_df()`` and returns an Altair chart (test them through
``chart.to_dict()``); each has a ``*_table`` twin returning the numbers it draws::

    from tooleval_nb import charts
    charts.leaderboard_chart(run.results_df())      # mean overall with its CI (scoring.mean_ci)
    charts.case_heatmap(df)                         # case x model, calls in the tooltips
    charts.latency_scatter(df); charts.cost_scatter(df)
    charts.mode_breakdown(df); charts.tag_breakdown(df); charts.failure_chart(df)
    charts.multiturn_chart(df)                      # completion, efficiency, penalties
    charts.format_sensitivity(df)                   # native vs raw-text, same model
    charts.worst_cases(df, n=10)                    # a table: lowest scores with their calls

The experiment layer's charts take the frames its objects return::

    charts.timeline_chart(exp.timeline())                       # an experiment's entries
    charts.forest_chart(sw.trials_df()); charts.effects_chart(sw.effects_df())   # a sweep
    charts.candidates_chart(pt.candidates_df())                 # a prompt tune (with
    charts.best_so_far_chart(pt.generations_df())               #   its progress and
    charts.candidate_heatmap(pt.case_matrix_df())               #   fixed / broken cases)
    charts.failure_modes_chart(report.failure_modes_df())       # a judge report

Every chart draws without a network, in a cell, a widget, an exported notebook or a report:
each carries its own offline drawing (:mod:`.embed`), and Altair's renderer, which draws the
charts you make yourself, is left as you set it (``charts.offline(chart)`` draws one of yours
our way). ``enable_offline()`` at the top of a notebook keeps the Vega bundle in the saved
notebook; ``set_vega_source("cdn")`` (or ``TOOLEVAL_VEGA_SOURCE=cdn``) is the one switch to load
Vega from a CDN instead.
"""

from __future__ import annotations

from .breakdown import (
    FAILURE_MODES,
    breakdown_chart,
    breakdown_table,
    failure_chart,
    failure_table,
    mode_breakdown,
    tag_breakdown,
)
from .calls import format_call, format_calls, parse_calls
from .cases import worst_cases
from .embed import (
    VegaSource,
    bundle_html,
    chart_html,
    enable_offline,
    offline,
    set_vega_source,
    vega_source,
)
from .frame import prepare, split_tags
from .heatmap import case_heatmap, heatmap_table
from .judge import failure_modes_chart
from .leaderboard import leaderboard_chart, leaderboard_table
from .multiturn import multiturn_chart, multiturn_table
from .scatter import cost_scatter, latency_scatter, model_stats
from .sensitivity import format_sensitivity, sensitivity_table
from .sweep import effects_chart, forest_chart
from .timeline import timeline_chart
from .tune import best_so_far_chart, candidate_heatmap, candidates_chart

__all__ = [
    "FAILURE_MODES",
    "best_so_far_chart",
    "breakdown_chart",
    "breakdown_table",
    "bundle_html",
    "candidate_heatmap",
    "candidates_chart",
    "case_heatmap",
    "chart_html",
    "cost_scatter",
    "effects_chart",
    "enable_offline",
    "offline",
    "failure_chart",
    "failure_modes_chart",
    "failure_table",
    "forest_chart",
    "format_call",
    "format_calls",
    "format_sensitivity",
    "heatmap_table",
    "latency_scatter",
    "leaderboard_chart",
    "leaderboard_table",
    "mode_breakdown",
    "model_stats",
    "multiturn_chart",
    "multiturn_table",
    "parse_calls",
    "prepare",
    "sensitivity_table",
    "split_tags",
    "tag_breakdown",
    "timeline_chart",
    "worst_cases",
    "set_vega_source",
    "vega_source",
    "VegaSource",
]
