"""BFCL entries as a suite: the same suite as the validated one, built with less work."""

from __future__ import annotations

import json

import pytest

from tooleval_nb.bfcl.suite import build_suite
from tooleval_nb.bfcl_rules.categories import SINGLE_TURN as CATEGORIES
from tooleval_nb.bfcl_rules.data import BfclData
from tooleval_nb.suite import Suite


@pytest.fixture(scope="module")
def data(bfcl_data):
    return BfclData(bfcl_data)


@pytest.mark.parametrize(
    ("mode", "prompt_format"), [("fc", "python"), ("prompt", "python"), ("prompt", "json")]
)
def test_the_suite_equals_the_validated_one(data, mode, prompt_format):
    """Built without a second round of cross-checks, the suite is the one ``Suite(...)``
    validates (same cases, same dump, same fingerprint: a run started before still resumes)."""
    suite = build_suite(
        [data.category(c) for c in CATEGORIES], mode, limit=25, prompt_format=prompt_format
    )
    validated = Suite(name=suite.name, description=suite.description, cases=suite.cases)
    assert suite == validated
    assert suite.model_dump(mode="json") == validated.model_dump(mode="json")
    assert suite.fingerprint() == validated.fingerprint()
    assert suite.problems() == []
    assert [c.id for c in suite.cases][:3] == [
        "simple_python_0",
        "simple_java_0",
        "simple_javascript_0",
    ]


def test_entries_with_the_same_functions_share_their_tools(data):
    cat = data.category("live_irrelevance")
    suite = build_suite([cat], "fc", limit=40)
    by_functions: dict[str, list] = {}
    for case, entry in zip(suite.cases, cat.head(40), strict=True):
        by_functions.setdefault(json.dumps(entry["function"]), []).append(case)
    shared = [cases for cases in by_functions.values() if len(cases) > 1]
    assert shared, "the first 40 live_irrelevance entries repeat function lists"
    for cases in shared:
        first = cases[0].tools
        assert all(a is b for c in cases[1:] for a, b in zip(c.tools, first, strict=True))
    # and the same tools as each entry built alone
    alone = {c.id: c for c in build_suite([cat], "fc", limit=1).cases}
    assert suite.cases[0].tools == alone[suite.cases[0].id].tools


def test_a_repeated_id_goes_through_the_suites_own_validation(tmp_path):
    (tmp_path / "BFCL_v4_irrelevance.json").write_text(
        "".join(
            json.dumps(
                {
                    "id": "irrelevance_0",
                    "question": [[{"role": "user", "content": t}]],
                    "function": [],
                }
            )
            + "\n"
            for t in ("a", "b")
        )
    )
    suite = build_suite([BfclData(tmp_path).category("irrelevance")], "fc")
    assert [c.id for c in suite.cases] == ["irrelevance_0", "irrelevance_0_1"]
