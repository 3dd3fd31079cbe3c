"""Config: immutability, merge, diff, canonical keys."""

from __future__ import annotations

import pydantic
import pytest

from tooleval_nb.experiments.config import Config, FewShot


def test_config_is_immutable():
    cfg = Config()
    with pytest.raises(pydantic.ValidationError):
        cfg.temperature = 0.5  # type: ignore[misc]


def test_merge_routes_flat_keys_and_removes_none():
    base = Config(params={"top_p": 0.9, "repeat_penalty": 1.1})
    new = base.merge(temperature=0.3, top_k=40, repeat_penalty=None)
    assert new.temperature == 0.3 and new.params == {"top_p": 0.9, "top_k": 40}
    assert base.params == {"top_p": 0.9, "repeat_penalty": 1.1}
    assert base.merge(params={"top_p": 0.5}).params["top_p"] == 0.5


def test_params_may_not_shadow_fields():
    with pytest.raises(pydantic.ValidationError, match="config fields"):
        Config(params={"temperature": 0.2})


def test_diff_and_describe():
    base = Config(system_prompt="Be brief.")
    new = base.merge(temperature=0.3, system_prompt="Be brief.\nCall tools.", top_p=0.9)
    assert new.diff(base) == {
        "temperature": (0.3, 0.0),
        "system_prompt": ("Be brief.\nCall tools.", "Be brief."),
        "top_p": (0.9, None),
    }
    text = new.describe_diff(base)
    assert "temperature 0→0.3" in text and "system_prompt +1 line" in text
    assert base.describe_diff(base) == "(same as baseline)"


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (Config(params={"top_p": 0.8}), Config(params={"top_p": 1.0}), True),
        (Config(params={"seed": 1, "min_p": 0.1}), Config(), True),
        (
            Config(temperature=0.7, params={"top_p": 0.8}),
            Config(temperature=0.7, params={"top_p": 1.0}),
            False,
        ),
        (Config(params={"repeat_penalty": 1.1}), Config(), False),
        (Config(temperature=0.3), Config(temperature=0.30000000000000004), True),
        (Config(tool_choice="required"), Config(), False),
    ],
    ids=[
        "greedy-top_p",
        "greedy-seed-min_p",
        "sampled-top_p",
        "repeat_penalty",
        "float-noise",
        "tool_choice",
    ],
)
def test_canonical_key_collapses_only_equivalent_configs(a, b, same):
    assert (a.key == b.key) is same


def test_canonical_reports_adjustments():
    cfg, notes = Config(params={"top_p": 0.8, "mirostat": 2}).canonical_with_adjustments(
        supported={"top_p", "repeat_penalty"}
    )
    assert cfg.params == {}
    assert any("top_p" in n and "temperature 0" in n for n in notes)
    assert any("mirostat" in n and "not supported" in n for n in notes)


def test_json_round_trip_and_hash():
    cfg = Config(
        temperature=0.7,
        few_shot=(FewShot(user="hi", calls=({"name": "f", "arguments": {}},)),),
        params={"top_p": 0.9},
    )
    again = Config.from_json(cfg.to_json())
    assert again == cfg and hash(again) == hash(cfg) and again.key == cfg.key
    assert {cfg, again} == {cfg}
    assert Config.from_json(None) == Config()


def test_the_default_model_is_the_models_layers():
    from tooleval_nb import models

    assert Config().model == models.DEFAULT_MODEL


def test_repr_shows_changes_only():
    assert repr(Config()) == "Config()"
    assert repr(Config(temperature=0.7)) == "Config(temperature=0.7)"


def test_params_and_few_shot_are_read_only():
    cfg = Config(
        temperature=0.7,
        params={"top_p": 0.9, "stop": ["\n"], "logit_bias": {"1": 2}},
        few_shot=(FewShot(user="hi", calls=({"name": "f", "arguments": {"city": "Oslo"}},)),),
    )
    key = cfg.key
    with pytest.raises(TypeError, match="immutable"):
        cfg.params["top_p"] = 0.5  # type: ignore[index]
    with pytest.raises(TypeError, match="immutable"):
        cfg.params.update(top_p=0.5)
    with pytest.raises(TypeError, match="immutable"):
        del cfg.params["top_p"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="immutable"):
        cfg.params["logit_bias"]["1"] = 3
    with pytest.raises(AttributeError):
        cfg.params["stop"].append("x")
    with pytest.raises(TypeError, match="immutable"):
        cfg.few_shot[0].calls[0]["arguments"]["city"] = "Bergen"
    assert cfg.key == key and hash(cfg) == hash(Config.from_json(cfg.to_json()))
    # the public API still works on the frozen values
    assert cfg.merge(top_p=0.5).params["top_p"] == 0.5 and cfg.params["top_p"] == 0.9
    assert cfg.diff(Config())["stop"] == (["\n"], None)
    assert Config.from_json(cfg.to_json()) == cfg and dict(cfg.params)["top_p"] == 0.9
    merged = Config(temperature=0.7).merge(**cfg.params)
    assert merged.key == Config(temperature=0.7, params=dict(cfg.params)).key


def test_params_are_frozen_on_merge_and_copy():
    import copy
    import pickle

    cfg = Config(temperature=0.7).merge(top_p=0.9)
    for other in (
        cfg.merge(top_k=40),
        copy.deepcopy(cfg),
        pickle.loads(pickle.dumps(cfg)),
        cfg.model_copy(deep=True),
        cfg.canonical(),
    ):
        assert other.params.get("top_p") == 0.9
        with pytest.raises(TypeError):
            other.params["top_p"] = 0.1  # type: ignore[index]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (
            Config(temperature=0.7, params={"top_p": 1}),
            Config(temperature=0.7).merge(top_p=1.0),
            True,
        ),
        (
            Config(temperature=0.7, params={"top_k": 40.0}),
            Config(temperature=0.7, params={"top_k": 40}),
            True,
        ),
        (
            Config(params={"repeat_penalty": 1}),
            Config(params={"repeat_penalty": 1.0000000001}),
            True,
        ),
        (
            Config(temperature=0.7, params={"top_p": 1}),
            Config(temperature=0.7, params={"top_p": 1.5}),
            False,
        ),
        (Config(params={"flag": True}), Config(params={"flag": 1}), False),
        (Config(params={"flag": False}), Config(params={"flag": 0.0}), False),
        (Config(params={"stop": [1.0, 2]}), Config(params={"stop": [1, 2.0]}), True),
    ],
    ids=[
        "int-vs-float",
        "float-vs-int",
        "rounded-whole",
        "different",
        "bool-is-not-int",
        "bool-is-not-float",
        "nested",
    ],
)
def test_key_normalises_numbers_but_not_bools(a, b, same):
    assert (a.key == b.key) is same
