"""A worker process for the runner's process tests (not a test module).

usage: python worker.py '{"store": ..., "api_base": ..., "n": 40, "concurrency": 4,
                          "name": "weather", "wait_go": false}'

Prints ``ready`` once imported (then waits for a ``go`` line when ``wait_go``), ``job <id>`` when
the job exists, ``done <case_id>`` after each case is stored, and ``finished <run_id>`` at the end.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import tooleval_nb as te  # noqa: E402
from tooleval_nb.suite import EvalCase, Suite, Tool  # noqa: E402


def main() -> None:
    cfg = json.loads(sys.argv[1])
    tool = Tool.create(
        "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
    )
    suite = Suite(
        name=cfg.get("name", "weather"),
        tools=[tool],
        cases=[
            EvalCase(
                id=f"c{i:03d}",
                prompt=f"get_weather city Town{i}",
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
                tags=["even" if i % 2 == 0 else "odd"],
            )
            for i in range(cfg["n"])
        ],
    )
    print("ready", flush=True)
    if cfg.get("wait_go"):
        assert sys.stdin.readline().strip() == "go"

    def on_event(event) -> None:
        if event.type == "job_created":
            print(f"job {event.job_id}", flush=True)
        elif event.type == "tool_eval_result":
            print(f"done {event.data['case_id']}", flush=True)

    job = te.run_eval(
        suite,
        [{"model": "openai/fake", "api_base": cfg["api_base"], "api_key": "sk-test"}],
        store=cfg["store"],
        cache=False,
        max_concurrency=cfg.get("concurrency", 4),
        progress="none",
        callbacks=on_event,
    )
    print(f"finished {job.run_id}", flush=True)


if __name__ == "__main__":
    main()
