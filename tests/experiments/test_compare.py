"""te.compare on results frames shaped like the runner's results_df()."""

from __future__ import annotations

import pandas as pd
import pytest

from tooleval_nb.errors import ExperimentError
from tooleval_nb.experiments.compare import COMPARE_COLUMNS, compare


def frame(
    run_id: str,
    passed: list[int],
    *,
    model: str = "m",
    samples: int = 1,
    overall: list[float] | None = None,
    errors: set[int] = frozenset(),
) -> pd.DataFrame:
    rows = []
    for i, p in enumerate(passed):
        for s in range(samples):
            err = i in errors
            rows.append(
                {
                    "run_id": run_id,
                    "model": model,
                    "case_id": f"c{i}",
                    "category": "a" if i % 2 else "b",
                    "sample": s,
                    "passed": bool(p) and not err,
                    "overall": None if err else (overall[i] if overall else float(p)),
                    "error": "boom" if err else None,
                }
            )
    return pd.DataFrame(rows)


def test_binary_metric_uses_exact_mcnemar():
    a = frame("ra", [0] * 10)
    b = frame("rb", [1] * 6 + [0] * 4)
    out = compare(b, a, metric="passed")
    assert list(out.columns) == COMPARE_COLUMNS and len(out) == 1
    row = out.iloc[0]
    assert row.method == "mcnemar" and row.p_value == pytest.approx(1 / 32)
    assert (row.wins, row.losses, row.ties, row.n_common) == (6, 0, 4, 10)
    assert row.delta == pytest.approx(0.6) and row.ci_low > 0
    assert (row.run_a, row.run_b) == ("ra", "rb")


def test_fractional_scores_use_seeded_bootstrap():
    a = frame("ra", [0] * 12, overall=[0.2, 0.4] * 6)
    b = frame("rb", [0] * 12, overall=[0.3, 0.6] * 6)
    one = compare(b, a, seed=1)
    assert one.iloc[0].method == "bootstrap"
    pd.testing.assert_frame_equal(one, compare(b, a, seed=1))


def test_errors_count_as_zero_and_samples_are_averaged():
    a = frame("ra", [1, 1, 1, 1], samples=2)
    b = frame("rb", [1, 1, 1, 1], samples=2, errors={0})
    row = compare(b, a).iloc[0]
    assert row.mean_b == pytest.approx(0.75) and row.losses == 1


def test_only_common_cases_are_paired():
    a = frame("ra", [1, 0, 1])
    b = frame("rb", [1, 1])
    row = compare(b, a, metric="passed").iloc[0]
    assert row.n_common == 2 and row.delta == pytest.approx(0.5)


def test_cluster_resampling_is_bootstrap():
    a = frame("ra", [0, 1] * 10)
    b = frame("rb", [1, 1] * 10)
    assert compare(b, a, metric="passed", cluster="category").iloc[0].method == "bootstrap"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"metric": "nope"}, "no column"), ({"cluster": "nope"}, "no such column")],
    ids=["metric", "cluster"],
)
def test_compare_errors(kwargs, match):
    with pytest.raises(ExperimentError, match=match):
        compare(frame("b", [1]), frame("a", [1]), **kwargs)


def test_compare_refuses_disjoint_and_multi_model():
    with pytest.raises(ExperimentError, match="share no case"):
        compare(frame("b", [1]), frame("a", [1]).assign(case_id="x"))
    two = pd.concat([frame("a", [1, 0]), frame("a", [1, 1], model="other")])
    with pytest.raises(ExperimentError, match="model="):
        compare(two, frame("b", [1, 0]))
    assert compare(two, frame("b", [1, 0], model="other"), model="other").iloc[0].delta == 0.5
    with pytest.raises(ExperimentError, match="cannot compare"):
        compare(object(), frame("a", [1]))
