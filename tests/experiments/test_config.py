"""Config: immutability, merge, diff, canonical keys."""

from __future__ import annotations

import pydantic
import pytest

from tooleval_nb.experiments.config import DEFAULT_MODEL_NAME, Config, FewShot


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
    assert new.diff(base) == {"temperature": (0.3, 0.0),
                              "system_prompt": ("Be brief.\nCall tools.", "Be brief."),
                              "top_p": (0.9, None)}
    text = new.describe_diff(base)
    assert "temperature 0→0.3" in text and "system_prompt +1 line" in text
    assert base.describe_diff(base) == "(same as baseline)"


@pytest.mark.parametrize(("a", "b", "same"), [
    (Config(params={"top_p": 0.8}), Config(params={"top_p": 1.0}), True),
    (Config(params={"seed": 1, "min_p": 0.1}), Config(), True),
    (Config(temperature=0.7, params={"top_p": 0.8}), Config(temperature=0.7, params={"top_p": 1.0}),
     False),
    (Config(params={"repeat_penalty": 1.1}), Config(), False),
    (Config(temperature=0.3), Config(temperature=0.30000000000000004), True),
    (Config(tool_choice="required"), Config(), False),
], ids=["greedy-top_p", "greedy-seed-min_p", "sampled-top_p", "repeat_penalty", "float-noise",
        "tool_choice"])
def test_canonical_key_collapses_only_equivalent_configs(a, b, same):
    assert (a.key == b.key) is same


def test_canonical_reports_adjustments():
    cfg, notes = Config(params={"top_p": 0.8, "mirostat": 2}).canonical_with_adjustments(
        supported={"top_p", "repeat_penalty"})
    assert cfg.params == {}
    assert any("top_p" in n and "temperature 0" in n for n in notes)
    assert any("mirostat" in n and "not supported" in n for n in notes)


def test_json_round_trip_and_hash():
    cfg = Config(temperature=0.7, few_shot=(FewShot(user="hi", calls=({"name": "f",
                                                                       "arguments": {}},)),),
                 params={"top_p": 0.9})
    again = Config.from_json(cfg.to_json())
    assert again == cfg and hash(again) == hash(cfg) and again.key == cfg.key
    assert {cfg, again} == {cfg}
    assert Config.from_json(None) == Config()


def test_default_model_matches_models_layer():
    models = pytest.importorskip("tooleval_nb.models")
    assert models.DEFAULT_MODEL == DEFAULT_MODEL_NAME


def test_repr_shows_changes_only():
    assert repr(Config()) == "Config()"
    assert repr(Config(temperature=0.7)) == "Config(temperature=0.7)"
