"""One definition of a run's settings: RunSettings, built the same way by every entry point."""

from __future__ import annotations

import argparse
import inspect

import pytest
from pydantic import ValidationError

import tooleval_nb as te
from tooleval_nb.cli.options import build_parser
from tooleval_nb.experiments import Config
from tooleval_nb.experiments import config as config_module
from tooleval_nb.experiments.config import PRODUCTION_TOOL_CHOICE
from tooleval_nb.experiments.evaluate import settings_for
from tooleval_nb.report.params import RUN_FIELDS, ReportParams
from tooleval_nb.runner.launch import prepare_job
from tooleval_nb.runner.settings import (
    DEFAULT_TOOL_CHOICE,
    JOB_OPTIONS,
    TOOL_CHOICES,
    RunSettings,
)
from tooleval_nb.widgets.running import run_request

from .conftest import weather_suite


def test_settings_object_and_keywords_make_the_same_run(store_path):
    suite = weather_suite(3)
    model = {"model": "openai/m", "api_base": "http://127.0.0.1:9/v1"}
    by_keywords = prepare_job(
        suite,
        [model],
        temperature=0.5,
        tags="even",
        max_rounds=2,
        progress="none",
        store=store_path,
    )
    by_object = prepare_job(
        suite,
        [model],
        RunSettings(temperature=0.5, max_rounds=2),
        tags=["even"],
        progress="none",
        store=store_path,
    )
    by_dict = prepare_job(
        suite,
        [model],
        {"temperature": 0.5, "tags": ("even",)},
        max_rounds=2,
        progress="none",
        store=store_path,
    )
    assert by_keywords.plan.settings == by_object.plan.settings == by_dict.plan.settings
    # the same configuration: the key an interrupted run is found (and resumed) by
    assert by_keywords.plan.config_key() == by_object.plan.config_key() == by_dict.plan.config_key()


def test_overrides_win_over_the_settings_object():
    base = RunSettings(temperature=0.2, repeats=2, seeds=[1, 2])
    built = RunSettings.build(base, temperature=0.9)
    assert (built.temperature, built.repeats, built.seeds) == (0.9, 2, [1, 2])
    assert RunSettings.build(base) is base
    assert RunSettings.build(None, params=None).params == {}


def test_unknown_override_names_every_setting():
    with pytest.raises(TypeError) as info:
        RunSettings.build(temprature=0.3)
    message = str(info.value)
    assert "temprature" in message and "temperature" in message and "executor" in message


def test_misspelt_names_and_values_get_the_nearest_one():
    with pytest.raises(TypeError, match=r"temprature \(did you mean 'temperature'\?\)"):
        RunSettings.build(temprature=0.3)
    with pytest.raises(ValidationError) as info:
        RunSettings.build(mode="hermess", tool_choice="requred")
    errors = {str(e["loc"][0]): e["msg"] for e in info.value.errors()}
    assert len(info.value.errors()) == 2  # one each, not one per literal of Mode
    assert errors["mode"].startswith(
        "Value error, unknown mode 'hermess' (did you mean "
        "'hermes'?); the modes are native, hermes, "
    )
    assert errors["tool_choice"] == (
        "Value error, unknown tool_choice 'requred' (did you mean 'required'?); use required, "
        "auto, none, or a dict {'type': 'function', 'function': {'name': ...}} forcing one "
        "function"
    )
    forced = {"type": "function", "function": {"name": "get_weather"}}
    assert RunSettings.build(mode="hermes", tool_choice=forced).tool_choice == forced


def test_bad_values_name_their_field():
    with pytest.raises(ValidationError) as info:
        RunSettings.build(max_concurrency=0, tool_choice="sometimes")
    fields = {str(e["loc"][0]) for e in info.value.errors()}
    assert {"max_concurrency", "tool_choice"} <= fields


def test_a_positional_temperature_still_works_with_a_warning(store_path):
    with pytest.warns(DeprecationWarning, match="temperature="):
        job = prepare_job(weather_suite(2), ["openai/m"], 0.4, progress="none", store=store_path)
    assert job.plan.settings.temperature == 0.4


def test_job_options_are_not_settings():
    assert not set(JOB_OPTIONS) & (set(RunSettings.model_fields) - {"agent", "live_tools"})


# -- every entry point agrees with RunSettings' defaults --------------------------------------
def test_report_parameters_default_to_the_run_settings():
    defaults, params = RunSettings(), ReportParams()
    assert set(RUN_FIELDS.values()) <= set(RunSettings.model_fields)
    for name, field in RUN_FIELDS.items():
        assert getattr(params, name) == getattr(defaults, field) or (
            name == "sampling_params" and params.sampling_params == defaults.params
        ), name
    assert params.run_settings() == defaults


def test_report_parameters_map_onto_the_run_settings():
    params = ReportParams(
        temperature=0.3,
        tool_choice="auto",
        request_timeout=5.0,
        sample_seeds=[7, 8],
        repeats=2,
        sampling_params={"top_p": 0.9},
        tags="a,b",
    )
    settings = params.run_settings()
    assert (settings.temperature, settings.tool_choice, settings.timeout) == (0.3, "auto", 5.0)
    assert (settings.seeds, settings.params, settings.tags) == ([7, 8], {"top_p": 0.9}, ["a", "b"])


def test_the_cli_leaves_every_run_default_to_the_settings():
    parser = build_parser()
    args = parser.parse_args(["run"])
    for name in RUN_FIELDS:
        assert getattr(args, name, None) in (None, []), name
    choices = next(
        a
        for a in parser._subparsers._group_actions[0].choices["run"]._actions
        if isinstance(a, argparse.Action) and a.dest == "tool_choice"
    ).choices
    assert tuple(choices) == TOOL_CHOICES


def test_the_run_panel_builds_the_settings():
    request, problems = run_request(["openai/m"])
    assert not problems and request is not None
    assert request.settings.tool_choice == DEFAULT_TOOL_CHOICE == RunSettings().tool_choice
    _, problems = run_request(["openai/m"], temperature=3.0)
    assert "temperature" in problems


def test_experiments_build_the_settings_and_differ_only_on_purpose():
    cfg = Config()
    settings = settings_for(cfg, repeats=2, seeds=[1, 2])
    assert settings.temperature == RunSettings().temperature
    assert settings.params == {"max_tokens": cfg.max_tokens} and settings.repeats == 2
    # the one default that differs, documented on Config.tool_choice: an agent in production
    assert cfg.tool_choice == PRODUCTION_TOOL_CHOICE == settings.tool_choice == "auto"
    assert "differs on purpose" in inspect.getsource(config_module)
    assert settings_for(Config(tool_choice="lookup")).tool_choice == {
        "type": "function",
        "function": {"name": "lookup"},
    }


def test_the_facade_exports_the_settings():
    assert te.RunSettings is RunSettings and te.TOOL_CHOICES == ("required", "auto", "none")


def test_a_model_dict_key_that_nearly_spells_a_field_is_refused():
    from tooleval_nb.errors import ModelConfigError
    from tooleval_nb.runner.plan import make_targets

    with pytest.raises(
        ModelConfigError,
        match=r"models\[1\]: key 'api_bse' is not a model "
        r"field; did you mean 'api_base'\?",
    ):
        make_targets(["openai/a", {"model": "openai/b", "api_bse": "http://h/v1"}])
    (target,) = make_targets(
        [{"model": "openai/b", "top_p": 0.5, "name": "B", "params": {"api_bse": 1}}]
    )
    assert target.spec.params == {"api_bse": 1, "top_p": 0.5} and target.label == "B"
