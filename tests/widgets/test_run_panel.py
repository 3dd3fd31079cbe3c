"""RunPanel without a browser: real runs against the local fake server, started by clicking Run
(inside a running loop, as in a notebook) or from code and attached."""

from __future__ import annotations

import pytest

from tooleval_nb import run_eval
from tooleval_nb.widgets import RunPanel


@pytest.fixture
def panel(weather_suite, fake_model, store) -> RunPanel:
    return RunPanel([weather_suite], models=[fake_model], store=store)


def test_defaults_preselect_the_embedded_model(weather_suite):
    panel = RunPanel([weather_suite])
    assert list(panel.models_input.value) == ["local/smollm2-135m"]
    assert panel.suite_input.value == "fake weather"
    assert not panel.run_button.disabled and panel.cancel_button.disabled


async def test_run_button_runs_and_fills_the_table(panel):
    panel.run_button.click()
    job = panel.job
    assert job is not None and panel.run_button.disabled and not panel.cancel_button.disabled
    assert panel.cancel_button.button_style == "warning"  # lit while there is a run to cancel
    run = await job
    assert "data-rows='4'" in panel.table_view.value
    assert "milan_for_rome" in panel.table_view.value and "wrong_value" in panel.table_view.value
    assert "completed" in panel.progress_view.value and "4/4" in panel.progress_view.value
    assert not panel.run_button.disabled and panel.cancel_button.disabled
    assert panel.cancel_button.button_style == ""  # not lit once the run has completed
    assert panel.run is not None and panel.run.id == run.id
    explorer = panel.explorer()
    assert explorer.count.value == "4 of 4 results"


async def test_form_values_reach_the_run(panel):
    panel.max_cases_input.value = 2
    panel.tags_input.value = "smoke, hard"
    panel.temperature_input.value = 0.5
    panel.tool_choice_input.value = "auto"
    panel.run_button.click()
    run = await panel.job
    assert len(run) == 2  # max cases 2, then tags keep both of the first two
    assert run.settings["temperature"] == 0.5 and run.settings["tool_choice"] == "auto"
    assert run.settings["tags"] == ["smoke", "hard"]


def test_bad_values_are_shown_and_nothing_runs(panel):
    panel.models_input.value = []
    panel.system_prompt_input.value = "{oops"
    panel.per_model_prompt.value = True
    assert panel.start() is None
    assert "at least one model" in panel.errors["models"].value
    assert "JSON object" in panel.errors["system_prompt"].value
    assert panel.job is None and not panel.run_button.disabled


async def test_cancel_button_stops_the_run(weather_suite, fake, store):
    many = weather_suite.model_copy(
        update={
            "cases": [
                c.model_copy(update={"id": f"{c.id}_{i}", "prompt": f"{c.prompt} [latency:0.3]"})
                for i in range(6)
                for c in weather_suite.cases
            ]
        }
    )
    spec = {"model": "openai/fake", "api_base": fake.url, "api_key": "k"}
    panel = RunPanel([many], models=[spec], store=store, max_concurrency=2)
    panel.run_button.click()
    panel.cancel_button.click()
    from tooleval_nb import JobCancelled

    with pytest.raises(JobCancelled):
        await panel.job
    assert "cancelled" in panel.progress_view.value
    assert not panel.run_button.disabled and panel.cancel_button.disabled
    assert panel.cancel_button.button_style == ""
    assert len(panel.run) < len(many.cases)
    # then a run on the same panel: the button lights up for it and goes out when it completes
    panel.max_cases_input.value = 2
    panel.run_button.click()
    assert panel.cancel_button.button_style == "warning" and not panel.cancel_button.disabled
    second = await panel.job
    assert len(second) == 2 and "completed" in panel.progress_view.value
    assert panel.cancel_button.disabled and panel.cancel_button.button_style == ""


async def test_attach_a_job_started_from_code(weather_suite, fake_model, store):
    job = run_eval(
        weather_suite, [fake_model], temperature=0.2, store=store, progress="none", cache=False
    )
    panel = RunPanel.attach(job)
    assert panel.temperature_input.value == 0.2
    assert list(panel.models_input.value) == ["openai/fake"]
    await job
    assert "data-rows='4'" in panel.table_view.value
    assert "completed" in panel.progress_view.value


def test_attach_a_finished_job_replays_its_events(weather_suite, fake_model, store):
    job = run_eval(weather_suite, [fake_model], store=store, progress="none", cache=False)
    assert job.done()  # no event loop here: run_eval ran it to the end
    panel = RunPanel([weather_suite]).attach(job)
    assert "data-rows='4'" in panel.table_view.value
    assert panel.run is not None and len(panel.run) == 4
