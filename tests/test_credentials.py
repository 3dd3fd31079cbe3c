"""No secret is ever written: a key planted through every entry point a user would take.

:func:`test_a_planted_key_is_never_written` passes one unique key through ``run_eval`` (model
dicts, ``api_key_env``, ``extra_headers``, params), the CLI's ``run``, ``bfcl``, ``report`` and
``export``, a sweep and a prompt tune (the provider's variable), the judge, and MCP headers
against a real MCP server; then it reads every file the test wrote (the stores, the response
cache, the exports, the report, the imported suite, the events) and fails on the key. Where the
key is passed the safe way it must still reach the fake server (its ``Authorization`` header).
The refusals are checked apart: exit status 2 / the error class, the field named, the safe way
named, and the key never echoed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import tooleval_nb as te
import tooleval_nb.experiments as tx
from tooleval_nb.cli import build_parser, main
from tooleval_nb.credentials import (
    KEY_VARIABLES,
    credential_paths,
    credential_values,
    is_credential_key,
    key_variable,
    redact,
    redact_command,
    url_credentials,
    without_credentials,
)
from tooleval_nb.errors import ToolEvalError
from tooleval_nb.models import ModelSpec
from tooleval_nb.report import validate_params
from tooleval_nb.runner.settings import RunSettings
from tooleval_nb.suite import EvalCase, Suite, Tool
from tooleval_nb.testing import FakeOpenAIServer


def _mcp_fixtures() -> Any:
    """tests/mcp/conftest.py (the demo MCP servers of ours), loaded for a real server."""
    import importlib.util

    path = Path(__file__).resolve().parent / "mcp" / "conftest.py"
    spec = importlib.util.spec_from_file_location("tooleval_tests_credentials_mcp", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


start_server = _mcp_fixtures().start_server
#: the variable the safe ways name in these tests
VARIABLE = "TOOLEVAL_TEST_PLANTED_KEY"


def _suite(n: int = 6) -> Suite:
    weather = Tool.create(
        "get_weather", "Current weather for a city", {"city": {"type": "string"}}, ["city"]
    )
    return Suite(
        name="planted",
        tools=[weather],
        cases=[
            EvalCase(
                id=f"c{i}",
                prompt=f"get_weather city Town{i}",
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
            )
            for i in range(n)
        ],
    )


# -- what a credential is ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "key, credential",
    [
        ("api_key", True),
        ("apiKey", True),
        ("X-Api-Key", True),
        ("api-key", True),
        ("Authorization", True),
        ("Proxy-Authorization", True),
        ("openai_key", True),
        ("aws_access_key_id", True),
        ("access_token", True),
        ("hf_token", True),
        ("X-Auth-Token", True),
        ("client_secret", True),
        ("password", True),
        ("Cookie", True),
        ("top_p", False),
        ("max_tokens", False),
        ("token", False),
        ("key", False),
        ("eos_token", False),
        ("tokenizer", False),
        ("prompt_tokens", False),
        ("api_key_env", False),
        ("prompt_cache_key", False),
        ("extra_headers", False),
        ("headers", False),
        ("seed", False),
    ],
    ids=lambda v: str(v),
)
def test_is_credential_key(key, credential):
    assert is_credential_key(key) is credential


def test_redaction_helpers():
    params = {
        "top_p": 0.9,
        "api_key": "sk-abcdef",
        "extra_headers": {"Authorization": "Bearer tok-123456", "X-Trace": "t"},
        "has_api_key": True,
    }
    assert credential_paths(params, "params") == [
        "params['api_key']",
        "params['extra_headers']['Authorization']",
    ]
    assert credential_values(params) == ("sk-abcdef", "Bearer tok-123456", "tok-123456")
    assert redact(params) == {
        "top_p": 0.9,
        "api_key": "***",
        "has_api_key": True,
        "extra_headers": {"Authorization": "***", "X-Trace": "t"},
    }
    assert without_credentials(
        {"top_p": 1, "api_key": "k", "extra_headers": {"X-Api-Key": "k"}}
    ) == {"top_p": 1}
    assert redact_command(["srv", "--api-key", "K1", "--token=K2", "-v", "API_KEY=K3"]) == [
        "srv",
        "--api-key",
        "***",
        "--token=***",
        "-v",
        "API_KEY=***",
    ]
    assert url_credentials("https://u:pw@host/mcp?token=abc&x=1") == [
        "a password",
        "query parameter 'token'",
    ]
    assert url_credentials("http://127.0.0.1:8000/mcp") == []


@pytest.mark.process
def test_key_variables_follow_litellm():
    """Our table of providers' variables names what litellm itself asks for. litellm is asked in
    a process of its own, with no API key in its environment: in the whole test run an earlier
    test's litellm state made it route 'mistral/...' to no provider (no missing key listed)."""
    models = [f"{provider}/some-model" for provider in KEY_VARIABLES]
    models += ["gpt-4o", "claude-sonnet-4-20250514"]  # routed by their names
    script = (
        "import json, sys, litellm\n"
        "print(json.dumps({m: litellm.validate_environment(m)['missing_keys']"
        " for m in json.loads(sys.argv[1])}))"
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if not any(w in k.upper() for w in ("KEY", "TOKEN", "SECRET"))
    }
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(models)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    missing = json.loads(done.stdout.strip().splitlines()[-1])
    for model in models:
        assert key_variable(model) in missing[model], (model, missing[model])
    assert key_variable("local/smollm2-135m") is None


def test_the_model_entry_keeps_its_credentials_out_of_its_stored_form():
    spec = ModelSpec.of(
        {
            "model": "openai/x",
            "api_key": "sk-entry-123",
            "params": {"top_p": 0.5, "extra_headers": {"X-Api-Key": "hk-123456"}},
        }
    )
    dumped = json.dumps(spec.model_dump(mode="json"))
    assert "sk-entry-123" not in dumped and "hk-123456" not in dumped and "top_p" in dumped
    assert "sk-entry-123" not in repr(spec)
    assert spec.params["extra_headers"] == {"X-Api-Key": "hk-123456"}  # still sent
    assert set(spec.secrets()) == {"sk-entry-123", "hk-123456"}
    with pytest.raises(te.ModelConfigError) as info:
        ModelSpec.of({"model": "openai/x", "api_key": "sk-entry-123", "mode": "nope"})
    assert "sk-entry-123" not in str(info.value)
    with pytest.raises(ValidationError, match="NAME of an environment variable") as bad:
        ModelSpec(model="openai/x", api_key_env="sk-not-a-name")
    assert "sk-not-a-name" not in str(bad.value)
    with pytest.raises(ValidationError, match="api_base holds a password"):
        ModelSpec(model="openai/x", api_base="https://me:pw-123456@gateway.example/v1")


def test_api_key_env_is_read_at_call_time(monkeypatch):
    spec = ModelSpec(model="openai/x", api_key_env=VARIABLE)
    monkeypatch.delenv(VARIABLE, raising=False)
    with pytest.raises(te.ModelConfigError, match=f"{VARIABLE}, which is not set"):
        spec.call_key()
    monkeypatch.setenv(VARIABLE, "sk-now")
    assert spec.call_key() == "sk-now"
    monkeypatch.setenv(VARIABLE, "sk-later")
    assert spec.call_key() == "sk-later"
    assert spec.key_variable == VARIABLE
    assert ModelSpec(model="anthropic/claude-x").key_variable == "ANTHROPIC_API_KEY"


# -- refusals ---------------------------------------------------------------------------------
SECRET = "sk-refused-" + uuid.uuid4().hex


def test_run_settings_refuse_credentials_in_params():
    for params in ({"api_key": SECRET}, {"extra_headers": {"Authorization": f"Bearer {SECRET}"}}):
        with pytest.raises(ValidationError) as info:
            RunSettings(params=params)
        text = str(info.value)
        assert "params" in text and "is a credential" in text and SECRET not in text
        assert "api_key_env" in text and "{'model': ..., 'api_key': ...}" in text
    with pytest.raises(TypeError, match="api_key is a credential") as kw:
        RunSettings.build(api_key=SECRET)
    assert SECRET not in str(kw.value)
    with pytest.raises(ValidationError, match="MCPToolRunner") as url:
        RunSettings(live_tools=f"http://127.0.0.1:9/mcp?token={SECRET}")
    assert SECRET not in str(url.value)
    with pytest.raises(ValidationError, match="env=") as cmd:
        RunSettings(live_tools=f"my-server --api-key {SECRET}")
    assert SECRET not in str(cmd.value)


def test_configs_and_report_parameters_refuse_credentials():
    with pytest.raises(ValidationError, match="OPENAI_API_KEY") as info:
        tx.Config(model="openai/gpt-4o-mini", params={"api_key": SECRET})
    assert SECRET not in str(info.value)
    with pytest.raises(ValidationError):
        tx.Config().merge(api_key=SECRET)
    with pytest.raises(ToolEvalError, match="ANTHROPIC_API_KEY") as rep:
        validate_params(models=["anthropic/claude-x"], sampling_params={"x-api-key": SECRET})
    assert SECRET not in str(rep.value) and "--api-key-env" in str(rep.value)


@pytest.mark.parametrize(
    "argv, named",
    [
        (
            ["run", "--model", "openai/gpt-4o-mini", "--param", f"api_key={SECRET}"],
            "OPENAI_API_KEY",
        ),
        (
            [
                "report",
                "--output",
                "o",
                "--model",
                "anthropic/claude-x",
                "--param",
                f'extra_headers={{"x-api-key": "{SECRET}"}}',
            ],
            "ANTHROPIC_API_KEY",
        ),
        (
            [
                "bfcl",
                "--output",
                "o",
                "--model",
                "openai/gpt-4o-mini",
                "--param",
                f"access_token={SECRET}",
            ],
            "OPENAI_API_KEY",
        ),
        (
            ["bfcl", "--output", "o", "--model", "gemini/gemini-pro", "--api-key", SECRET],
            "GEMINI_API_KEY",
        ),
    ],
    ids=["run-param", "report-header", "bfcl-param", "bfcl-api-key"],
)
def test_the_cli_refuses_credentials_with_the_safe_way(argv, named, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert named in err and "--api-key-env NAME" in err and SECRET not in err
    assert not list(tmp_path.iterdir())  # nothing ran, nothing was written


def test_every_command_taking_param_refuses_credentials():
    parser = build_parser()
    commands = [c for c in ("run", "report", "bfcl") if "--param" in _options(parser, c)]
    assert commands == ["run", "report", "bfcl"]
    for command in commands:
        assert "--api-key-env" in _options(parser, command)


def _options(parser: Any, command: str) -> set[str]:
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return {s for a in sub._actions for s in a.option_strings}


# -- the planted key --------------------------------------------------------------------------
def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            yield path


def _leaks(roots: list[Path], key: str) -> list[str]:
    """Every file under ``roots`` holding ``key`` (bytes, so SQLite pages and WAL files too)."""
    needle = key.encode()
    return [str(p) for root in roots for p in _files(root) if needle in p.read_bytes()]


@contextlib.contextmanager
def _refused(key: str) -> Iterator[None]:
    """A planting step the code may refuse: a refusal must not echo the key."""
    try:
        yield
    except (ValidationError, ToolEvalError, TypeError, SystemExit) as exc:
        assert key not in str(exc)


def _bearer(server: FakeOpenAIServer, key: str) -> int:
    return sum(h.get("authorization") == f"Bearer {key}" for h in server.request_headers)


@pytest.mark.kernel
def test_a_planted_key_is_never_written(tmp_path, monkeypatch, capsys, start_server):
    key = "sk-planted-" + uuid.uuid4().hex
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    store = str(work / "runs.db")
    monkeypatch.setenv("TOOLEVAL_STORE", store)
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(work / "cache"))
    suite = _suite()
    suite_file = work / "suite.json"
    te.save_suite(suite, str(suite_file))
    events: list[dict[str, Any]] = []
    mcp_url = start_server("streamable-http")

    with FakeOpenAIServer() as server:
        url = server.url
        # run_eval: a key in the model entry (the safe way in Python), sent and never written
        run = te.run_eval(
            suite,
            [{"model": "openai/fake", "api_base": url, "api_key": key, "label": "entry"}],
            store=store,
            progress="none",
            callbacks=events.append,
        ).result()
        assert run.results_df()["passed"].all()
        assert _bearer(server, key) == len(suite.cases)
        # a header in the model entry's extra_headers: sent as a header, never written
        sent = len(server.request_headers)
        te.run_eval(
            suite,
            [
                {
                    "model": "openai/fake",
                    "api_base": url,
                    "label": "headers",
                    "extra_headers": {"X-Api-Key": key},
                }
            ],
            store=store,
            progress="none",
            callbacks=events.append,
            cache=False,
        ).result()
        assert [h.get("x-api-key") for h in server.request_headers[sent:]] == [key] * 6
        assert all(key not in json.dumps(b) for b in server.bodies)
        # api_key_env: only the variable's name is stored, the key read when calling
        monkeypatch.setenv(VARIABLE, key)
        sent = _bearer(server, key)
        te.run_eval(
            suite,
            [{"model": "openai/fake", "api_base": url, "api_key_env": VARIABLE, "label": "env"}],
            store=store,
            progress="none",
            cache=False,
        ).result()
        assert _bearer(server, key) == sent + len(suite.cases)
        # the wrong places: run settings' params, keywords
        with _refused(key):
            te.run_eval(
                suite,
                [{"model": "openai/fake", "api_base": url}],
                store=store,
                progress="none",
                params={"api_key": key},
            )
        with _refused(key):
            te.run_eval(
                suite,
                [{"model": "openai/fake", "api_base": url}],
                store=store,
                progress="none",
                params={"extra_headers": {"Authorization": key}},
            )
        with _refused(key):
            te.run_eval(suite, "openai/fake", store=store, progress="none", api_key=key)

        # the CLI: run with --api-key-env (sent), run and report with --param (refused)
        target = ["--suite", str(suite_file), "--model", "openai/fake", "--api-base", url,
                  "--store", store, "--progress", "none"]  # fmt: skip
        sent = _bearer(server, key)
        code = main(["run", *target, "--api-key-env", VARIABLE, "--no-cache"], out=io.StringIO())
        assert code == 0
        assert _bearer(server, key) == sent + len(suite.cases)
        for argv in (
            ["run", "--param", f"api_key={key}"],
            ["run", "--param", f'extra_headers={{"Authorization": "Bearer {key}"}}'],
            ["report", "--output", "refused", "--param", f"hf_token={key}"],
            ["bfcl", "--output", "refused", "--api-key", key],
            ["bfcl", "--output", "refused", "--param", f"api_key={key}"],
        ):
            with _refused(key):  # bfcl takes no --suite
                main([*argv, *(target[2:] if argv[0] == "bfcl" else target)], out=io.StringIO())
        # the report: run with the key from the variable, then rendered (papermill, HTML)
        sent = _bearer(server, key)
        report = ["--output", str(work / "report"), "--no-cache", "--max-cases", "2"]
        code = main(["report", *target, "--api-key-env", VARIABLE, *report], out=io.StringIO())
        assert code == 0
        assert _bearer(server, key) == sent + 2
        # exports of the stored runs
        for fmt in ("csv", "jsonl"):
            for table in ("results", "calls", "summary"):
                assert (
                    main(
                        [
                            "export",
                            run.id,
                            "--format",
                            fmt,
                            "--table",
                            table,
                            "--output",
                            str(work / f"export-{table}.{fmt}"),
                            "--store",
                            store,
                        ],
                        out=io.StringIO(),
                    )
                    == 0
                )

        # the judge: a key in its parameters reaches the judge model, its record holds none
        sent = _bearer(server, key)
        judge = tx.Config(model="openai/fake", api_base=url)
        tx.judge_report(
            run.results_df(),
            judge_model=judge,
            suite=suite,
            store=store,
            max_llm_calls=2,
            judge_params={"api_key": key},
        )
        assert _bearer(server, key) > sent

        # MCP: headers to a real server (import, then live tools), a token in a URL (refused)
        imported = te.import_mcp(mcp_url, headers={"Authorization": f"Bearer {key}"})
        te.save_suite(imported, str(work / "imported.json"))
        runner = te.MCPToolRunner(mcp_url, headers={"Authorization": f"Bearer {key}"})
        te.run_eval(
            suite,
            [{"model": "openai/fake", "api_base": url}],
            store=store,
            progress="none",
            live_tools=runner,
            name="live",
            callbacks=events.append,
        ).result()
        with _refused(key):
            te.run_eval(
                suite,
                [{"model": "openai/fake", "api_base": url}],
                store=store,
                progress="none",
                live_tools=f"{mcp_url}?token={key}",
            )

    # sweeps and prompt tunes: the provider's own variables (litellm reads them), never a config
    with FakeOpenAIServer() as provider:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_API_BASE", provider.url)
        base = tx.Config(model="openai/fake")
        sw = tx.sweep(
            suite,
            base=base,
            space=tx.space(max_tokens=[64, 128]),
            strategy="grid",
            budget=tx.Budget(calls=100),
            store=store,
            preflight=False,
            probe=False,
        )
        assert sw.calls_used > 0 and _bearer(provider, key) == provider.requests
        tx.tune_prompt(
            suite,
            base,
            meta_model=None,
            operators="rules",
            population=2,
            generations=1,
            budget=tx.Budget(calls=60),
            store=store,
        )
        assert _bearer(provider, key) == provider.requests
        with _refused(key):
            tx.sweep(
                suite,
                base=base,
                space=tx.space(api_key=[key]),
                store=store,
                preflight=False,
                probe=False,
            )
        with _refused(key):
            tx.sweep(
                suite,
                base=tx.Config(model="openai/fake", params={"api_key": key}),
                space=tx.space(max_tokens=[64]),
                store=store,
                preflight=False,
                probe=False,
            )
        with _refused(key):
            tx.tune_prompt(
                suite,
                base,
                meta_model=tx.Config(params={"x-api-key": key}),
                store=store,
                generations=1,
                population=2,
            )

    (work / "events.json").write_text(json.dumps([e.to_dict() for e in events], default=str))
    printed = capsys.readouterr()
    assert key not in printed.out and key not in printed.err
    written = [p for p in _files(work)]
    assert any(p.name == "report.html" for p in written)
    assert any(p.name.startswith("runs.db") for p in written)
    assert any("cache" in p.parts for p in written)
    assert _leaks([work], key) == []
    # the safe ways stored names only
    assert VARIABLE.encode() in Path(store).read_bytes()
    assert os.environ.get(VARIABLE) == key
