"""Suite: ids, equality, DataFrame views, filtering, display."""

from __future__ import annotations

import pytest

from tooleval_nb.suite import EvalCase, Suite, Tool

WEATHER = Tool.create(
    "get_weather",
    "Weather for a city",
    {"city": {"type": "string"}, "units": {"type": "string"}},
    required=["city"],
)
OWN = Tool.create("math.factorial", "n!", {"number": {"type": "integer"}})


@pytest.fixture
def suite() -> Suite:
    return Suite(
        name="s",
        description="demo",
        tools=[WEATHER],
        system_prompt="Use tools.",
        cases=[
            EvalCase(
                name="paris",
                prompt="Weather in Paris?",
                expected_tool="get_weather",
                expected_params={"city": "Paris"},
                tags=["smoke", "Weather"],
            ),
            EvalCase(prompt="Hi", tags=["irrelevance"]),
            EvalCase(
                id="simple_0",
                messages=[{"role": "user", "content": "5!"}],
                tools=[OWN],
                expected_calls=[{"name": "math.factorial", "arguments": {"number": [5]}}],
                category="simple_python",
                tags=["bfcl"],
            ),
            EvalCase(
                name="two",
                prompt="Weather in A and B",
                tags=["parallel"],
                expected_calls=[
                    {"name": "get_weather", "arguments": {"city": "A"}},
                    {"name": "get_weather", "arguments": {"city": "B"}},
                ],
            ),
        ],
    )


def test_ids_come_from_id_name_or_index(suite: Suite) -> None:
    assert [c.id for c in suite.cases] == ["paris", "case_1", "simple_0", "two"]
    dup = Suite(name="d", cases=[EvalCase(id="x", prompt="a"), EvalCase(id="x", prompt="b")])
    assert [c.id for c in dup.cases] == ["x", "x_1"]
    assert suite.case("simple_0").category == "simple_python"
    with pytest.raises(KeyError):
        suite.case("nope")


def test_tools_for_prefers_the_case_tools(suite: Suite) -> None:
    assert suite.tools_for(suite.cases[0]) == [WEATHER]
    assert suite.tools_for(suite.cases[2]) == [OWN]
    assert suite.tool("get_weather") is WEATHER


def test_cases_df(suite: Suite) -> None:
    df = suite.cases_df()
    assert list(df.columns) == [
        "case_id",
        "name",
        "prompt",
        "expected_tool",
        "expected_params",
        "n_expected_calls",
        "param_scoring",
        "multi_turn",
        "max_rounds",
        "optimal_hops",
        "category",
        "tags",
        "has_expectations",
        "n_graders",
        "draft",
    ]
    assert df["prompt"].tolist() == ["Weather in Paris?", "Hi", "5!", "Weather in A and B"]
    assert df["expected_tool"].tolist() == [
        "get_weather",
        None,
        "math.factorial",
        ["get_weather", "get_weather"],
    ]
    assert df["n_expected_calls"].tolist() == [1, 0, 1, 2]


def test_tools_df(suite: Suite) -> None:
    df = suite.tools_df()
    assert list(df.columns) == [
        "name",
        "description",
        "parameters",
        "required",
        "n_params",
        "scope",
        "n_cases",
    ]
    assert df.to_dict("records") == [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": ["city", "units"],
            "required": ["city"],
            "n_params": 2,
            "scope": "suite",
            "n_cases": 3,
        },
        {
            "name": "math.factorial",
            "description": "n!",
            "parameters": ["number"],
            "required": [],
            "n_params": 1,
            "scope": "case",
            "n_cases": 1,
        },
    ]


@pytest.mark.parametrize(
    ("kwargs", "ids"),
    [
        ({"tags": ["smoke"]}, ["paris"]),
        ({"tags": ["WEATHER", "parallel"]}, ["paris", "two"]),
        ({"tags": []}, []),
        ({"ids": ["case_1", "two"]}, ["case_1", "two"]),
        ({"category": "simple_python"}, ["simple_0"]),
        ({"tags": ["smoke", "bfcl"], "category": "simple_python"}, ["simple_0"]),
        ({}, ["paris", "case_1", "simple_0", "two"]),
    ],
    ids=["one-tag", "any-tag-case-insensitive", "no-tags", "ids", "category", "combined", "all"],
)
def test_filter(suite: Suite, kwargs: dict, ids: list[str]) -> None:
    kept = suite.filter(**kwargs)
    assert [c.id for c in kept.cases] == ids
    assert kept.tools == suite.tools and kept.system_prompt == suite.system_prompt
    assert len(suite) == 4  # the original is unchanged


def test_equality_ignores_the_source(suite: Suite) -> None:
    again = Suite.model_validate({**suite.model_dump(), "source": "elsewhere.json"})
    assert again == suite and again.source == "elsewhere.json"
    assert suite != suite.filter(tags=["smoke"])
    assert suite != "s"


def test_fingerprint_tracks_content_not_name(suite: Suite) -> None:
    renamed = suite.model_copy(update={"name": "other", "description": "x"})
    assert renamed.fingerprint() == suite.fingerprint()
    assert suite.filter(tags=["smoke"]).fingerprint() != suite.fingerprint()
    assert len(suite.fingerprint()) == 16


def test_fingerprint_value_is_stable(suite: Suite) -> None:
    # stored with every run and in experiment keys: the value itself must never change
    import hashlib
    import json

    from tooleval_nb.suite import fingerprint_of

    data = suite.model_dump(mode="json", exclude={"name", "description"})
    blob = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    assert suite.fingerprint() == hashlib.sha256(blob.encode()).hexdigest()[:16]
    assert fingerprint_of(suite.model_dump(mode="json")) == suite.fingerprint()


def test_suite_text_is_json_dumps_sorted_character_for_character() -> None:
    """The fingerprint and a job's stored suite join per-field encodings: they must equal one
    ``json.dumps(sort_keys=True)`` of the whole, for every bundled suite and odd text."""
    import hashlib
    import json
    from pathlib import Path

    from tooleval_nb.formats import load_suite
    from tooleval_nb.suite import SuiteText

    data = Path(__file__).resolve().parents[2] / "data"
    suites = [
        s
        for p in sorted(data.glob("*.*"))
        if p.suffix in (".json", ".yaml")
        for s in (lambda x: x if isinstance(x, list) else [x])(load_suite(p))
    ]
    odd = Suite(
        name='naïve, "quoted": ünïcode',
        description="x: y, z",
        tools=[],
        cases=[EvalCase(id="é", prompt='say {"a": 1, "b": [1.5, 1e16, -0.0]} ✓')],
    )
    assert len(suites) >= 8
    for one in [*suites, odd]:
        dumped = one.model_dump(mode="json")
        text = SuiteText(dumped)
        assert text.text() == json.dumps(dumped, sort_keys=True, ensure_ascii=False, default=str)
        labels_out = {k: v for k, v in dumped.items() if k not in ("name", "description")}
        blob = json.dumps(labels_out, sort_keys=True, ensure_ascii=False, default=str)
        assert text.text(("name", "description")) == blob
        assert text.fingerprint() == hashlib.sha256(blob.encode()).hexdigest()[:16]
        assert text.fingerprint() == one.fingerprint()


def test_display(suite: Suite) -> None:
    assert (
        repr(suite)
        == str(suite)
        == (f"Suite(name='s', tools=1, cases=4, fingerprint='{suite.fingerprint()}')")
    )
    bundle = suite._repr_mimebundle_()
    assert bundle["text/plain"] == repr(suite)
    assert "<b>s</b> — 1 tools, 4 cases" in bundle["text/html"] and "<table" in bundle["text/html"]


def test_display_falls_back_to_text(suite: Suite, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Suite) -> None:
        raise RuntimeError("no pandas today")

    monkeypatch.setattr(Suite, "cases_df", broken)
    assert suite._repr_mimebundle_() == {"text/plain": repr(suite)}
