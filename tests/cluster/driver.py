"""A driver process for the cluster's resume test (not a test module): runs a suite on the Ray
cluster at ``address`` and prints ``job <id>`` once the job exists and ``done <case_id>`` after
each stored case.

usage: python driver.py '{"address": ..., "store": ..., "api_base": ..., "n": 60}'
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import tooleval_nb as te  # noqa: E402
from tooleval_nb.cluster import RayExecutor  # noqa: E402


def suite(n: int) -> te.Suite:
    tool = te.Tool.create(
        "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
    )
    return te.Suite(
        name="driven",
        tools=[tool],
        cases=[
            te.EvalCase(
                id=f"c{i:03d}",
                prompt=f"get_weather city Town{i}",
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
            )
            for i in range(n)
        ],
    )


def main() -> None:
    cfg = json.loads(sys.argv[1])

    def on_event(event) -> None:
        if event.type == "job_created":
            print(f"job {event.job_id}", flush=True)
        elif event.type == "tool_eval_result":
            print(f"done {event.data['case_id']}", flush=True)

    te.run_eval(
        suite(cfg["n"]),
        [{"model": "openai/fake", "api_base": cfg["api_base"], "api_key": "sk-test"}],
        cache=False,
        store=cfg["store"],
        progress=False,
        callbacks=on_event,
        executor=RayExecutor(
            address=cfg["address"],
            replicas=2,
            max_concurrency_per_replica=4,
            num_cpus_per_replica=0.5,
        ),
    )


if __name__ == "__main__":
    main()
