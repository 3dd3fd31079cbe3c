"""ResultsExplorer without a browser: set filters, pick results, assert what is shown."""

from __future__ import annotations

from tooleval_nb.widgets import ResultsExplorer


def test_filters_and_detail(finished_run):
    explorer = ResultsExplorer(finished_run)
    assert explorer.count.value == "4 of 4 results"
    assert explorer.model_filter.options == ("(all)", "openai/fake")
    assert set(explorer.tag_filter.options) == {"(all)", "smoke", "hard", "irrelevance"}
    explorer.outcome_filter.value = "failed"
    labels = [label for label, _ in explorer.case_select.options]
    assert len(labels) == 2 and all(label.startswith("✗") for label in labels)
    assert "param-differs" in explorer.detail.value  # the first failed result is shown
    explorer.tag_filter.value = "irrelevance"
    assert explorer.case_select.options == ()
    assert "no result matches" in explorer.detail.value
    explorer.outcome_filter.value = "all"
    ((label, index),) = explorer.case_select.options
    assert "chat" in label and "no call expected and none made" in explorer.detail.value


def test_selecting_a_result_shows_raw_output_and_usage(finished_run):
    explorer = ResultsExplorer(finished_run)
    df = finished_run.results_df()
    index = int(df.index[df.case_id == "units"][0])
    explorer.case_select.value = index
    page = explorer.detail.value
    assert "units" in page and "raw output" in page and "latency ms" in page
    assert "param-differs" in page  # celsius vs fahrenheit


async def test_attach_fills_when_a_job_ends(weather_suite, fake_model, store):
    from tooleval_nb import run_eval

    job = run_eval(weather_suite, [fake_model], store=store, progress="none", cache=False)
    explorer = ResultsExplorer().attach(job)
    assert explorer.results is None
    await job
    assert explorer.count.value == "4 of 4 results"
