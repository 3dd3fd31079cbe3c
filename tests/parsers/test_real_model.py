"""Raw-text mode against the real embedded model: what SmolLM2 writes is parsed, streamed too."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tooleval_nb.parsers import (
    StreamingToolReconstructor,
    get_parser,
    parse_tool_calls,
    with_tools_prompt,
)

pytestmark = pytest.mark.model

SUITE = json.loads((Path(__file__).resolve().parents[2] / "data" / "weather.json").read_text())
TOOLS = SUITE["tools"]
NAMES = {t["function"]["name"] for t in TOOLS}
PROMPTS = [
    "Temperature in Tokyo in Fahrenheit",
    "Give me the 3-day forecast for London.",
    "What is 300 kelvin in celsius?",
]


@pytest.fixture(scope="module")
def api_base() -> Iterator[str]:
    from tooleval_nb.models import EmbeddedServer

    with EmbeddedServer("chatml") as server:  # raw text: no tool template, no grammar
        yield server.api_base


def _request(api_base: str, prompt: str, stream: bool) -> urllib.request.Request:
    messages = with_tools_prompt([{"role": "user", "content": prompt}], TOOLS, "hermes")
    body = {"messages": messages, "temperature": 0, "max_tokens": 96, "seed": 0, "stream": stream}
    return urllib.request.Request(
        f"{api_base}/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )


def test_model_outputs_parse(api_base: str) -> None:
    found = []
    for prompt in PROMPTS:
        with urllib.request.urlopen(_request(api_base, prompt, False), timeout=120) as reply:
            text = json.load(reply)["choices"][0]["message"]["content"] or ""
        info = parse_tool_calls(text, "hermes", TOOLS)
        if not info.tools_called:
            assert info.content == text  # no call: the text is the content
        found += [c.function.name for c in info.tool_calls]
    assert set(found) & NAMES, found  # the one-example prompt gets the model to call tools


def test_streamed_model_output_matches_whole_parse(api_base: str) -> None:
    parser = get_parser("hermes", TOOLS)
    recon = StreamingToolReconstructor()
    pieces = []
    with urllib.request.urlopen(_request(api_base, PROMPTS[0], True), timeout=120) as reply:
        for raw in reply:
            line = raw.decode().strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            delta = json.loads(line[5:])["choices"][0]["delta"].get("content") or ""
            pieces.append(delta)
            recon.append_delta(parser.feed(delta))
    recon.append_delta(parser.finish())
    assert len(pieces) > 5  # really streamed, token by token
    whole = parse_tool_calls("".join(pieces), "hermes", TOOLS)
    streamed = recon.result(parser.problems)
    assert [(c.function.name, c.function.arguments) for c in streamed.tool_calls] == [
        (c.function.name, c.function.arguments) for c in whole.tool_calls
    ]
    assert (streamed.content, streamed.problems) == (whole.content, whole.problems)
    assert whole.tools_called
