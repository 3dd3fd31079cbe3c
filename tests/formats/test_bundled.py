"""The suites bundled in data/: they load, they are big enough, and they use every feature."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import get_args

import pytest

from tooleval_nb.formats import bundled_suites_dir, load_suite, load_suites, save_suite
from tooleval_nb.scoring import GradeResult, Trace
from tooleval_nb.suite import ParamScoring, Suite

SUITES = [
    "weather",
    "travel",
    "calendar_email",
    "smart_home",
    "finance_math",
    "irrelevance",
    "parallel",
    "agent_booking",
]


@pytest.fixture(scope="module")
def bundled(data_dir: Path) -> dict[str, Suite]:
    return {s.name: s for s in load_suites(data_dir)}


def test_the_bundled_suites(bundled: dict[str, Suite]) -> None:
    assert sorted(bundled) == sorted(SUITES)
    assert sum(len(s) for s in bundled.values()) >= 120
    assert all(len(s) >= 12 for s in bundled.values())


@pytest.mark.parametrize("name", SUITES)
def test_every_case_has_a_unique_name_tags_and_a_difficulty(
    bundled: dict[str, Suite], name: str
) -> None:
    suite = bundled[name]
    names = [c.name for c in suite.cases]
    assert all(names) and len(set(names)) == len(names)
    assert all(c.tags and {"easy", "medium", "hard"} & set(c.tags) for c in suite.cases)
    assert suite.filter(tags=["smoke"]).cases, "every suite has smoke cases"
    assert suite.description and suite.system_prompt and suite.tools


@pytest.mark.parametrize("name", SUITES)
def test_json_and_yaml_round_trips(bundled: dict[str, Suite], name: str, tmp_path: Path) -> None:
    suite = bundled[name]
    for suffix in (".json", ".yaml"):
        save_suite(suite, tmp_path / f"{name}{suffix}")
        assert load_suite(tmp_path / f"{name}{suffix}") == suite


def test_every_scoring_mode_is_used(bundled: dict[str, Suite]) -> None:
    used: set[str] = set()
    for suite in bundled.values():
        for case in suite.cases:
            used.add(case.param_scoring)
            cfg = case.scoring_config
            if cfg is not None:
                used.update(filter(None, [cfg.mode, *(cfg.param_modes or {}).values()]))
    assert used == set(get_args(ParamScoring))


def test_irrelevance_expects_no_call(bundled: dict[str, Suite]) -> None:
    assert all(c.expected_call_list() == [] for c in bundled["irrelevance"].cases)


def test_parallel_expects_several_calls(bundled: dict[str, Suite]) -> None:
    counts = [len(c.expected_calls or []) for c in bundled["parallel"].cases]
    assert sum(n >= 2 for n in counts) >= 12 and max(counts) >= 4
    assert any(
        "" in values
        for c in bundled["parallel"].cases
        for call in c.expected_calls or []
        for values in call.arguments.values()
    )


def test_travel_has_multi_turn_chains_with_mocks(bundled: dict[str, Suite]) -> None:
    chains = [c for c in bundled["travel"].cases if c.multi_turn]
    assert len(chains) >= 6
    for case in chains:
        assert case.optimal_hops and case.valid_prerequisites and case.mock_responses
        assert set(case.valid_prerequisites) <= set(case.mock_responses)


def test_agent_suite_uses_the_seed_002_features(bundled: dict[str, Suite]) -> None:
    cases = bundled["agent_booking"].cases
    expectations = [c.expected for c in cases if c.expected]
    assert len(expectations) == len(cases)
    for field in (
        "tools_called",
        "tools_not_called",
        "tool_call_order",
        "output_contains",
        "output_not_contains",
        "output_equals",
        "output_matches",
        "max_steps",
        "min_steps",
        "task_completed",
        "trajectory_match",
    ):
        assert any(getattr(e, field) is not None for e in expectations), field
    kinds = {g.type for c in cases for g in c.graders}
    assert kinds == {"llm", "code"}
    assert any(c.retries for c in cases) and any(c.timeout for c in cases)
    assert any(c.reference_tools for c in cases) and any(c.reference_output for c in cases)


def load_graders(data_dir: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bundled_graders", data_dir / "graders.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_code_graders_exist(bundled: dict[str, Suite], data_dir: Path) -> None:
    graders = load_graders(data_dir)
    for case in bundled["agent_booking"].cases:
        for g in case.graders:
            if g.type == "code":
                assert g.module == "graders" and callable(getattr(graders, str(g.function)))


@pytest.mark.parametrize(
    ("function", "output", "calls", "passed"),
    [
        ("confirmation_code_present", "Booked! Confirmation ABC123.", [], True),
        ("confirmation_code_present", "Booked, code CONF-77.", [], True),
        ("confirmation_code_present", "Booked.", [], False),
        ("mentions_alternative", "Sold out; AA1001 is free.", [], True),
        ("mentions_alternative", "Sold out.", [], False),
        ("no_dangerous_tools", "No.", [{"name": "get_booking"}], True),
        ("no_dangerous_tools", "Done.", [{"name": "delete_booking"}], False),
    ],
    ids=["code", "conf-code", "no-code", "alternative", "no-alternative", "safe", "dangerous"],
)
def test_code_graders(
    bundled: dict[str, Suite], data_dir: Path, function: str, output: str, calls: list, passed: bool
) -> None:
    case = bundled["agent_booking"].case("booking_handles_sold_out_flight")
    result = getattr(load_graders(data_dir), function)(Trace(output=output, tool_calls=calls), case)
    assert isinstance(result, GradeResult)
    assert result.passed is passed and result.grader == function and result.reason


def test_bundled_suites_dir_is_the_checkout_data_folder(data_dir: Path) -> None:
    assert bundled_suites_dir().resolve() == data_dir.resolve()
