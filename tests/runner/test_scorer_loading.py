"""The runner does not import the scorer: the finisher imports it at a run's first case (issue
31: a fresh process's first run within 0.1 s of a warm one). In a subprocess that stands for a
fresh kernel: what ``import tooleval_nb.runner`` loads, then two runs in one process, whose
scores must be the scorer's."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tooleval_nb.scoring as scoring
from tooleval_nb._lazy import lazy_names

#: a fresh process: imports the runner, reports which scoring modules it loaded, runs a suite
#: twice on a mock transport (one wrong argument, one answer without a call), reports each run
_KERNEL = r"""
import asyncio, json, sys
import tooleval_nb.runner
loaded = sorted(m for m in sys.modules if m.startswith(("tooleval_nb.scoring", "tooleval_nb.bfcl")))
import tooleval_nb as te
from tooleval_nb.testing import MockTransport

tool = te.Tool.create("get_weather", "Weather", {"city": {"type": "string"}}, ["city"])
suite = te.Suite(name="w", tools=[tool], cases=[
    te.EvalCase(id=f"c{i}", prompt=f"get_weather city Town{i}", expected_tool="get_weather",
                expected_params={"city": f"Town{i}"}) for i in range(4)])

def handler(request):
    city = request.messages[-1]["content"].rsplit(" ", 1)[-1]
    if city == "Town2":
        return {"role": "assistant", "content": "no tool today"}
    city = "Elsewhere" if city == "Town1" else city
    return {"role": "assistant", "content": None, "tool_calls": [{"id": "x", "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]}

runs = []
for store in (sys.argv[1], sys.argv[2]):
    run = asyncio.run(te.run_eval_async(suite, [{"model": "openai/mock",
                                                "transport": MockTransport(handler)}],
                                        cache=False, store=store, resume=False))
    df = run.results_df().sort_values("case_id")
    df = df.astype(object).where(df.notna(), None)
    runs.append({"passed": df["passed"].tolist(), "failure_mode": df["failure_mode"].tolist(),
                 "param_score": df["param_score"].tolist(),
                 "scorer": "tooleval_nb.scoring.case" in sys.modules})
print(json.dumps({"loaded": loaded, "runs": runs}))
"""


def test_the_runner_loads_the_scorer_at_the_first_case_and_scores_twice(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _KERNEL, str(tmp_path / "a.db"), str(tmp_path / "b.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    # the runner's import: the light modules it names, never the scorer nor BFCL's checker
    assert "tooleval_nb.scoring.case" not in seen["loaded"]
    assert not [m for m in seen["loaded"] if m.startswith("tooleval_nb.bfcl")]
    assert set(seen["loaded"]) <= {
        "tooleval_nb.scoring",
        "tooleval_nb.scoring.kind",
        "tooleval_nb.scoring.summary",
        "tooleval_nb.scoring.trace",
    }
    first, second = seen["runs"]
    assert first == second
    assert first["scorer"] is True
    assert first["passed"] == [True, False, False, True]
    assert first["failure_mode"] == [None, "wrong_value", "no_call", None]
    assert first["param_score"][0] == 1.0 and first["param_score"][1] == 0.0


def test_the_scoring_facade_loads_nothing_until_a_name_is_used() -> None:
    code = (
        "import sys, tooleval_nb.scoring as s; "
        "print(sorted(m for m in sys.modules if m.startswith('tooleval_nb.scoring.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()
    assert out == "[]"


#: scoring's public names -> "module:attr", read from its facade as tooleval_nb/_lazy.py reads it
_NAMES = lazy_names(scoring.__name__, Path(scoring.__file__).read_bytes())


@pytest.mark.parametrize("name", scoring.__all__)
def test_every_scoring_name_resolves_from_its_one_home(name: str) -> None:
    value = getattr(scoring, name)
    assert value is not None
    assert name in dir(scoring)
    path, _, attr = _NAMES[name].partition(":")
    assert getattr(importlib.import_module(path), attr) is value


_MODULES = sorted(
    p.stem for p in Path(scoring.__file__).parent.glob("*.py") if p.stem != "__init__"
)


@pytest.mark.parametrize("module", _MODULES)
def test_scorings_modules_are_attributes_too(module: str) -> None:
    assert getattr(scoring, module) is importlib.import_module(f"tooleval_nb.scoring.{module}")


def test_the_scoring_facade_lists_exactly_its_names() -> None:
    assert sorted(scoring.__all__) == sorted(_NAMES)
    assert set(scoring.__all__) <= set(dir(scoring))
    with pytest.raises(AttributeError, match="no_such_name"):
        scoring.no_such_name  # noqa: B018
