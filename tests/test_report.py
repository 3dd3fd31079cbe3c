"""Reports: parameters validated up front, the notebook executed with papermill against a real
(local fake) model server, and exported to one HTML page that draws its charts offline."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from tooleval_nb import JobError, Suite, SuiteError, Tool, ToolEvalError, report, save_suite

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "report.ipynb"


WEATHER = Tool.create(
    "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
)


def write_suite(path: Path, name: str, n: int = 3) -> Path:
    suite = Suite(
        name=name,
        tools=[WEATHER],
        cases=[
            {
                "name": f"c{i}",
                "prompt": f"get_weather city Town{i}",
                "expected_tool": "get_weather",
                "expected_params": {"city": "Town0"},
                "tags": ["smoke"] if i == 0 else ["other"],
            }
            for i in range(n)
        ],
    )
    save_suite(suite, path)
    return path


def test_shipped_template_is_the_notebook_in_the_repo():
    assert NOTEBOOK.read_bytes() == report.TEMPLATE.read_bytes()


def test_parameters_cell_matches_the_parameters_model():
    nb = nbformat.read(str(report.TEMPLATE), as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    names = {
        t.id
        for node in ast.parse(tagged[0].source).body
        if isinstance(node, ast.Assign)
        for t in node.targets
    }
    assert names == set(report.PARAMETERS)  # the run settings among them by their flat names
    # only the cells nbval checks carry their expected output
    assert all(
        not c.get("outputs") or "NBVAL_CHECK_OUTPUT" in c.source
        for c in nb.cells
        if c.cell_type == "code"
    )


@pytest.mark.parametrize(
    "values, field",
    [
        ({"temperature": 5}, "temperature"),
        ({"mode": "xml"}, "mode"),
        ({"tool_choice": "always"}, "tool_choice"),
        ({"models": []}, "models"),
        ({"models": ["bad name"]}, "models"),
        ({"max_cases": 0}, "max_cases"),
        ({"colour": "red"}, "colour"),
    ],
    ids=["temperature", "mode", "tool-choice", "no-models", "model-name", "max-cases", "unknown"],
)
def test_invalid_parameters_are_named(values, field):
    with pytest.raises(ToolEvalError, match=rf"{field}") as info:
        report.validate_params(**values)
    assert "tooleval-nb report --help" in str(info.value)


def test_every_problem_is_reported_at_once():
    with pytest.raises(ToolEvalError) as info:
        report.validate_params(temperature=-1, mode="xml")
    assert "temperature" in str(info.value) and "mode" in str(info.value)


def test_missing_suite_path(tmp_path):
    with pytest.raises(SuiteError, match="nope.json"):
        report.validate_params(suites=[str(tmp_path / "nope.json")])


def test_defaults_and_listified_values():
    params = report.validate_params(suites=None, models="a/b, c/d", mode=["native", "hermes"])
    assert params.models == ["a/b", "c/d"] and params.mode == ["native", "hermes"]
    assert params.suites == [] and params.tool_choice == "required"


def test_suites_are_filtered_by_tags_then_sliced(tmp_path):
    folder = tmp_path / "suites"
    folder.mkdir()
    write_suite(folder / "a.json", "a", 4)
    write_suite(folder / "b.json", "b", 2)
    params = report.validate_params(suites=[str(folder)], max_cases=3)
    assert [len(s) for s in report.load_report_suites(params)] == [3, 2]
    params = report.validate_params(suites=[str(folder)], tags=["smoke"])
    assert [len(s) for s in report.load_report_suites(params)] == [1, 1]
    with pytest.raises(SuiteError, match="no cases to run"):
        report.load_report_suites(report.validate_params(suites=[str(folder)], tags=["none"]))


def test_targets_cover_every_mode_and_endpoint():
    params = report.validate_params(
        models=["openai/x", "local/smollm2-135m"],
        mode=["native", "hermes"],
        api_base="http://127.0.0.1:9",
    )
    targets = report.targets(params)
    assert {"model": "openai/x", "api_base": "http://127.0.0.1:9", "mode": "hermes"} in targets
    assert {"model": "local/smollm2-135m", "mode": "native"} in targets and len(targets) == 4


def test_environment_records_versions():
    env = report.environment_info()
    assert env["packages"]["pydantic"] and env["packages"]["altair"] and env["python"]


@pytest.mark.kernel
def test_build_report_end_to_end(tmp_path, fake):
    suites = [write_suite(tmp_path / "one.json", "one"), write_suite(tmp_path / "two.json", "two")]
    files = report.build_report(
        tmp_path / "out",
        suites=[str(s) for s in suites],
        models=["openai/fake"],
        api_base=fake.url,
        mode=["native", "hermes"],
        store=str(tmp_path / "runs.sqlite"),
        title="My report <1>",
        worst=20,
        cache=False,
        timeout=300,
    )
    executed = nbformat.read(str(files.notebook), as_version=4)
    injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "My report <1>" in injected[0].source
    errors = [
        o for c in executed.cells for o in c.get("outputs", []) if o.get("output_type") == "error"
    ]
    assert errors == []
    page = files.html.read_text(encoding="utf-8")
    assert "My report &lt;1&gt;" in page
    assert page.count('class="tooleval-chart"') >= 8  # every chart embedded
    assert "window.vegaEmbed=" in page and "cdn.jsdelivr.net" not in page  # offline
    assert "report.validate_params(" not in page  # inputs hidden
    worst = page[page.index("Worst cases") :]
    assert "one/c1" in worst and 'get_weather(city="Town1")' in worst  # the calls made
    assert ">None<" not in worst
    assert "pydantic" in page and "fingerprint" in page  # configuration and versions
    assert fake.requests == 12  # 2 suites x 3 cases x 2 modes, no cache


@pytest.mark.kernel
@pytest.mark.model  # its suites run on the default model, the embedded one
def test_a_failing_cell_keeps_the_notebook_and_names_the_cell(tmp_path):
    template = tmp_path / "t.ipynb"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("title = 'x'", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("raise RuntimeError('broken cell')"),
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, str(template))
    suite = write_suite(tmp_path / "s.json", "s")
    with pytest.raises(JobError, match="RuntimeError: broken cell") as info:
        report.build_report(tmp_path / "out", template=template, suites=[str(suite)])
    assert str(tmp_path / "out" / "report.ipynb") in str(info.value)
    assert (tmp_path / "out" / "report.html").exists()


def test_styled_tables_escape_text_and_format_numbers():
    import pandas as pd

    df = pd.DataFrame({"calls": ['f(a="<script>x</script>")'], "overall": [0.5], "n": [None]})
    page = report.styled(df, {"overall": "{:.2f}"}).to_html()
    assert "&lt;script&gt;" in page and "<script>" not in page
    assert ">0.50<" in page and ">–<" in page


def test_report_files_display():
    files = report.ReportFiles(Path("a/report.ipynb"), Path("a/report.html"))
    bundle = files._repr_mimebundle_()
    assert "a/report.html" in bundle["text/plain"] and "<a href" in bundle["text/html"]
    assert json.dumps(bundle)


def _experiment_with_two_runs(tmp_path, url):
    """An experiment in a fresh store: a baseline, then a run with a system prompt (the planted
    server of the caller decides which scores better)."""
    import tooleval_nb.experiments as tx
    from tooleval_nb import load_suite

    suite = load_suite(str(write_suite(tmp_path / "exp.json", "exp", 8)))
    store = str(tmp_path / "runs.sqlite")
    exp = tx.experiment(
        "prompt-study", suite=suite, split=tx.split(suite, holdout=0.0, seed=0), store=store
    )
    base = tx.Config(model="openai/fake", api_base=url)
    exp.run(base)
    exp.run(base.merge(system_prompt="Call get_weather with city Town0."))
    return exp, store


@pytest.mark.kernel
def test_report_experiment_section(fake_server, tmp_path):

    def handler(body):  # right only with the phrase in a system prompt
        system = " ".join(
            str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
        )
        return None if "city Town0" in system else {"role": "assistant", "content": "no"}

    server = fake_server(handler=handler)
    exp, store = _experiment_with_two_runs(tmp_path, server.url)
    params = report.validate_params(store=store, experiment="prompt-study")
    opened = report.open_experiment(params)
    summary = report.experiment_summary(opened)
    assert "prompt-study" in summary and "Baseline: run" in summary
    assert exp.timeline()["kind"].tolist() == ["eval", "eval"]
    table = report.timeline_table(opened).to_html()
    assert "system_prompt" in table
    files = report.build_report(
        tmp_path / "out",
        suites=[str(tmp_path / "exp.json")],
        models=["openai/fake"],
        api_base=server.url,
        store=store,
        experiment="prompt-study",
        cache=False,
        timeout=300,
    )
    page = files.html.read_text(encoding="utf-8")
    section = page[page.index(">Experiment<") :]
    assert "prompt-study" in section and "system_prompt" in section
    assert section.count('class="tooleval-chart"') >= 1  # the timeline chart, embedded


def test_report_without_experiment_has_no_section_and_unknown_is_named(tmp_path):
    store = str(tmp_path / "runs.sqlite")
    params = report.validate_params(store=store, experiment="nope")
    with pytest.raises(ToolEvalError, match=r"no experiment 'nope'.*experiments there: none"):
        report.open_experiment(params)
    suite = write_suite(tmp_path / "s.json", "s")
    with pytest.raises(ToolEvalError, match="--experiment"):
        report.build_report(tmp_path / "out", suites=[str(suite)], store=store, experiment="nope")
    assert not (tmp_path / "out" / "report.ipynb").exists()  # failed before any kernel


def test_report_experiment_summary_lists_each_models_baseline(tmp_path, fake):
    import tooleval_nb.experiments as tx
    from tooleval_nb import load_suite

    suite = load_suite(str(write_suite(tmp_path / "two.json", "two", 6)))
    store = str(tmp_path / "runs.sqlite")
    exp = tx.experiment(
        "two-models", suite=suite, split=tx.split(suite, holdout=0.0, seed=0), store=store
    )
    for model in ("openai/small", "openai/large"):
        exp.run(tx.Config(model=model, api_base=fake.url))
    summary = report.experiment_summary(
        report.open_experiment(report.validate_params(store=store, experiment="two-models"))
    )
    assert "Baseline of openai/small" in summary and "Baseline of openai/large" in summary


# -- issue 16: reports from stored runs, the report folder's index, defaults in one place ------
def _template_namespace() -> dict:
    nb = nbformat.read(str(report.TEMPLATE), as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    namespace: dict = {}
    exec(cell.source, namespace)  # the parameters cell: plain assignments
    return namespace


def test_template_and_cli_defaults_equal_the_parameter_defaults():
    from tooleval_nb.cli import build_parser
    from tooleval_nb.cli.commands import params_of

    defaults = report.ReportParams()
    assert report.params_from(_template_namespace(), environ={}) == defaults
    assert defaults.max_cases is None and defaults.max_rounds is None  # no leaked test values
    args = build_parser().parse_args(["report", "--output", "out"])
    assert report.validate_params(**params_of(args)) == defaults
    args = build_parser().parse_args(["run"])
    assert report.validate_params(**params_of(args)) == defaults


def test_environment_overrides_the_template_parameters():
    env = {report.ENV_PARAMS: '{"max_cases": 1, "max_rounds": 3}'}
    params = report.params_from(_template_namespace(), environ=env)
    assert (params.max_cases, params.max_rounds) == (1, 3)
    with pytest.raises(ToolEvalError, match="TOOLEVAL_REPORT_PARAMS is not JSON"):
        report.params_from({}, environ={report.ENV_PARAMS: "max_cases=1"})
    with pytest.raises(ToolEvalError, match="must be a JSON object"):
        report.params_from({}, environ={report.ENV_PARAMS: "[1]"})


def _runs_in_store(tmp_path, url) -> tuple[list[str], str]:
    suites = [write_suite(tmp_path / "one.json", "one"), write_suite(tmp_path / "two.json", "two")]
    store = str(tmp_path / "runs.sqlite")
    params = report.validate_params(
        suites=[str(s) for s in suites],
        models=["openai/fake"],
        api_base=url,
        store=store,
        cache=False,
    )
    made = report.run_suites(params)
    return made.run_ids, store


@pytest.mark.kernel
def test_report_from_stored_runs_sends_no_request(tmp_path, fake, monkeypatch):
    run_ids, store = _runs_in_store(tmp_path, fake.url)
    made = fake.requests
    assert made == 6
    # rendering: the parameters still point at the server; no request may reach it
    monkeypatch.setenv(report.ENV_PARAMS, '{"runs": []}')  # kept away from the kernel
    files = report.build_report(
        tmp_path / "site",
        runs=run_ids,
        store=store,
        models=["openai/fake"],
        api_base=fake.url,
        cache=False,
        timeout=300,
    )
    assert fake.requests == made
    page = files.html.read_text(encoding="utf-8")
    assert all(r in page for r in run_ids)
    assert page.count('class="tooleval-chart"') >= 8
    assert not re.search(r"<script[^>]*src=\"https?://", page)  # nothing from the network
    assert "one/c1" in page[page.index("Worst cases") :]
    assert files.runs == tuple(run_ids)
    assert files.headline is not None and files.headline.n_results == 6
    (model,) = files.headline.models
    assert (model.model, model.n_passed, model.overall) == (
        "openai/fake",
        2,
        pytest.approx((2 + 4 * 0.6) / 6),
    )


@pytest.mark.kernel
def test_latest_reports_the_newest_run_of_each_suite(tmp_path, fake):
    run_ids, store = _runs_in_store(tmp_path, fake.url)
    newer = report.run_suites(
        report.validate_params(
            suites=[str(tmp_path / "two.json")],
            models=["openai/fake"],
            api_base=fake.url,
            store=store,
            cache=False,
            name="again",
            resume=False,
        )
    ).run_ids
    made = fake.requests
    files = report.build_report(
        tmp_path / "site",
        latest=True,
        store=store,
        timeout=300,
        suites=[str(tmp_path / "one.json"), str(tmp_path / "two.json")],
    )
    assert files.runs == (run_ids[0], newer[0]) and fake.requests == made
    with pytest.raises(report.UnknownRunError, match=r"no run of suite\(s\) 'three'"):
        write_suite(tmp_path / "three.json", "three")
        report.build_report(
            tmp_path / "site", latest=True, store=store, suites=[str(tmp_path / "three.json")]
        )


def test_unknown_run_id_fails_before_any_kernel(tmp_path, fake):
    run_ids, store = _runs_in_store(tmp_path, fake.url)
    with pytest.raises(report.UnknownRunError) as info:
        report.build_report(tmp_path / "site", runs=[run_ids[0] + "x"], store=store)
    message = str(info.value)
    assert f"nearest: {run_ids[0]}" in message and str(Path(store).resolve()) in message
    assert not (tmp_path / "site" / "report.ipynb").exists()


@pytest.mark.kernel
def test_report_folder_index_lists_every_report_newest_first(tmp_path, fake):
    run_ids, store = _runs_in_store(tmp_path, fake.url)
    site = tmp_path / "site"
    first = report.build_report(
        site, runs=run_ids[:1], store=store, title="First <one>", timeout=300
    )
    second = report.build_report(site, runs=run_ids, store=store, title="Second", timeout=300)
    manifest = report.read_manifest(site)
    assert [e.title for e in manifest.reports] == ["Second", "First <one>"]
    assert [e.headline.runs for e in manifest.reports] == [run_ids, run_ids[:1]]
    for entry in manifest.reports:
        assert (site / entry.html).is_file() and (site / entry.notebook).is_file()
    index = (site / "index.html").read_text(encoding="utf-8")
    assert index.index("Second") < index.index("First &lt;one&gt;")
    assert "<script src" not in index and "http" not in index.replace("http-equiv", "")
    assert first.index == second.index == site / "index.html"
    assert "0.733" in index  # the headline: mean overall of the 6 results


def test_sample_seeds_expand_or_must_match_repeats():
    assert report.validate_params(repeats=3, sample_seeds=[5]).sample_seeds == [5, 6, 7]
    with pytest.raises(ToolEvalError, match="sample_seeds: 2 seeds for 3 repeat"):
        report.validate_params(repeats=3, sample_seeds=[1, 2])


# -- any notebook as a report (report --notebook NAME -p KEY VALUE) ------------------------------
def _notebook(path: Path, *cells: str, parameters: str | None = "n = 2\nwords = ['a']") -> Path:
    body = [nbformat.v4.new_markdown_cell("# A small notebook")]
    if parameters is not None:
        body.append(nbformat.v4.new_code_cell(parameters, metadata={"tags": ["parameters"]}))
    body += [nbformat.v4.new_code_cell(c) for c in cells]
    nb = nbformat.v4.new_notebook(cells=body)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, str(path))
    return path


def test_notebook_parameters_are_read_and_values_coerced():
    path = ROOT / "notebooks" / "02_compare_models.ipynb"
    params = report.notebook_parameters(path)
    assert {"suite_file", "tags", "max_cases", "models", "store"} <= set(params)
    values = report.coerce_values(
        path,
        {
            "max_cases": "1",
            "tags": "smoke, hard",
            "store": "/tmp/x.db",
            "models": '["a", {"model": "b"}]',
        },
    )
    assert values == {
        "max_cases": 1,
        "tags": ["smoke", "hard"],
        "store": "/tmp/x.db",
        "models": ["a", {"model": "b"}],
    }
    assert report.coerce_values(path, {"tags": "None", "max_cases": 2}) == {
        "tags": None,
        "max_cases": 2,
    }


def test_an_unknown_parameter_or_notebook_is_named(tmp_path):
    path = ROOT / "notebooks" / "02_compare_models.ipynb"
    with pytest.raises(
        ToolEvalError,
        match=r"02_compare_models.ipynb has no parameter "
        r"'max_casse'; its parameters are: .*max_cases "
        r"\(default 3\)",
    ):
        report.coerce_values(path, {"max_casse": "1"})
    with pytest.raises(ToolEvalError, match=r"no notebook 'nope'.*02_compare_models"):
        report.find_notebook("nope")
    assert report.find_notebook("02_compare_models") == path.resolve()
    bare = _notebook(tmp_path / "bare.ipynb", "x = 1", parameters=None)
    with pytest.raises(ToolEvalError, match="bare.ipynb: no cell tagged 'parameters'"):
        report.notebook_parameters(bare)


@pytest.mark.kernel
def test_render_notebook_runs_it_with_the_values_given(tmp_path):
    nb = _notebook(
        tmp_path / "small.ipynb",
        "print('n twice:', n * 2, '| words:', words)",
        "import pandas as pd\nfrom tooleval_nb import charts\n"
        "df = pd.DataFrame({'x': list(range(n)), 'y': list(range(n))})\n"
        "import altair as alt\ncharts.offline(alt.Chart(df).mark_point().encode(x='x', y='y'))",
    )
    files = report.render_notebook(nb, tmp_path / "out", {"n": "5", "words": "b,c"})
    assert files.html == tmp_path / "out" / "small.html" and files.index.exists()
    executed = files.notebook.read_text(encoding="utf-8")
    assert "n twice: 10 | words: ['b', 'c']" in executed
    page = files.html.read_text(encoding="utf-8")
    assert 'class="tooleval-chart"' in page and "window.vegaEmbed=" in page  # drawn offline
    assert "cdn.jsdelivr" not in page and not re.search(r"<script[^>]*\bsrc=\"https?:", page)
    assert "A small notebook" in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["-p", "max_cases", "1"],
            "-p/--parameter sets a parameter of the notebook given with --notebook NAME",
        ),
        (
            ["--notebook", "02_compare_models", "--max-cases", "1"],
            "--notebook takes its values with -p KEY VALUE, not the report template's options "
            "(max_cases)",
        ),
        (
            ["--notebook", "02_compare_models", "-p", "max_casse", "1"],
            "02_compare_models.ipynb has no parameter 'max_casse'",
        ),
    ],
    ids=["p-without-notebook", "template-option", "unknown-parameter"],
)
def test_notebook_options_are_checked_before_anything_runs(argv, message, tmp_path, capsys):
    from tooleval_nb.cli import main

    assert main(["report", *argv, "--output", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.kernel
def test_the_report_kernel_talks_over_local_sockets(tmp_path):
    """papermill's kernel listens on Unix sockets (ipc): no TCP port, no "running over TCP
    without encryption" warning in the middle of the progress; papermill's own default (TCP)
    shows that warning, so the check can fail."""
    nb = _notebook(
        tmp_path / "k.ipynb",
        "from ipykernel.kernelapp import IPKernelApp\n"
        "app = IPKernelApp.instance()\n"
        "print('transport:', app.transport)\n"
        "print('ip:', app.ip)",
    )
    code = (
        "import sys, papermill\nfrom tooleval_nb.report import execute_notebook\n"
        f"src, out = {str(nb)!r}, {str(tmp_path / 'out.ipynb')!r}\n"
        "if sys.argv[1] == 'ours':\n"
        "    execute_notebook(src, out, {}, cwd=" + repr(str(tmp_path)) + ")\n"
        "else:\n"
        "    papermill.execute_notebook(src, out, progress_bar=False)\n"
    )
    # the kernels' temporary folder is this test's own: the other worker's report kernels put
    # their sockets in the shared one meanwhile (short: a Unix socket's path is at most 107 bytes)
    private = Path(tempfile.mkdtemp(prefix="te-sock-"))
    seen, ips = {}, {}
    try:
        for how in ("ours", "papermill"):
            done = subprocess.run(
                [sys.executable, "-c", code, how],
                capture_output=True,
                text=True,
                timeout=300,
                env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(private)},
            )
            assert done.returncode == 0, done.stderr[-2000:]
            outputs = nbformat.read(str(tmp_path / "out.ipynb"), as_version=4).cells[-1].outputs
            printed = dict(
                line.split(": ", 1)
                for line in "".join(o.get("text", "") for o in outputs).splitlines()
            )
            seen[how] = (printed["transport"], "without encryption" in done.stderr)
            ips[how] = printed["ip"]
        assert seen == {"ours": ("ipc", False), "papermill": ("tcp", True)}
        # our kernel's sockets were in a folder of its own in the temporary folder, removed after
        assert Path(ips["ours"]).parent.parent == private, ips
        assert not list(tmp_path.glob("kernel*"))
        assert not list(private.glob("tooleval-kernel-*"))
    finally:
        shutil.rmtree(private, ignore_errors=True)
