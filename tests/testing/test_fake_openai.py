"""The fake OpenAI-compatible server: default answers, faults, planted answers, both run modes."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from tooleval_nb.testing import FAULTS, FakeOpenAIServer, default_answer

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "metric": {"type": "boolean"},
                    "lat": {"type": "number"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
        },
    },
]

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post(url: str, prompt: str, **body: Any) -> tuple[int, dict[str, str], bytes]:
    payload = {
        "model": "m",
        "messages": [{"role": "user", "content": prompt}],
        "tools": TOOLS,
        **body,
    }
    req = urllib.request.Request(
        f"{url}/chat/completions",
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with _OPENER.open(req, timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def calls_of(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    message = json.loads(body)["choices"][0]["message"]
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("get_weather city Town7", [("get_weather", {"city": "Town7"})]),
        (
            "get_weather city Oslo days 3 metric true lat 59.9",
            [("get_weather", {"city": "Oslo", "days": 3, "metric": True, "lat": 59.9})],
        ),
        ("get_weather city 'New York'", [("get_weather", {"city": "New York"})]),
        (
            "get_weather city A ; get_time tz UTC",
            [("get_weather", {"city": "A"}), ("get_time", {"tz": "UTC"})],
        ),
        ("hello there", []),
        ("get_weather days soon", [("get_weather", {"days": "soon"})]),
    ],
    ids=["one-arg", "typed-args", "quoted", "parallel", "no-tool", "unconvertible"],
)
def test_default_answer_reads_the_prompt(prompt, expected):
    body = {"messages": [{"role": "user", "content": prompt}], "tools": TOOLS}
    message = default_answer(body)
    got = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]
    assert got == expected
    if not expected:
        assert "hello there" in message["content"]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ('get_weather city "São Paulo"', [("get_weather", {"city": "São Paulo"})]),
        ("get_weather city 'it's here'", [("get_weather", {"city": "it's here"})]),
        ('get_weather city "O\'Hare" days 2', [("get_weather", {"city": "O'Hare", "days": 2})]),
        ("get_weather city O'Hare", [("get_weather", {"city": "O'Hare"})]),
        ("get_weather city 'Oslo", [("get_weather", {"city": "'Oslo"})]),
        ('get_weather city "" days 1', [("get_weather", {"city": "", "days": 1})]),
        (
            "get_time tz 東京 ; get_weather city Zürich",
            [("get_time", {"tz": "東京"}), ("get_weather", {"city": "Zürich"})],
        ),
    ],
    ids=[
        "double-quoted-unicode",
        "apostrophe-in-quotes",
        "apostrophe-in-double-quotes",
        "bare-apostrophe",
        "unmatched-quote",
        "empty-quotes",
        "unicode-words",
    ],
)
def test_default_answer_takes_quotes_and_apostrophes(prompt, expected):
    message = default_answer({"messages": [{"role": "user", "content": prompt}], "tools": TOOLS})
    got = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]
    assert got == expected


@pytest.mark.parametrize(
    "prompt",
    ["What's the weather? I'd like to know", "it's \"quoted", "l'été à Paris"],
    ids=["apostrophes", "unmatched-double", "french"],
)
def test_prose_with_apostrophes_is_a_text_answer(prompt):
    message = default_answer({"messages": [{"role": "user", "content": prompt}], "tools": TOOLS})
    assert "tool_calls" not in message and prompt in message["content"]


def test_a_prompt_with_an_apostrophe_reaches_the_server(server):
    status, _, body = post(server.url, "get_weather city 'Martha's Vineyard'")
    assert status == 200
    assert calls_of(body) == [("get_weather", {"city": "Martha's Vineyard"})]


@pytest.mark.parametrize("choice", ["none", None], ids=["tool_choice-none", "no-tools"])
def test_default_answer_text_without_tools(choice):
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "get_weather city X"}]}
    if choice:
        body.update(tools=TOOLS, tool_choice=choice)
    assert "tool_calls" not in default_answer(body)


def test_named_tool_choice_forces_the_call():
    body = {
        "messages": [{"role": "user", "content": "city Paris"}],
        "tools": TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
    }
    calls = default_answer(body)["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather"]


def test_answers_and_counts(server):
    status, _, body = post(server.url, "get_weather city Town7")
    assert status == 200
    assert calls_of(body) == [("get_weather", {"city": "Town7"})]
    data = json.loads(body)
    assert (
        data["usage"]["prompt_tokens"] > 0 and data["choices"][0]["finish_reason"] == "tool_calls"
    )
    post(server.url, "hello")
    assert server.requests == 2
    assert server.last_body["messages"][0]["content"] == "hello"


def test_rate_limit_sends_retry_after():
    with FakeOpenAIServer(retry_after=1.5, schedule={1: "429"}) as srv:
        status, headers, body = post(srv.url, "get_weather city A")
        assert status == 429
        assert headers["Retry-After"] == "1.5"
        assert json.loads(body)["error"]["type"] == "rate_limit_error"
        assert post(srv.url, "get_weather city A")[0] == 200


def test_bare_500_like_llama_cpp():
    with FakeOpenAIServer(schedule=["500"]) as srv:
        status, headers, body = post(srv.url, "x")
        assert (status, body) == (500, b"Internal Server Error")
        assert headers["Content-Type"] == "text/plain"


@pytest.mark.parametrize(
    ("fault", "status"),
    [("400", 400), ("401", 401), ("404", 404), ("503", 503)],
    ids=["400", "401", "404", "503"],
)
def test_status_faults(server, fault, status):
    code, _, body = post(server.url, f"[fault:{fault}] get_weather city A")
    assert code == status
    assert json.loads(body)["error"]["code"] == status


def test_malformed_and_bad_shape(server):
    status, _, body = post(server.url, "[fault:malformed] x")
    assert status == 200
    with pytest.raises(ValueError):
        json.loads(body)
    status, _, body = post(server.url, "[fault:bad_shape] x")
    assert status == 200 and "choices" not in json.loads(body)


def test_marker_with_count_fails_then_succeeds(server):
    prompt = "[fault:503*2] get_weather city Rome"
    assert [post(server.url, prompt)[0] for _ in range(3)] == [503, 503, 200]
    assert calls_of(post(server.url, prompt)[2]) == [("get_weather", {"city": "Rome"})]


def test_schedule_by_request_number():
    with FakeOpenAIServer(schedule={2: "404", 3: "429"}) as srv:
        assert [post(srv.url, "get_weather city A")[0] for _ in range(4)] == [200, 404, 429, 200]


def test_hang_holds_the_request_until_the_client_gives_up():
    with FakeOpenAIServer(hang=5.0) as srv:
        started = time.perf_counter()
        req = urllib.request.Request(
            f"{srv.url}/chat/completions",
            headers={"Content-Type": "application/json"},
            data=json.dumps({"messages": [{"role": "user", "content": "[fault:hang] x"}]}).encode(),
        )
        with pytest.raises(OSError):  # socket timeout (URLError and TimeoutError are OSErrors)
            _OPENER.open(req, timeout=0.3)
        assert 0.25 < time.perf_counter() - started < 4.0


def test_disconnect(server):
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        post(server.url, "[fault:disconnect] x")


def test_latency_marker_and_setting():
    with FakeOpenAIServer(latency=0.15) as srv:
        started = time.perf_counter()
        post(srv.url, "get_weather city A")
        assert time.perf_counter() - started >= 0.15
        started = time.perf_counter()
        post(srv.url, "[latency:0] get_weather city A")
        assert time.perf_counter() - started < 0.15


def test_reject_required():
    with FakeOpenAIServer(reject_required=True) as srv:
        assert post(srv.url, "get_weather city A", tool_choice="required")[0] == 500
        assert post(srv.url, "get_weather city A", tool_choice="auto")[0] == 200


@pytest.mark.parametrize(
    ("planted", "check"),
    [
        ({"content": "planted text"}, lambda m: m["content"] == "planted text"),
        (
            {"tool_calls": [{"name": "get_time", "arguments": {"tz": "CET"}}]},
            lambda m: m["tool_calls"][0]["function"]["arguments"] == '{"tz": "CET"}',
        ),
        (
            {
                "id": "x",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "full"},
                        "finish_reason": "stop",
                    }
                ],
            },
            lambda m: m["content"] == "full",
        ),
    ],
    ids=["content", "tool-calls", "full-completion"],
)
def test_handler_plants_answers(planted, check):
    seen: list[dict[str, Any]] = []

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        return planted

    with FakeOpenAIServer(handler=handler) as srv:
        status, _, body = post(srv.url, "anything")
    assert status == 200 and check(json.loads(body)["choices"][0]["message"])
    assert seen[0]["messages"][0]["content"] == "anything"


def test_handler_may_return_a_fault_or_defer():
    with FakeOpenAIServer(handler=lambda b: "429" if "slow" in str(b) else None) as srv:
        assert post(srv.url, "slow down")[0] == 429
        assert calls_of(post(srv.url, "get_weather city B")[2]) == [("get_weather", {"city": "B"})]


def test_unknown_fault_in_schedule_is_refused():
    with pytest.raises(ValueError, match="unknown fault"):
        FakeOpenAIServer(schedule=["teapot"])
    assert "429" in FAULTS and "hang" in FAULTS


def test_models_and_embeddings_endpoints(server):
    with _OPENER.open(f"{server.url}/models", timeout=5) as resp:
        assert json.load(resp)["data"][0]["id"] == "fake-model"
    req = urllib.request.Request(
        f"{server.url}/embeddings",
        headers={"Content-Type": "application/json"},
        data=json.dumps({"input": ["a", "b"]}).encode(),
    )
    with _OPENER.open(req, timeout=5) as resp:
        data = json.load(resp)["data"]
    assert len(data) == 2 and len(data[0]["embedding"]) == 16
    assert data[0]["embedding"] != data[1]["embedding"]
    assert server.requests == 0  # only chat completions are counted


def test_process_mode_runs_apart_and_stops(tmp_path, monkeypatch):
    (tmp_path / "planted_answers.py").write_text(
        "def answer(body):\n"
        "    return {'tool_calls': [{'name': 'get_time', 'arguments': {'tz': 'planted'}}]}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with FakeOpenAIServer(
        process=True, schedule={1: "429"}, handler="planted_answers:answer"
    ) as srv:
        pid = srv._proc.pid
        assert post(srv.url, "x")[0] == 429
        assert calls_of(post(srv.url, "x")[2]) == [("get_time", {"tz": "planted"})]
        assert srv.requests == 2
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_process_mode_needs_an_importable_handler():
    with pytest.raises(ValueError, match="module:function"):
        FakeOpenAIServer(process=True, handler=lambda b: None)


def test_stop_closes_open_connections():
    arrived = threading.Event()

    def handler(body: dict[str, Any]) -> str:
        arrived.set()
        return "hang"

    srv = FakeOpenAIServer(hang=30, handler=handler).start()
    errors: list[BaseException] = []

    def hang() -> None:
        try:
            post(srv.url, "x")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    started = time.perf_counter()
    worker = threading.Thread(target=hang)
    worker.start()
    assert arrived.wait(5)
    srv.stop()
    worker.join(5)
    assert not worker.is_alive() and errors
    assert time.perf_counter() - started < 5


def test_sigterm_is_a_clean_exit_for_the_process_mode():
    srv = FakeOpenAIServer(process=True).start()
    proc = srv._proc
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(5) == 0
    srv.stop()
