"""Charts are tested through ``chart.to_dict()``: marks, encodings and the data they draw."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd
import pytest

from tooleval_nb import ToolEvalError, charts
from tooleval_nb.charts import embed
from tooleval_nb.scoring import interval_method, mean_ci

ROOT = Path(__file__).resolve().parents[2]


def datasets(spec: dict) -> list[list[dict]]:
    return list(spec.get("datasets", {}).values())


def only_data(chart) -> pd.DataFrame:
    data = datasets(chart.to_dict())
    assert len(data) == 1, f"expected one dataset, got {len(data)}"
    return pd.DataFrame(data[0])


def marks(spec: dict) -> list[str]:
    layers = spec.get("layer", [spec])
    out = []
    for layer in layers:
        mark = layer.get("mark")
        out.append(mark["type"] if isinstance(mark, dict) else mark)
    return out


def expected_means(df: pd.DataFrame) -> dict[str, float]:
    """Mean overall per label computed independently: errors count as 0."""
    df = df.copy()
    df["s"] = df["overall"].fillna(0.0)
    modes = df.groupby("model")["mode"].nunique()
    df["label"] = [
        f"{m} [{md}]" if modes[m] > 1 else m for m, md in zip(df.model, df["mode"], strict=False)
    ]
    return df.groupby("label")["s"].mean().to_dict()


# -- the interval (tooleval_nb.scoring.mean_ci) -------------------------------------------------
@pytest.mark.parametrize(
    ("metric", "method"),
    [
        pytest.param("overall", "t", id="score-t"),
        pytest.param("passed", "wilson", id="pass-rate-wilson"),
    ],
)
def test_leaderboard_interval_is_the_package_interval(results_df, metric, method):
    table = charts.leaderboard_table(results_df, metric=metric)
    df = charts.prepare(results_df)
    df["value"] = df["score"] if metric == "overall" else df["passed"].astype(float)
    for row in table.itertuples():
        per_case = df[df["label"] == row.label].groupby("case_id")["value"].mean()
        _, low, high = mean_ci(per_case.to_numpy())
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high), nan_ok=True)
        assert row.ci_method == interval_method(per_case.to_numpy())
    assert method in set(table["ci_method"])


def test_leaderboard_chart_title_names_the_method(results_df):
    spec = charts.leaderboard_chart(results_df).to_dict()
    methods = " / ".join(sorted(set(charts.leaderboard_table(results_df)["ci_method"])))
    assert f"CI over cases ({methods})" in spec["title"]


# -- leaderboard ---------------------------------------------------------------------------------
def test_leaderboard_table_means_order_and_labels(results_df):
    table = charts.leaderboard_table(results_df)
    want = expected_means(results_df)
    assert dict(zip(table["label"], table["mean"], strict=False)) == pytest.approx(want)
    assert list(table["mean"]) == sorted(table["mean"], reverse=True)
    assert "local/smollm2-135m [hermes]" in set(table["label"])
    bounded = table.dropna(subset=["ci_low"])
    assert (bounded["ci_low"] <= bounded["mean"]).all()
    assert (bounded["mean"] <= bounded["ci_high"]).all()
    errors = table.set_index("label")["n_errors"]
    assert errors["local/smollm2-135m [native]"] == 1 and errors["openai/gpt-4o-mini"] == 0


def test_leaderboard_chart_spec(results_df):
    chart = charts.leaderboard_chart(results_df)
    spec = chart.to_dict()
    assert marks(spec) == ["bar", "errorbar", "text"]
    data = pd.DataFrame(datasets(spec)[0])
    table = charts.leaderboard_table(results_df)
    assert list(data["label"]) == list(table["label"])
    assert spec["layer"][0]["encoding"]["y"]["sort"] == list(table["label"])
    assert spec["layer"][1]["encoding"]["x2"]["field"] == "ci_high"
    assert "95%" in spec["title"]


def test_leaderboard_by_param_score_ignores_unscored(results_df):
    table = charts.leaderboard_table(results_df, metric="param_score")
    gpt = results_df[results_df.model == "openai/gpt-4o-mini"]
    want = gpt["param_score"].astype(float).mean()  # NaN (irrelevance case) skipped
    assert table.set_index("label").loc["openai/gpt-4o-mini", "mean"] == pytest.approx(want)


# -- heatmap ------------------------------------------------------------------------------------
def test_heatmap_cells_and_tooltips(results_df):
    chart = charts.case_heatmap(results_df)
    spec = chart.to_dict()
    assert marks(spec) == ["rect"]
    tooltip_fields = {t["field"] for t in spec["encoding"]["tooltip"]}
    assert {"calls_text", "expected_text", "failure_mode", "score"} <= tooltip_fields
    data = only_data(chart)
    assert len(data) == results_df["case_id"].nunique() * 3
    cell = data[(data.case_id == "weather_tokyo_f") & (data.label == "local/smollm2-135m [native]")]
    assert cell["calls_text"].item() == 'get_weather(city="Tokyo")'
    assert cell["expected_text"].item() == 'get_weather(city="Tokyo", units="fahrenheit")'
    joke = data[(data.case_id == "no_tool_joke") & (data.label == "openai/gpt-4o-mini")]
    assert joke["calls_text"].item() == "(no call)"
    assert joke["expected_text"].item() == "(no call expected)"


def test_heatmap_keeps_the_hardest_cases(results_df):
    table = charts.heatmap_table(results_df, max_cases=2)
    means = results_df.assign(s=results_df.overall.fillna(0)).groupby("case_id")["s"].mean()
    assert set(table["case_id"]) == set(means.sort_values(kind="stable").index[:2])


# -- scatter ------------------------------------------------------------------------------------
def test_latency_scatter_uses_median_latency(results_df):
    chart = charts.latency_scatter(results_df)
    spec = chart.to_dict()
    assert marks(spec) == ["circle", "text"]
    assert spec["layer"][0]["encoding"]["x"]["field"] == "latency_p50_ms"
    data = pd.DataFrame(datasets(spec)[0]).set_index("label")
    gpt = results_df[results_df.model == "openai/gpt-4o-mini"]
    assert data.loc["openai/gpt-4o-mini", "latency_p50_ms"] == pytest.approx(
        gpt.latency_ms.median()
    )


def test_cost_scatter_leaves_out_models_without_price(results_df):
    data = only_data(charts.cost_scatter(results_df))
    assert list(data["label"]) == ["openai/gpt-4o-mini"]
    gpt = results_df[results_df.model == "openai/gpt-4o-mini"]
    assert data["cost_per_case"].item() == pytest.approx(gpt.cost.sum() / len(gpt))


def test_cost_scatter_without_any_cost_says_why(results_df):
    local = results_df[results_df.model != "openai/gpt-4o-mini"]
    spec = charts.cost_scatter(local).to_dict()
    assert marks(spec) == ["text"]
    assert "no cost recorded" in datasets(spec)[0][0]["message"]


# -- breakdowns ---------------------------------------------------------------------------------
def test_tag_breakdown_counts_a_case_in_each_tag(results_df):
    table = charts.breakdown_table(results_df, by="tag")
    gpt = table[table.label == "openai/gpt-4o-mini"].set_index("group")
    assert gpt.loc["weather", "n"] == 2 and gpt.loc["smoke", "n"] == 1
    native = table[table.label == "local/smollm2-135m [native]"].set_index("group")
    assert native.loc["weather", "mean"] == pytest.approx((1.0 + 0.8) / 2)
    spec = charts.tag_breakdown(results_df).to_dict()
    assert marks(spec) == ["bar"] and spec["encoding"]["yOffset"]["field"] == "label"


def test_mode_and_category_breakdowns(results_df):
    modes = charts.breakdown_table(results_df, by="mode")
    assert set(modes["group"]) == {"native", "hermes"}
    cats = charts.breakdown_table(results_df, by="category")
    assert set(cats["group"]) == set(results_df["category"])
    assert charts.mode_breakdown(results_df).to_dict()["encoding"]["color"]["field"] == "model"


def test_failure_chart_shares(results_df):
    table = charts.failure_table(results_df)
    native = table[table.label == "local/smollm2-135m [native]"].set_index("failure_mode")
    assert native.loc["wrong_value", "n"] == 2
    assert native["share"].sum() == pytest.approx(4 / 5)
    assert "openai/gpt-4o-mini" not in set(table["label"])
    spec = charts.failure_chart(results_df).to_dict()
    assert spec["encoding"]["x"]["field"] == "share"


# -- multi-turn and format sensitivity ----------------------------------------------------------
def test_multiturn_chart_shows_only_chains(results_df):
    table = charts.multiturn_table(results_df)
    assert set(table["metric"]) == set(charts.multiturn.MULTITURN_METRICS)
    gpt = table[table.label == "openai/gpt-4o-mini"].set_index("metric")["value"]
    assert gpt["overall"] == pytest.approx(0.9) and gpt["efficiency"] == pytest.approx(0.5)
    spec = charts.multiturn_chart(results_df).to_dict()
    assert spec["encoding"]["x"]["sort"] == charts.multiturn.MULTITURN_METRICS


def test_multiturn_chart_without_chains_says_so(results_df):
    single = results_df[results_df.case_id != "book_flight"]
    spec = charts.multiturn_chart(single).to_dict()
    assert "no multi-turn cases" in datasets(spec)[0][0]["message"]


def test_format_sensitivity_pairs_cases(results_df):
    table = charts.sensitivity_table(results_df).set_index("mode")
    assert set(table["model"]) == {"local/smollm2-135m"}  # the only model run in two modes
    native, hermes = (
        expected_means(results_df)[f"local/smollm2-135m [{m}]"] for m in ("native", "hermes")
    )
    assert table.loc["hermes", "delta_vs_native"] == pytest.approx(hermes - native)
    partial = results_df.drop(
        results_df[(results_df["mode"] == "hermes") & (results_df.case_id == "stock_price")].index
    )
    paired = charts.sensitivity_table(partial).set_index("mode")
    assert (paired["n_cases"] == 4).all()
    spec = charts.format_sensitivity(results_df).to_dict()
    assert marks(spec) == ["line", "circle"]


def test_format_sensitivity_with_one_mode_explains(results_df):
    spec = charts.format_sensitivity(results_df[results_df["mode"] == "native"]).to_dict()
    assert "more than one mode" in datasets(spec)[0][0]["message"]


# -- inputs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        charts.leaderboard_chart,
        charts.case_heatmap,
        charts.latency_scatter,
        charts.tag_breakdown,
        charts.multiturn_chart,
        charts.format_sensitivity,
    ],
    ids=lambda f: f.__name__,
)
def test_missing_columns_are_named(fn, results_df):
    with pytest.raises(ToolEvalError, match=r"needs the column\(s\) .*model"):
        fn(results_df.drop(columns=["model"]))


def test_not_a_frame_says_what_to_pass():
    with pytest.raises(ToolEvalError, match="run.results_df"):
        charts.leaderboard_chart([{"model": "x"}])


@pytest.mark.parametrize(
    "fn",
    [charts.leaderboard_chart, charts.case_heatmap, charts.tag_breakdown, charts.failure_chart],
    ids=lambda f: f.__name__,
)
def test_empty_results_draw_a_message(fn, results_df):
    spec = fn(results_df.iloc[0:0]).to_dict()
    assert marks(spec) == ["text"]


@pytest.mark.parametrize(
    "value, expected",
    [
        (["a", "b"], ["a", "b"]),
        ('["a", "b"]', ["a", "b"]),
        ("a, b", ["a", "b"]),
        (None, []),
        (float("nan"), []),
        (np.array(["x"]), ["x"]),
        ("", []),
    ],
    ids=["list", "json", "comma", "none", "nan", "array", "blank"],
)
def test_split_tags(value, expected):
    assert charts.split_tags(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        (
            json.dumps(
                [
                    {
                        "id": "1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": 1}'},
                    }
                ]
            ),
            "f(a=1)",
        ),
        ([{"name": "f", "arguments": {"a": ["x", "y"]}}], 'f(a="x" | "y")'),
        ([{"name": "f", "arguments": {"a": ["x", ""]}}], 'f(a="x" (optional))'),
        (
            {"expected_tool": ["search", "web_search"], "expected_params": None},
            "search | web_search()",
        ),
        ({"expected_tool": None}, "(no call)"),
        ([{"get_weather": {"city": "Paris"}}], 'get_weather(city="Paris")'),
        ([{"function": {"name": "f", "arguments": "{not json"}}], "f({not json)"),
        ("[]", "(no call)"),
        (None, "(no call)"),
        ("garbage", "?(garbage)"),
    ],
    ids=[
        "openai",
        "acceptable",
        "optional",
        "seed-list",
        "seed-none",
        "bfcl",
        "raw-args",
        "empty",
        "none",
        "garbage",
    ],
)
def test_format_calls(value, expected):
    assert charts.format_calls(value) == expected


# -- offline rendering --------------------------------------------------------------------------
@pytest.fixture
def restore_renderer():
    active = alt.renderers.active
    saved = dict(embed._STATE)
    yield
    alt.renderers.enable(active)
    embed._STATE.update(saved)


def _html(chart) -> dict[str, str]:
    out = chart._repr_mimebundle_()
    return out[0] if isinstance(out, tuple) else out


def test_chart_html_embeds_the_spec(results_df):
    chart = charts.leaderboard_chart(results_df)
    html = charts.chart_html(chart)
    assert "window.vegaEmbed(el, spec, opt)" in html
    start = html.index("})(") + 3
    spec_text = html[start : html.rindex(', {"actions"')]
    assert json.loads(spec_text.replace("<\\/", "</")) == chart.to_dict()


def test_enable_offline_needs_no_network(results_df, restore_renderer):
    shown = charts.enable_offline()
    bundle = shown._repr_mimebundle_()["text/html"]
    assert "window.vegaEmbed=" in bundle and "cdn.jsdelivr" not in bundle
    assert bundle.lower().count("</script") == 1
    mimebundle = _html(charts.leaderboard_chart(results_df))
    assert "vegaEmbed" in mimebundle["text/html"] and "jsdelivr" not in mimebundle["text/html"]
    assert "window.vegaEmbed=" not in mimebundle["text/html"]  # the bundle was shown already
    assert mimebundle["text/plain"].startswith("<Vega-Lite chart")


def test_an_enable_offline_never_shown_leaves_the_bundle_to_the_first_chart(
    results_df, restore_renderer
):
    """``charts.enable_offline()`` that is not a cell's last expression is never displayed (08
    and 06 called it so, and their charts said "the Vega bundle is not on this page")."""
    embed.set_vega_source(None)
    charts.enable_offline()  # its value is dropped, as in a cell where another line follows
    first = _html(charts.case_heatmap(results_df))["text/html"]
    second = _html(charts.failure_chart(results_df))["text/html"]
    assert "window.vegaEmbed=" in first and "window.vegaEmbed=" not in second


def test_charts_are_offline_by_default_and_the_first_carries_the_bundle(
    results_df, restore_renderer
):
    """Our charts draw offline by themselves: no enable_offline() call, no global renderer."""
    assert alt.renderers.active == "default"  # Altair's, untouched
    embed.set_vega_source(None)  # also forgets that the bundle was shown
    first = _html(charts.case_heatmap(results_df))["text/html"]
    second = _html(charts.failure_chart(results_df))["text/html"]
    assert "window.vegaEmbed=" in first and "window.vegaEmbed=" not in second
    for page in (first, second):
        assert "https://" not in page.split("<script", 1)[0]
        assert not re.search(r"<script[^>]*\bsrc=", page) and "cdn.jsdelivr" not in page
    assert alt.renderers.active == "default"


def test_a_chart_derived_from_ours_stays_offline_and_keeps_its_spec(results_df, restore_renderer):
    chart = charts.leaderboard_chart(results_df)
    assert isinstance(chart, alt.LayerChart) and isinstance(chart, embed.OfflineLayerChart)
    wider = chart.properties(width=600)
    assert isinstance(wider, embed.OfflineLayerChart)
    assert wider.to_dict()["width"] == 600
    plain = alt.LayerChart.from_dict(chart.to_dict())
    assert plain.to_dict() == chart.to_dict()  # the class changes the display, not the spec
    assert "tooleval-chart" in _html(wider)["text/html"]


def test_charts_composed_from_ours_draw_offline(results_df, restore_renderer):
    """The notebooks and the report put two of ours side by side (``|``, ``&``) and resolve
    their scales: the composition draws offline too."""
    side = (charts.latency_scatter(results_df) | charts.failure_chart(results_df)).resolve_scale(
        color="independent"
    )
    stacked = charts.format_sensitivity(results_df) & charts.failure_chart(results_df)
    layered = charts.failure_chart(results_df) + charts.failure_chart(results_df)
    assert isinstance(side, embed.OfflineHConcatChart) and isinstance(side, alt.HConcatChart)
    assert isinstance(stacked, embed.OfflineVConcatChart)
    assert isinstance(layered, embed.OfflineLayerChart)
    for chart in (side, stacked, layered):
        assert "tooleval-chart" in _html(chart)["text/html"]
    assert repr(side) == "alt.HConcatChart(...)"


def test_a_user_chart_can_draw_our_way(restore_renderer):
    mine = alt.Chart({"values": [{"x": 1}]}).mark_point().encode(x="x:Q")
    assert "tooleval-chart" not in str(_html(mine))
    assert charts.offline(mine) is mine
    assert "tooleval-chart" in _html(mine)["text/html"]


@pytest.mark.process
def test_a_chosen_renderer_is_kept_and_draws_ours_too():
    code = (
        "import altair as alt, pandas as pd; alt.renderers.enable('html'); "
        "from tooleval_nb import charts; "
        "out = charts.failure_modes_chart(pd.DataFrame({'failure_mode': ['a'], 'count': [1], "
        "'share': [1.0]}))._repr_mimebundle_(); out = out[0] if isinstance(out, tuple) else out; "
        "print(alt.renderers.active, 'tooleval-chart' in out.get('text/html', ''))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.split() == ["html", "False"], done.stderr[-2000:]


@pytest.mark.process
@pytest.mark.parametrize("order", ["tooleval_nb first", "altair first"])
def test_altair_charts_of_the_user_keep_altairs_renderer(order):
    """A chart made with Altair directly (not through tooleval_nb.charts) draws with Altair's
    renderer, whichever of the two was imported first, even once our charts are loaded;
    importing tooleval_nb alone loads no altair."""
    imports = (
        "import tooleval_nb; import altair as alt; from tooleval_nb import charts"
        if order == "tooleval_nb first"
        else "import altair as alt; import tooleval_nb; from tooleval_nb import charts"
    )
    code = (
        f"import sys; {imports}\n"
        "out = alt.Chart({'values': [{'x': 1}]}).mark_point().encode(x='x:Q')"
        "._repr_mimebundle_()\n"
        "out = out[0] if isinstance(out, tuple) else out\n"
        "print(alt.renderers.active, 'tooleval-chart' in str(out))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.split() == ["default", "False"], done.stderr[-2000:]
    light = subprocess.run(
        [sys.executable, "-c", "import sys, tooleval_nb; print('altair' in sys.modules)"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert light.stdout.strip() == "False", light.stderr


def test_the_cdn_is_one_switch(results_df, restore_renderer, monkeypatch):
    embed.set_vega_source("cdn")
    assert embed.vega_source() == "cdn"
    page = _html(charts.case_heatmap(results_df))["text/html"]
    assert page.count('src="https://cdn.jsdelivr.net/npm/') == 3
    assert f"vega-lite@{alt.VEGALITE_VERSION}" in page and "window.vegaEmbed=" not in page
    embed.set_vega_source(None)
    monkeypatch.setenv(embed.SOURCE_ENV, "cdn")
    assert embed.vega_source() == "cdn" and "cdn.jsdelivr" in charts.bundle_html()
    monkeypatch.setenv(embed.SOURCE_ENV, "inline")
    assert "cdn.jsdelivr" not in charts.bundle_html()


def test_a_bad_source_is_named(monkeypatch):
    with pytest.raises(ToolEvalError, match="'jsdelivr' is not a Vega source; use 'inline'"):
        embed.set_vega_source("jsdelivr")  # type: ignore[arg-type]
    monkeypatch.setenv(embed.SOURCE_ENV, "web")
    with pytest.raises(ToolEvalError, match=r"\$TOOLEVAL_VEGA_SOURCE: 'web'"):
        embed.vega_source()


def test_a_missing_bundle_is_said_in_place_of_the_chart(results_df):
    page = charts.chart_html(charts.case_heatmap(results_df))
    assert "chart not drawn: the Vega bundle is not on this page" in page


def test_samples_are_averaged_per_case_first(results_factory):
    df = results_factory(samples=3)
    table = charts.leaderboard_table(df)
    assert (table["n_cases"] == df["case_id"].nunique()).all()
    heat = charts.heatmap_table(df)
    assert (heat["n_samples"] == 3).all()
    # a changed second sample moves the cell to the mean of the samples
    df.loc[(df["sample"] == 1) & (df.case_id == "weather_paris"), "overall"] = 0.0
    heat = charts.heatmap_table(df).set_index(["case_id", "label"])
    assert heat.loc[("weather_paris", "openai/gpt-4o-mini"), "score"] == pytest.approx(2 / 3)


def test_runner_twin_labels_are_split_back_into_model_and_mode(results_df):
    """The runner labels one model run in two modes "model [mode]" itself."""
    twins = results_df.copy()
    local = twins.model == "local/smollm2-135m"
    twins.loc[local, "model"] = [f"local/smollm2-135m [{m}]" for m in twins.loc[local, "mode"]]
    assert charts.sensitivity_table(twins).equals(charts.sensitivity_table(results_df))
    labels = set(charts.leaderboard_table(twins)["label"])
    assert labels == set(charts.leaderboard_table(results_df)["label"])


@pytest.mark.parametrize(
    "value, expected",
    [
        ('{"expected_tool": "f", "expected_params": {"a": 1}}', "f(a=1)"),
        (
            '{"expected_calls": [{"name": "f", "arguments": {"a": [1]}}], "expected_tool": "f"}',
            "f(a=1)",
        ),
        ('{"expected": {"tools_called": ["search", "book"]}}', "search(); book()"),
        ('{"multi_turn": true}', "(no call)"),
    ],
    ids=["seed", "calls-first", "agent", "nothing"],
)
def test_format_runner_expected_json(value, expected):
    assert charts.format_calls(value) == expected


def test_worst_cases_lists_lowest_scores_with_calls(results_df):
    worst = charts.worst_cases(results_df, n=3)
    assert len(worst) == 3
    assert (worst["overall"] == 0.0).all()  # the errored row counts as 0
    row = worst[worst.case_id == "no_tool_joke"].iloc[0]
    assert row["calls"] == 'get_weather(city="Joke")'
    assert row["expected"] == "(no call expected)"
    per_model = charts.worst_cases(results_df, n=1, per_model=True)
    assert len(per_model) == 3 and per_model["label"].is_unique


def test_breakdown_by_suite(results_df):
    df = results_df.assign(
        suite=["weather" if c.startswith("weather") else "other" for c in results_df.case_id]
    )
    table = charts.breakdown_table(df, by="suite")
    assert set(table["group"]) == {"weather", "other"}
    with pytest.raises(ToolEvalError, match="suite"):
        charts.breakdown_table(results_df, by="suite")
