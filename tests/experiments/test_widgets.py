"""The experiment layer seen through its charts (``to_dict``) and views (trait values, button
clicks), no browser."""

from __future__ import annotations

import json

import ipywidgets as widgets
import pytest

import tooleval_nb.experiments as tx
from tooleval_nb import charts
from tooleval_nb.errors import ExperimentError
from tooleval_nb.widgets import experiment_view, prompt_tune_view, sweep_form, sweep_view
from tooleval_nb.widgets.sweep_panel import parse_values, space_from_fields

WRONG = {"role": "assistant", "content": "no"}


def required_only(body):
    return None if body.get("tool_choice") == "required" else WRONG


@pytest.fixture
def finished(suite, store, fake_server):
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    exp = tx.experiment("w", suite=suite, store=store)
    exp.run(base)
    sw = exp.sweep(
        tx.space(tool_choice=["auto", "required"], max_tokens=[128, 256]),
        budget=tx.Budget(calls=300),
        preflight=False,
    )
    return exp, sw, base


@pytest.mark.parametrize(
    ("values", "want"),
    [
        ("0, 0.7", [0, 0.7]),
        ("auto, required", ["auto", "required"]),
        ("", []),
        (" 128 ,256,", [128, 256]),
    ],
    ids=["numbers", "strings", "empty", "spaces"],
)
def test_parse_values(values, want):
    assert parse_values(values) == want


def test_space_from_fields_skips_empty():
    sp = space_from_fields({"temperature": "0, 0.7", "top_p": ""})
    assert sp.keys == ["temperature"]


def test_charts_render(finished):
    exp, sw, _ = finished
    for chart in (
        charts.timeline_chart(exp.timeline()),
        charts.forest_chart(sw.trials_df()),
        charts.effects_chart(sw.effects_df()),
    ):
        spec = chart.to_dict()
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite")
    forest = charts.forest_chart(sw.trials_df()).to_dict()
    states = {
        row["state"] for rows in forest["datasets"].values() for row in rows if "state" in row
    }
    assert {"significant", "base"} <= states <= {"significant", "alive", "eliminated", "base"}
    tl = charts.timeline_chart(exp.timeline()).to_dict()
    marks = [layer["mark"] for layer in tl["layer"]]
    assert {"type": "text", "text": "★", "size": 18, "dy": -14} in marks


def test_experiment_widget_buttons(finished, capsys):
    exp, _, _ = finished
    box = experiment_view(exp)
    assert isinstance(box, widgets.VBox)
    row = box.children[2].children
    buttons = [w for w in row if isinstance(w, widgets.Button)]
    assert [b.description for b in buttons] == ["Pin baseline", "Run best", "Open entry"]
    n = len(exp.timeline())
    buttons[1].click()  # no running loop here: runs to completion
    assert len(exp.timeline()) == n + 1
    assert "best:" in box.children[3].value
    dropdown, tl = row[0], exp.timeline()
    sweep_entry = int(tl.loc[tl["kind"] == "sweep", "entry_id"].iloc[0])
    dropdown.value = sweep_entry
    buttons[0].click()  # a sweep entry cannot be pinned: said, not raised
    assert "pick an eval or confirm entry" in box.children[3].value
    capsys.readouterr()
    buttons[2].click()  # without a kernel the Output widget lets the display through
    assert "sweep_id" in capsys.readouterr().out  # the sweep's trials table is shown
    trials = exp.open_entry(sweep_entry)
    assert len(trials) == len(sw_trials(exp)) and "canonical_key" in trials
    run = exp.open_entry(int(tl["entry_id"].iloc[0]))
    assert run.id == tl["run_id"].iloc[0]
    with pytest.raises(ExperimentError, match="no entry 999"):
        exp.open_entry(999)


def sw_trials(exp):
    tl = exp.timeline()
    sweep_id = tl.loc[tl["kind"] == "sweep", "ref_id"].iloc[0]
    return exp.store.select("sweep_trials", {"sweep_id": sweep_id})


def test_sweep_and_tune_widgets(finished, suite, store):
    exp, sw, base = finished
    w = sweep_view(sw)
    promote = w.children[2].children[1]
    assert not promote.disabled  # linked to an experiment
    pt = tx.tune_prompt(
        suite,
        base,
        split=exp.split,
        meta_model=None,
        operators="rules",
        population=2,
        generations=1,
        store=store,
        budget=tx.Budget(calls=200),
    )
    pw = prompt_tune_view(pt)
    button = [c for c in pw.children if isinstance(c, widgets.Button)][0]
    assert button.disabled and "nothing to promote" in button.tooltip
    for chart in (
        charts.candidates_chart(pt.candidates_df()),
        charts.best_so_far_chart(pt.generations_df()),
        charts.candidate_heatmap(pt.case_matrix_df()),
    ):
        chart.to_dict()


def test_sweep_form_runs_and_shows_results(suite, store, fake_server):
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    form = sweep_form(suite, base, store=store, calls=200)
    form.fields["temperature"].value = "0"
    form.fields["tool_choice"].value = "auto, required"
    form.strategy.value = "grid"
    form.run.click()
    assert form.sweep is not None and form.sweep.best.tool_choice == "required"
    assert form.bar.value > 0 and form.result_box.children
    form.fields["temperature"].value = "0"
    form.fields["tool_choice"].value = ""
    form.fields["top_p"].value = ""
    form.run.click()  # nothing swept but temperature=0: still a valid one-trial space
    assert "color:#c00" not in form.status.value


def test_judge_failure_chart(finished):
    exp, sw, base = finished
    rep = tx.judge_report(
        exp._frame([exp.baseline.run_id]), judge_model=base, max_llm_calls=1, store=exp.store.runs
    )
    spec = charts.failure_modes_chart(rep.failure_modes_df()).to_dict()
    assert spec["mark"] in ("bar", {"type": "bar"})


PHRASE = "Consult the forecast oracle."


def phrase_server(body):
    system = " ".join(
        str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
    )
    if "You write system prompts" in system:
        return {
            "role": "assistant",
            "content": json.dumps(
                {
                    "prompts": [
                        {"text": f"You help with weather. {PHRASE}", "rationale": "the phrase"}
                    ]
                }
            ),
        }
    return None if PHRASE in system else WRONG


def promote_button(box) -> widgets.Button:
    return next(c for c in box.children if isinstance(c, widgets.Button))


def test_prompt_tune_widget_promotes_into_its_experiment(suite, store, fake_server, tmp_path):
    server = fake_server(handler=phrase_server)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(suite, holdout=0.3, seed=0)
    args = dict(
        meta_model=cfg,
        population=2,
        generations=1,
        budget=tx.Budget(calls=400),
        search_few_shot=False,
    )
    exp = tx.experiment("pw", suite=suite, split=sp, store=store)
    exp.run(cfg)
    pt = exp.tune_prompt(auto_promote=False, **args)
    assert pt.winner is not None and pt.experiment is exp
    box = prompt_tune_view(pt)  # no browser: built on a dummy comm, checked through its traits
    button = promote_button(box)
    assert not button.disabled and button.tooltip == "promote the winner"
    button.click()  # no running loop here: the promotion runs to completion
    assert PHRASE in (exp.best.config.system_prompt or "")
    assert exp.best.source == f"prompt_tune:{pt.id}"
    assert button.disabled and "already promoted into experiment 'pw'" in button.tooltip
    assert "promoted: True" in box.children[-1].value
    # a tune auto-promoted by exp.tune_prompt says so; an unlinked one says how to link it
    exp2 = tx.experiment("pw2", suite=suite, split=sp, store=store)
    exp2.run(cfg)
    linked = promote_button(prompt_tune_view(exp2.tune_prompt(**args)))
    assert linked.disabled and "already promoted into experiment 'pw2'" in linked.tooltip
    alone = tx.tune_prompt(suite, cfg, split=sp, store=str(tmp_path / "alone.db"), **args)
    unlinked = promote_button(prompt_tune_view(alone))
    assert alone.winner is not None and unlinked.disabled
    assert "pass experiment=" in unlinked.tooltip
    # an explicit experiment argument still wins over the tune's own link
    assert not promote_button(prompt_tune_view(alone, exp2)).disabled


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        tx.nope  # noqa: B018
