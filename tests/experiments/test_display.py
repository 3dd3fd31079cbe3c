"""Rich display of the experiment objects renders HTML (never silently falls back)."""

from __future__ import annotations

import tooleval_nb.experiments as tx
from tooleval_nb.experiments.evaluate import evaluate


def test_objects_render_html(suite, store, fake_server):
    server = fake_server()
    base = tx.Config(model="openai/fake", api_base=server.url)
    exp = tx.experiment("d", suite=suite, store=store)
    exp.run(base)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(tool_choice=["auto", "required"]),
        store=store,
        preflight=False,
    )
    ev = evaluate(suite, base, [c.id for c in suite.cases[:4]], store=store)
    rep = tx.judge_report(ev.results, judge_model=base, max_llm_calls=1, store=store)
    for obj, needle in ((exp, "<table"), (sw, "<table"), (rep, "Judge report")):
        bundle = obj._repr_mimebundle_()
        assert "text/html" in bundle and needle in bundle["text/html"], type(obj)
    assert "Sweep(" in repr(sw) and "Experiment(" in repr(exp) and "JudgeReport(" in repr(rep)


def test_estimate_probe(suite, store, fake_server, capsys):
    server = fake_server()
    est = tx.estimate(suite, tx.Config(model="openai/fake", api_base=server.url), 100, store=store)
    assert est.probe_calls == 3 and server.requests == 3 and est.seconds_per_call > 0
    assert "ETA" in capsys.readouterr().out and "100 calls" in str(est)


def test_html_table_shortens_and_escapes():
    import pandas as pd

    from tooleval_nb.experiments.display import html_table

    df = pd.DataFrame({"text": ["<script>x</script>" + "a" * 100, "short"], "n": [1.23456, 2]})
    out = html_table(df, max_chars=30, max_rows=1)
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "…" in out and "a" * 40 not in out and "short" not in out and "1.235" in out


def test_long_prompts_and_case_details_render(suite, store, fake_server):
    """The HTML of an experiment with a long <tagged> prompt and a judge report's evidence."""
    server = fake_server(handler=lambda body: {"role": "assistant", "content": "<b>no</b>"})
    base = tx.Config(
        model="openai/fake", api_base=server.url, system_prompt="<b>Rule</b> " + "be careful " * 30
    )
    exp = tx.experiment("html", suite=suite, store=store)
    run = exp.run(base)
    html = exp._repr_mimebundle_()["text/html"]
    assert "<b>Rule</b>" not in html and "<table" in html
    rep = tx.judge_report(run, judge_model=base, max_llm_calls=1, store=store)
    page = rep.to_html()
    assert page.count("<details") >= 1 and "get_weather city Town" in page
    assert "<b>no</b>" not in page and "&lt;b&gt;no&lt;/b&gt;" in page
