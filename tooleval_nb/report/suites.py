"""A report's suites and how they run: load them (tags, then ``max_cases``; the bundled suites by
default), turn the parameters into ``run_eval`` options, and run every suite in this process (one
stored run each)."""

from __future__ import annotations

import pkgutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..aio import run_sync
from ..errors import SuiteError, ToolEvalError
from ..formats import bundled_suites_dir, load_suites
from ..runner import run_eval_async
from .params import ReportParams
from .runs import SuiteRuns

if TYPE_CHECKING:  # pragma: no cover
    from ..suite import Suite

__all__ = [
    "bundled_suites_dir",
    "load_report_suites",
    "targets",
    "run_options",
    "run_suites",
    "run_suites_async",
]


def load_report_suites(params: ReportParams) -> list[Suite]:
    """Load every suite of ``params``, keep the tagged cases, then the first ``max_cases``.

    Suites left without cases are dropped; none left at all is an error.
    """
    paths = [Path(p) for p in params.suites] or [bundled_suites_dir()]
    out: list[Suite] = []
    for path in paths:
        for suite in load_suites(path):
            if params.tags:
                suite = suite.filter(tags=params.tags)
            if params.max_cases is not None:
                suite = suite.model_copy(update={"cases": suite.cases[: params.max_cases]})
            if suite.cases:
                out.append(suite)
    if not out:
        where = ", ".join(map(str, paths))
        raise SuiteError(
            f"no cases to run in {where}"
            + (f" with tags {params.tags}" if params.tags else "")
            + "; check --suite and --tags",
            path=where,
        )
    return out


def targets(params: ReportParams) -> list[Any]:
    """The runner's targets: every model in every mode, with the endpoint when one is given."""
    out: list[Any] = []
    for model in params.models:
        base = {"model": model}
        if params.api_base and not model.startswith("local/"):
            base["api_base"] = params.api_base
        if params.api_key_env and not model.startswith("local/"):
            base["api_key_env"] = params.api_key_env
        if not model.startswith("local/"):
            for name in ("ssl_verify", "ssl_cert", "max_response_bytes"):
                if getattr(params, name) is not None:
                    base[name] = getattr(params, name)
        if len(params.mode) > 1:
            out.extend({**base, "mode": mode} for mode in params.mode)
        else:
            out.append(base if len(base) > 1 else model)
    return out


def _agent(path: str) -> Any:
    try:
        if ":" not in path:
            raise ValueError("no ':' between the module and the callable")
        return pkgutil.resolve_name(path)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ToolEvalError(
            f"agent {path!r} cannot be imported ({exc}); give "
            "'module:callable' of a module on the Python path"
        ) from None


def run_options(params: ReportParams) -> dict[str, Any]:
    """``run_eval`` arguments for ``params`` but the suite and targets: ``settings`` (one
    :class:`~tooleval_nb.runner.settings.RunSettings`) and the job's own options."""
    options: dict[str, Any] = {
        "settings": params.run_settings(),
        "store": params.store,
        "name": params.name,
        "resume": params.resume,
    }
    if params.agent:
        options["agent"] = _agent(params.agent)
    if len(params.mode) == 1:
        options["mode"] = params.mode[0]
    return options


async def run_suites_async(
    params: ReportParams,
    suites: Sequence[Suite] | None = None,
    callbacks: Any = None,
    progress: Any = "none",
) -> SuiteRuns:
    """Run every suite of ``params`` (one stored run each, in order) and combine their results.

    ``progress`` is the runner's: ``"none"``, ``"text"`` (a bar on stderr; plain lines in a
    log) or ``"widget"``.
    """
    suites = list(suites) if suites is not None else load_report_suites(params)
    start = time.perf_counter()
    runs = []
    options = run_options(params)
    for suite in suites:
        runs.append(
            await run_eval_async(
                suite, targets(params), callbacks=callbacks, progress=progress, **options
            )
        )
    return SuiteRuns(suites=suites, runs=runs, elapsed_s=time.perf_counter() - start)


def run_suites(
    params: ReportParams,
    suites: Sequence[Suite] | None = None,
    callbacks: Any = None,
    progress: Any = "none",
) -> SuiteRuns:
    """Sync twin of :func:`run_suites_async` (for scripts and the CLI; in a notebook, await)."""
    return run_sync(run_suites_async(params, suites, callbacks, progress))
