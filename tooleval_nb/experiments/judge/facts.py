"""The facts layer of a judge report: every number, computed from a run's results, no LLM.

Input is a results frame with the runner's ``results_df()`` columns. The judge model may explain
and recommend, but every count, share and CI a report shows comes from here.

Failure taxonomy (:data:`FAILURE_MODES`, the scorer's ``failure_mode``): ``no_call``,
``spurious_call``, ``wrong_tool``, ``missing_call``, ``extra_call``, ``missing_required_arg``,
``hallucinated_arg``, ``wrong_type``, ``wrong_value``, ``parse_error``, ``api_error``; a failed
row without a mode counts as ``other``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ...scoring import FAILURE_MODES as SCORING_FAILURE_MODES
from ..calls import actual_calls_of, expected_calls_of, json_value
from ..compare import case_scores
from ..stats import mean_ci, paired

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...suite import Suite

__all__ = ["FAILURE_MODES", "Facts", "compute_facts"]

#: the judge's failure taxonomy: scoring's failure modes, and "other" for a verdict that names none
FAILURE_MODES: tuple[str, ...] = (*SCORING_FAILURE_MODES, "other")


@dataclass
class Facts:
    """Deterministic facts about one run (and, in compare mode, its paired delta to another)."""

    summary: dict[str, Any]
    failure_modes: pd.DataFrame
    by_category: pd.DataFrame
    by_tool: pd.DataFrame
    by_tag: pd.DataFrame
    param_errors: pd.DataFrame
    worst_cases: pd.DataFrame
    flaky: pd.DataFrame
    #: compare mode: the paired delta row, fixed / broken case ids, the failure-mode shift
    comparison: dict[str, Any] | None = None
    shift: pd.DataFrame | None = None
    case_modes: dict[str, str] = field(default_factory=dict)

    def mode_count(self, mode: str) -> int:
        row = self.failure_modes[self.failure_modes["failure_mode"] == mode]
        return int(row["count"].iloc[0]) if len(row) else 0

    def modes_present(self) -> set[str]:
        return set(self.failure_modes.loc[self.failure_modes["count"] > 0, "failure_mode"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready facts (stored as ``facts_json``)."""

        def records(df: pd.DataFrame | None) -> list[dict[str, Any]]:
            return [] if df is None else json.loads(df.to_json(orient="records"))

        return {
            "summary": self.summary,
            "failure_modes": records(self.failure_modes),
            "by_category": records(self.by_category),
            "by_tool": records(self.by_tool),
            "by_tag": records(self.by_tag),
            "param_errors": records(self.param_errors),
            "worst_cases": records(self.worst_cases),
            "flaky": records(self.flaky),
            "comparison": self.comparison,
            "shift": records(self.shift),
        }


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    return json.dumps(value, sort_keys=True, default=str)


def _same_type(a: Any, b: Any) -> bool:
    num = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, num) and isinstance(b, num):
        return True
    return type(a) is type(b)


# -- the facts ---------------------------------------------------------------------------------
def _mode_of(row: Any) -> str:
    if isinstance(row.get("error"), str) and row.get("error"):
        return "api_error"
    mode = row.get("failure_mode")
    if isinstance(mode, str) and mode:
        return mode if mode in FAILURE_MODES else "other"
    return "passed" if bool(row.get("passed")) else "other"


def _group_scores(df: pd.DataFrame, key: pd.Series, name: str, ci: float) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for label, part in df.groupby(key, sort=True, dropna=False):
        scores = part["overall"].astype(float).fillna(0.0).to_numpy()
        mean, lo, hi = mean_ci(scores, ci)
        rows.append(
            {
                name: "(none)" if label is None or label != label else label,
                "n": len(part),
                "score": mean,
                "ci_low": lo,
                "ci_high": hi,
                "pass_rate": float(part["passed"].astype(float).fillna(0).mean()),
            }
        )
    return pd.DataFrame(rows, columns=[name, "n", "score", "ci_low", "ci_high", "pass_rate"])


def _param_errors(df: pd.DataFrame, suite: Suite | None) -> pd.DataFrame:
    import pandas as pd

    schema: dict[str, set[str]] = {}
    if suite is not None:
        schema = {t.name: set(t.properties) for t in suite.tools}
    stats: dict[tuple[str, str], Counter] = {}
    pairs: dict[tuple[str, str], Counter] = {}
    for _, row in df.iterrows():
        actual = actual_calls_of(row.get("tool_calls"))
        for exp in expected_calls_of(row.get("expected")):
            match = next((c for c in actual if c["name"] in exp["names"]), None)
            if match is None or match["arguments"] is None:
                continue
            args, name = match["arguments"], match["name"]
            for param, accepted in exp["arguments"].items():
                key = (name, param)
                counter = stats.setdefault(key, Counter())
                counter["n_expected"] += 1
                if param not in args:
                    if "" not in accepted:
                        counter["missing"] += 1
                    continue
                got = args[param]
                if _norm(got) in {_norm(v) for v in accepted if v != ""}:
                    continue
                real = [v for v in accepted if v != ""]
                if real and not any(_same_type(got, v) for v in real):
                    counter["wrong_type"] += 1
                else:
                    counter["wrong_value"] += 1
                pairs.setdefault(key, Counter())[
                    f"{json.dumps(real[0] if real else None, default=str)[:40]} → "
                    f"{json.dumps(got, default=str)[:40]}"
                ] += 1
            known = schema.get(name, set(exp["arguments"]))
            for param in args:
                if param not in known:
                    stats.setdefault((name, param), Counter())["hallucinated"] += 1
    rows = []
    for (tool, param), c in stats.items():
        bad = c["wrong_value"] + c["wrong_type"] + c["missing"] + c["hallucinated"]
        if not bad:
            continue
        top = "; ".join(
            f"{p} (×{n})" for p, n in pairs.get((tool, param), Counter()).most_common(3)
        )
        rows.append(
            {
                "tool": tool,
                "param": param,
                "n_expected": c["n_expected"],
                "wrong_value": c["wrong_value"],
                "wrong_type": c["wrong_type"],
                "missing": c["missing"],
                "hallucinated": c["hallucinated"],
                "errors": bad,
                "top_pairs": top,
            }
        )
    cols = [
        "tool",
        "param",
        "n_expected",
        "wrong_value",
        "wrong_type",
        "missing",
        "hallucinated",
        "errors",
        "top_pairs",
    ]
    out = pd.DataFrame(rows, columns=cols)
    return out.sort_values(
        ["errors", "tool", "param"], ascending=[False, True, True], ignore_index=True
    )


def compute_facts(
    results: pd.DataFrame,
    *,
    compare_to: pd.DataFrame | None = None,
    suite: Suite | None = None,
    ci: float = 0.95,
    worst_n: int = 10,
    examples: int = 3,
    seed: int = 0,
) -> Facts:
    """Compute the facts of a run's results (and the paired comparison with ``compare_to``).

    Args:
        results: a results frame (one model).
        compare_to: the reference run's results, for compare mode.
        suite: the suite, to tell hallucinated parameters from the tools' schemas.
        ci: confidence level.
        worst_n: how many worst cases to list.
        examples: example case ids per failure mode.
        seed: bootstrap seed for the paired delta.
    """
    import pandas as pd

    df = results.reset_index(drop=True).copy()
    df["mode_"] = [_mode_of(r) for r in df.to_dict("records")]
    df["overall"] = df["overall"].astype(float).fillna(0.0)
    df["passed"] = df["passed"].astype(float).fillna(0.0)
    n = len(df)
    score, s_lo, s_hi = mean_ci(df["overall"].to_numpy(), ci)
    passed = int(df["passed"].sum())
    pass_rate, p_lo, p_hi = mean_ci(df["passed"].to_numpy(), ci)
    latency = df["latency_ms"].astype(float).dropna() if "latency_ms" in df else pd.Series([])

    def _tok(col: str) -> float | None:
        if col not in df or df[col].dropna().empty:
            return None
        return float(df[col].astype(float).mean())

    failures = df[df["mode_"] != "passed"]
    counts = Counter(failures["mode_"])
    fm_rows = []
    for mode in FAILURE_MODES:
        if counts.get(mode):
            ids = list(dict.fromkeys(failures.loc[failures["mode_"] == mode, "case_id"]))
            fm_rows.append(
                {
                    "failure_mode": mode,
                    "count": counts[mode],
                    "share": counts[mode] / n,
                    "share_of_failures": counts[mode] / max(1, len(failures)),
                    "example_case_ids": ids[:examples],
                }
            )
    failure_modes = pd.DataFrame(
        fm_rows, columns=["failure_mode", "count", "share", "share_of_failures", "example_case_ids"]
    )
    failure_modes = failure_modes.sort_values(
        "count", ascending=False, ignore_index=True, kind="stable"
    )
    tools = [
        next((c["name"] for c in expected_calls_of(e)), None) or "(no call expected)"
        for e in df.get("expected", pd.Series([None] * n))
    ]
    by_tool = _group_scores(df, pd.Series(tools, index=df.index), "tool", ci)
    by_category = _group_scores(
        df,
        df["category"] if "category" in df else pd.Series([None] * n, index=df.index),
        "category",
        ci,
    )
    tag_rows = []
    for i, raw in enumerate(df.get("tags", pd.Series([None] * n))):
        tags = json_value(raw) if isinstance(raw, str) else raw
        for tag in tags if isinstance(tags, list) and tags else ["(untagged)"]:
            tag_rows.append((i, tag))
    tagged = df.loc[[i for i, _ in tag_rows]].reset_index(drop=True)
    by_tag = (
        _group_scores(tagged, pd.Series([t for _, t in tag_rows]), "tag", ci)
        if tag_rows
        else _group_scores(df.iloc[0:0], pd.Series([], dtype=object), "tag", ci)
    )
    per_case = df.groupby("case_id", sort=False).agg(
        score=("overall", "mean"),
        pass_share=("passed", "mean"),
        n_samples=("overall", "size"),
        failure_mode=("mode_", lambda s: Counter(s).most_common(1)[0][0]),
    )
    first = df.drop_duplicates("case_id").set_index("case_id")
    worst = per_case.sort_values(["score", "pass_share"], kind="stable").head(worst_n)
    worst = worst[worst["score"] < 1.0]
    worst_cases = pd.DataFrame(
        {
            "case_id": worst.index,
            "score": worst["score"].to_numpy(),
            "failure_mode": worst["failure_mode"].to_numpy(),
            "prompt": [first.at[c, "prompt"] if "prompt" in first else None for c in worst.index],
            "expected": [
                first.at[c, "expected"] if "expected" in first else None for c in worst.index
            ],
            "tool_calls": [
                first.at[c, "tool_calls"] if "tool_calls" in first else None for c in worst.index
            ],
        }
    )
    flaky_mask = (
        (per_case["n_samples"] > 1) & (per_case["pass_share"] > 0) & (per_case["pass_share"] < 1)
    )
    flaky = per_case[flaky_mask].reset_index()[["case_id", "n_samples", "pass_share"]]
    models = df["model"].dropna().unique().tolist() if "model" in df else []
    runs = df["run_id"].dropna().unique().tolist() if "run_id" in df else []
    summary = {
        "run_id": runs[0] if len(runs) == 1 else None,
        "model": models[0] if len(models) == 1 else None,
        "n_rows": n,
        "n_cases": int(per_case.shape[0]),
        "n_samples": int(df["sample"].nunique()) if "sample" in df else 1,
        "score": score,
        "score_ci_low": s_lo,
        "score_ci_high": s_hi,
        "n_passed": passed,
        "n_failed": n - passed,
        "pass_rate": pass_rate,
        "pass_ci_low": p_lo,
        "pass_ci_high": p_hi,
        "n_errored": int(counts.get("api_error", 0)),
        "latency_p50_ms": float(np.percentile(latency, 50)) if len(latency) else None,
        "latency_p95_ms": float(np.percentile(latency, 95)) if len(latency) else None,
        "prompt_tokens_mean": _tok("prompt_tokens"),
        "completion_tokens_mean": _tok("completion_tokens"),
        "ci": ci,
    }
    facts = Facts(
        summary=summary,
        failure_modes=failure_modes,
        by_category=by_category,
        by_tool=by_tool,
        by_tag=by_tag,
        param_errors=_param_errors(df, suite),
        worst_cases=worst_cases,
        flaky=flaky,
        case_modes=per_case["failure_mode"].to_dict(),
    )
    if compare_to is not None:
        _add_comparison(facts, df, compare_to, ci, seed)
    return facts


def _add_comparison(
    facts: Facts, df: pd.DataFrame, other: pd.DataFrame, ci: float, seed: int
) -> None:
    import pandas as pd

    b, _ = case_scores(df, "overall")
    a, _ = case_scores(other, "overall")
    common = [c for c in b.index if c in a.index]
    res = paired(a.loc[common].to_numpy(), b.loc[common].to_numpy(), ci=ci, seed=seed)
    pa, _ = case_scores(other, "passed")
    pb, _ = case_scores(df, "passed")
    fixed = [c for c in common if pb[c] > pa[c]]
    broken = [c for c in common if pb[c] < pa[c]]
    other = other.copy()
    other_modes = Counter(
        _mode_of(r) for r in other[other["case_id"].isin(common)].to_dict("records")
    )
    mine = Counter(_mode_of(r) for r in df[df["case_id"].isin(common)].to_dict("records"))
    rows = [
        {
            "failure_mode": m,
            "before": other_modes.get(m, 0),
            "after": mine.get(m, 0),
            "change": mine.get(m, 0) - other_modes.get(m, 0),
        }
        for m in FAILURE_MODES
        if other_modes.get(m) or mine.get(m)
    ]
    facts.shift = pd.DataFrame(rows, columns=["failure_mode", "before", "after", "change"])
    facts.comparison = {
        **res.as_dict(),
        "fixed": fixed,
        "broken": broken,
        "run_a": other["run_id"].iloc[0] if "run_id" in other and len(other) else None,
    }
