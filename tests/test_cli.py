"""The console script: options, the run command's tables, exit codes and messages."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval_nb import Suite, Tool, save_suite
from tooleval_nb.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent


WEATHER = Tool.create(
    "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
)


@pytest.fixture
def suite_file(tmp_path) -> Path:
    path = tmp_path / "w.json"
    save_suite(
        Suite(
            name="cli weather",
            tools=[WEATHER],
            cases=[
                {
                    "name": "paris",
                    "prompt": "get_weather city Paris",
                    "expected_tool": "get_weather",
                    "expected_params": {"city": "Paris"},
                    "tags": ["smoke"],
                },
                {
                    "name": "rome",
                    "prompt": "get_weather city Milan",
                    "expected_tool": "get_weather",
                    "expected_params": {"city": "Rome"},
                },
            ],
        ),
        path,
    )
    return path


def test_parser_accepts_repeated_and_listed_options():
    args = build_parser().parse_args(
        [
            "report",
            "--suite",
            "a",
            "--suite",
            "b",
            "c",
            "--model",
            "m1",
            "--model",
            "m2",
            "--mode",
            "native",
            "--mode",
            "hermes",
            "--output",
            "out",
            "--tags",
            "x,y",
            "--max-cases",
            "3",
            "--temperature",
            "0.5",
            "--tool-choice",
            "auto",
            "--title",
            "T",
        ]
    )
    assert args.suites == ["a", "b", "c"] and args.models == ["m1", "m2"]
    assert args.modes == ["native", "hermes"] and args.max_cases == 3


def test_run_prints_one_table_per_suite(suite_file, fake, tmp_path):
    out = io.StringIO()
    code = main(
        [
            "run",
            "--suite",
            str(suite_file),
            "--model",
            "openai/fake",
            "--api-base",
            fake.url,
            "--store",
            str(tmp_path / "s.sqlite"),
        ],
        out=out,
    )
    text = out.getvalue()
    assert code == 0, text
    assert "suite: cli weather (2 cases)" in text
    line = next(x for x in text.splitlines() if "openai/fake" in x)
    assert "50.0%" in line  # one of two passes


def test_run_as_json_with_tags(suite_file, fake, tmp_path):
    out = io.StringIO()
    code = main(
        [
            "run",
            "--suite",
            str(suite_file),
            "--model",
            "openai/fake",
            "--api-base",
            fake.url,
            "--store",
            str(tmp_path / "s.sqlite"),
            "--tags",
            "smoke",
            "--format",
            "json",
        ],
        out=out,
    )
    assert code == 0
    rows = json.loads(out.getvalue())
    assert [r["case_id"] for r in rows] == ["paris"] and rows[0]["passed"] is True


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "--suite", "/nonexistent/suite.json"], "suite path(s) not found"),
        (["run", "--temperature", "7"], "temperature"),
        (["report", "--output", "x", "--max-cases", "0"], "max_cases"),
    ],
    ids=["missing-suite", "temperature", "max-cases"],
)
def test_configuration_errors_exit_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith(f"tooleval-nb {argv[0]}: error:")


def test_report_needs_an_output(capsys):
    with pytest.raises(SystemExit) as info:
        main(["report", "--suite", "x"])
    assert info.value.code == 2 and "--output" in capsys.readouterr().err


def test_console_script_is_installed():
    exe = Path(sys.executable).with_name("tooleval-nb")
    result = subprocess.run(
        [str(exe), "report", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    for option in (
        "--suite",
        "--model",
        "--output",
        "--mode",
        "--tool-choice",
        "--max-cases",
        "--tags",
        "--store",
        "--title",
        "--temperature",
    ):
        assert option in result.stdout


@pytest.mark.process
def test_a_provider_without_a_key_exits_1_with_one_clean_message(tmp_path, suite_file):
    """Real litellm, offline, in a process of its own: the job fails at once (exit 1) on the
    missing key, and the calls it cancels leave no "coroutine ... was never awaited" notice."""
    exe = Path(sys.executable).with_name("tooleval-nb")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY")}
    result = subprocess.run(
        [
            str(exe),
            "run",
            "--suite",
            str(suite_file),
            "--model",
            "openai/gpt-4o-mini",
            "--store",
            str(tmp_path / "s.sqlite"),
            "--progress",
            "none",
            "--max-concurrency",
            "4",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 1, result.stderr
    assert "never awaited" not in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("tooleval-nb run: error: job ")
    assert "OPENAI_API_KEY" in result.stderr and "no API key for this provider" in result.stderr


# -- issue 16: CI gates, every run_eval option, history / export / validate / convert ----------
def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


@pytest.fixture
def stored_run(suite_file, fake, tmp_path) -> tuple[str, str]:
    """One run of the two-case suite against the fake server: (run id, store path)."""
    store = str(tmp_path / "s.sqlite")
    code, text = run_cli(
        "run",
        "--suite",
        str(suite_file),
        "--model",
        "openai/fake",
        "--api-base",
        fake.url,
        "--store",
        store,
        "--progress",
        "none",
    )
    assert code == 0, text
    run_id = text.strip().splitlines()[-1].removeprefix("runs: ")
    assert run_id.startswith("run_")
    return run_id, store


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("tooleval-nb ")


@pytest.mark.parametrize(
    "gate, code, reason",
    [
        (["--fail-under", "0.5"], 0, None),
        (
            ["--fail-under", "0.9"],
            3,
            "openai/fake: mean overall 0.800 < --fail-under 0.9 over 2 results",
        ),
        (["--fail-on-errors"], 0, None),
    ],
    ids=["score-met", "score-under", "no-errors"],
)
def test_run_gates_exit_3_with_one_line_reason(
    gate, code, reason, suite_file, fake, tmp_path, capsys
):
    result, _ = run_cli(
        "run",
        "--suite",
        str(suite_file),
        "--model",
        "openai/fake",
        "--api-base",
        fake.url,
        "--store",
        str(tmp_path / "s.sqlite"),
        "--progress",
        "none",
        *gate,
    )
    err = capsys.readouterr().err
    assert result == code
    if reason:
        assert err.strip() == f"tooleval-nb run: gate failed: {reason}"
    else:
        assert "gate failed" not in err


def test_fail_on_errors(tmp_path, fake, capsys):
    path = tmp_path / "e.json"
    save_suite(
        Suite(
            name="errors",
            tools=[WEATHER],
            cases=[
                {"name": "ok", "prompt": "get_weather city Paris", "expected_tool": "get_weather"},
                {
                    "name": "bad",
                    "prompt": "get_weather city Oslo [fault:400]",
                    "expected_tool": "get_weather",
                },
            ],
        ),
        path,
    )
    code, _ = run_cli(
        "run",
        "--suite",
        str(path),
        "--model",
        "openai/fake",
        "--api-base",
        fake.url,
        "--store",
        str(tmp_path / "s.sqlite"),
        "--progress",
        "none",
        "--fail-on-errors",
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert err[-1].startswith(
        "tooleval-nb run: gate failed: 1 of 2 results errored "
        "(--fail-on-errors), first: openai/fake on case bad: "
    )


def test_run_says_why_cases_errored_without_a_gate(tmp_path, capsys):
    path = tmp_path / "w.json"
    save_suite(
        Suite(
            name="down",
            tools=[WEATHER],
            cases=[
                {"name": n, "prompt": f"get_weather city {n}", "expected_tool": "get_weather"}
                for n in ("Paris", "Oslo")
            ],
        ),
        path,
    )
    code, text = run_cli(
        "run",
        "--suite",
        str(path),
        "--model",
        "openai/nobody",
        "--api-base",
        "http://127.0.0.1:9/v1",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--progress",
        "none",
        "--retries",
        "0",
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 0, text  # no gate: the table is the answer, the note says why
    assert err[-1].startswith(
        "tooleval-nb run: errors: openai/nobody: 2 of 2 cases errored; "
        "2x ModelConnectionError: cannot connect to http://127.0.0.1:9/v1"
    )


def test_error_notes_name_the_commonest_error_per_model():
    import pandas as pd

    from tooleval_nb.cli.gate import NOTE_CHARS, error_notes

    long = "z" * 300
    results = pd.DataFrame(
        {
            "model": ["a", "a", "a", "b", "c", "c"],
            "error": [None, "boom", "boom", None, long, "other"],
            "error_type": [None, "ModelServerError", "ModelServerError", None, None, "X"],
        }
    )
    notes = error_notes(results)
    assert notes[0] == "a: 2 of 3 cases errored; 2x ModelServerError: boom"
    assert notes[1].startswith("c: 2 of 2 cases errored; 1x zzz")
    assert notes[1].endswith("...; 1 other error message(s)")
    assert len(notes) == 2 and len(notes[1].split("1x ")[1].split("...")[0]) == NOTE_CHARS - 3
    assert error_notes(results.iloc[:0]) == []


def test_every_run_eval_option_is_reachable_from_the_command_line():
    import inspect

    from tooleval_nb import report
    from tooleval_nb.cli.commands import params_of
    from tooleval_nb.runner import RunSettings, run_eval

    args = build_parser().parse_args(
        [
            "run",
            "--max-concurrency",
            "3",
            "--repeats",
            "2",
            "--seed",
            "7",
            "--param",
            "top_p=0.9",
            "--param",
            'stop=["x"]',
            "--param",
            "user=me",
            "--rpm",
            "60",
            "--tpm",
            "1000",
            "--request-timeout",
            "5",
            "--case-timeout",
            "9",
            "--retries",
            "1",
            "--name",
            "ci",
            "--no-resume",
            "--include-drafts",
            "--no-code-graders",
            "--live-tools",
            "http://127.0.0.1:1/mcp",
            "--live-tool-timeout",
            "4",
            "--ids",
            "a,b",
            "--tags",
            "t",
            "--no-cache",
            "--max-rounds",
            "2",
            "--system-prompt",
            "S",
            "--mode",
            "hermes",
            "--temperature",
            "0.3",
            "--tool-choice",
            "auto",
            "--agent",
            "json:loads",
            "--parser-compat",
            "vllm",
        ]
    )
    options = report.run_options(report.validate_params(**params_of(args)))
    settings = options.pop("settings")
    assert settings.max_concurrency == 3 and settings.repeats == 2
    assert settings.seeds == [7, 8]  # one seed: consecutive seeds for the samples
    assert settings.params == {"top_p": 0.9, "stop": ["x"], "user": "me"}
    assert (settings.rpm, settings.tpm, settings.timeout) == (60, 1000, 5)
    assert (settings.case_timeout, settings.retries, options["name"]) == (9, 1, "ci")
    assert options["resume"] is False and settings.include_drafts is True
    assert settings.code_graders is False and settings.parser_compat == "vllm"
    assert settings.live_tools == "http://127.0.0.1:1/mcp" and settings.live_tool_timeout == 4
    assert settings.ids == ["a", "b"] and settings.cache is False and settings.tags == ["t"]
    assert (settings.max_rounds, settings.system_prompt) == (2, "S")
    assert (settings.temperature, settings.tool_choice) == (0.3, "auto")
    assert options["mode"] == "hermes" and options["agent"] is json.loads
    # every run setting and job option has a flag, but how Python code hooks in
    given = {
        name
        for name, value in settings
        if value != RunSettings.model_fields[name].get_default(call_default_factory=True)
    }
    given |= set(options)
    by_python = {"callbacks", "progress", "retry", "executor", "live_tools", "agent"}
    missing = (
        (set(RunSettings.model_fields) | set(inspect.signature(run_eval).parameters))
        - given
        - by_python
        - {"suite", "models", "settings", "overrides", "store"}
    )
    assert missing == set(), f"run_eval options without a CLI flag: {missing}"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "--repeats", "2", "--seed", "1", "2", "3"], "sample_seeds: 3 seeds for 2 repeat"),
        (["run", "--agent", "no_colon"], "is not 'module:callable'"),
        (["run", "--max-concurrency", "0"], "max_concurrency"),
        (["run", "--max-cases", "0"], "(tooleval-nb run --help lists every option)"),
        (
            ["report", "--max-cases", "0", "--output", "o"],
            "(tooleval-nb report --help lists every option)",
        ),
    ],
    ids=["seeds-vs-repeats", "agent-path", "concurrency", "run-help", "report-help"],
)
def test_run_option_errors_exit_2(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_param_must_be_key_value(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--param", "novalue"])
    assert info.value.code == 2 and "is not KEY=VALUE" in capsys.readouterr().err


def test_history_lists_the_store(stored_run):
    run_id, store = stored_run
    code, text = run_cli("history", "--store", store)
    assert code == 0
    assert text.splitlines()[0] == f"store: {Path(store).resolve()}"
    row = next(line for line in text.splitlines() if run_id in line)
    assert "cli weather" in row and "openai/fake" in row and "50.0%" in row and "completed" in row
    code, text = run_cli("history", "--store", store, "--format", "json", "--suite", "nope")
    assert code == 0 and json.loads(text) == []


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_formats(fmt, stored_run, tmp_path):
    import pandas as pd

    run_id, store = stored_run
    target = tmp_path / f"out.{fmt}"
    code, text = run_cli("export", run_id, "--format", fmt, "--store", store, "-o", str(target))
    assert code == 0 and text.strip() == str(target)
    if fmt == "csv":
        df = pd.read_csv(target)
        assert json.loads(df["tool_calls"][0])[0]["function"]["name"] == "get_weather"
    elif fmt == "jsonl":
        rows = [json.loads(line) for line in target.read_text().splitlines()]
        assert rows[0]["tool_calls"][0]["function"]["name"] == "get_weather"  # decoded
        df = pd.DataFrame(rows)
    else:
        df = pd.read_parquet(target)
    assert sorted(df["case_id"]) == ["paris", "rome"] and len(df.columns) > 30


def test_export_calls_table_to_stdout(stored_run):
    run_id, store = stored_run
    code, text = run_cli(
        "export", run_id, "--table", "calls", "--format", "jsonl", "--store", store, "-o", "-"
    )
    rows = [json.loads(line) for line in text.splitlines()]
    assert code == 0 and [(r["case_id"], r["arg_city"], r["matched"]) for r in rows] == [
        ("paris", "Paris", True),
        ("rome", "Milan", False),
    ]


@pytest.mark.process
def test_export_parquet_without_pyarrow_names_the_package(stored_run, tmp_path):
    run_id, store = stored_run
    code = (
        "import sys; sys.modules['pyarrow'] = None; from tooleval_nb.cli import main; "
        f"raise SystemExit(main(['export', {run_id!r}, '--format', 'parquet', '--store', "
        f"{store!r}, '-o', {str(tmp_path / 'x.parquet')!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "pip install pyarrow" in done.stderr and "tooleval_nb[parquet]" in done.stderr
    assert not (tmp_path / "x.parquet").exists()


def test_unknown_run_id_names_the_store_and_the_nearest_ids(stored_run, capsys):
    run_id, store = stored_run
    wrong = run_id[:-2] + ("00" if not run_id.endswith("00") else "11")
    assert main(["export", wrong, "--store", store]) == 2
    err = capsys.readouterr().err
    assert f"no run {wrong!r} (nearest: {run_id}" in err
    assert str(Path(store).resolve()) in err and "tooleval-nb history" in err


SEED_WITH_ALTERNATIVES = {
    "name": "seed",
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
            },
        }
    ],
    "test_cases": [
        {"name": "find", "prompt": "find cats", "expected_tool": ["search", "web_search"]}
    ],
}


def test_validate_lists_every_problem_and_warning(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(SEED_WITH_ALTERNATIVES))
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                **SEED_WITH_ALTERNATIVES,
                "test_cases": [
                    {"name": "a", "prompt": "x", "expected_tool": "serch"},
                    {"name": "b", "prompt": "y", "expected_tool": ["web_search", "bing"]},
                ],
            }
        )
    )
    code, text = run_cli("validate", str(good))
    assert code == 0
    assert text.splitlines()[0] == f"{good}: ok (1 suite(s), 1 case(s), 1 warning(s))"
    assert (
        f"warning: {good}: case 0 ('find'): field expected_tool[1]: acceptable tool "
        "'web_search' is not offered"
    ) in text
    code, text = run_cli("validate", str(good), str(bad))
    assert code == 1
    assert f"{bad}: 2 problem(s)" in text
    assert "case 0 ('a'): field expected_tool: tool 'serch' is not among" in text
    assert (
        "case 1 ('b'): field expected_tool: none of the acceptable tools ['web_search', "
        "'bing'] is among the tools offered (search)"
    ) in text


def test_convert_lists_what_the_target_cannot_hold(tmp_path):
    source = ROOT / "data" / "weather.json"
    code, text = run_cli("convert", str(source), str(tmp_path / "w.yaml"))
    assert code == 0 and text.splitlines()[-1] == "nothing was lost"
    code, text = run_cli("convert", str(tmp_path / "w.yaml"), str(tmp_path / "bfcl"))
    assert code == 0 and "as bfcl:" in text and "bfcl cannot hold" in text
    assert "case 0 ('weather_paris'): field tags:" in text
    assert (tmp_path / "bfcl" / "possible_answer").is_dir()
    code, _ = run_cli("convert", str(source), str(tmp_path / "w.yaml"))
    assert code == 2  # exists: --force to overwrite


@pytest.mark.kernel
def test_report_from_stored_run_calls_no_model_and_gates(stored_run, fake, tmp_path, capsys):
    run_id, store = stored_run
    before = fake.requests
    code, text = run_cli(
        "report",
        "--run",
        run_id,
        "--store",
        store,
        "--output",
        str(tmp_path / "site"),
        "--fail-under",
        "0.9",
        "--timeout",
        "300",
    )
    assert fake.requests == before  # rendered from the store
    assert code == 3 and "gate failed: openai/fake: mean overall 0.800" in capsys.readouterr().err
    assert f"index: {tmp_path / 'site' / 'index.html'}" in text
    assert run_id in (tmp_path / "site" / "index.html").read_text()


def test_report_output_that_cannot_be_written_fails_before_any_work(
    suite_file, fake, tmp_path, capsys
):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, _ = run_cli(
        "report",
        "--suite",
        str(suite_file),
        "--model",
        "openai/fake",
        "--api-base",
        fake.url,
        "--store",
        str(tmp_path / "s.sqlite"),
        "--output",
        str(blocker / "out"),
    )
    assert code == 2 and fake.requests == 0
    assert "cannot write the report folder" in capsys.readouterr().err


@pytest.mark.process
def test_report_in_a_log_prints_progress_then_where_the_report_is(suite_file, fake, tmp_path):
    """The console script, stderr a pipe (as in CI): progress lines per suite, then the paths."""
    exe = Path(sys.executable).with_name("tooleval-nb")
    done = subprocess.run(
        [
            str(exe),
            "report",
            "--suite",
            str(suite_file),
            "--model",
            "openai/fake",
            "--api-base",
            fake.url,
            "--store",
            str(tmp_path / "s.sqlite"),
            "--output",
            str(tmp_path / "out"),
            "--no-cache",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    assert err[0].startswith("[cli weather] openai/fake: 0/2 (0%)")
    finished = next(i for i, x in enumerate(err) if x.startswith("[cli weather] openai/fake: 2/2"))
    assert "errors 0" in err[finished] and err[finished].endswith("[completed]")
    assert err[finished + 1].startswith("rendering the report of 1 stored run(s) (run_")
    cells = [x.split(" ")[4] for x in err if x.startswith("rendering the report: cell ")]
    done_cells, total_cells = cells[-1].split("/")
    assert done_cells == total_cells and int(total_cells) > 20  # every cell, counted
    assert "\x1b" not in done.stderr
    assert done.stdout.splitlines()[0] == f"report: {tmp_path / 'out' / 'report.html'}"
