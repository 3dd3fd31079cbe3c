"""Graders (seed ``agent-test-cases.md``): an LLM grader and a code grader.

* ``type: llm``: the prompt's ``{{ input }}``, ``{{ output }}``, ``{{ trace }}`` and
  ``{{ task }}`` are filled in (``task`` is the case's description, else its input) and sent to
  ``model`` (any litellm model; default :data:`tooleval_nb.models.DEFAULT_MODEL`, the embedded
  one) through :func:`tooleval_nb.models.call_model_async`. The reply's ``SCORE: n`` is compared
  with ``threshold`` when one is set; otherwise its ``PASS`` / ``FAIL`` decides. The verdict and the
  ``Reason:`` line (else the whole reply) are kept. A model error is a failed grade with ``error``
  set, never an exception.
* ``type: code``: ``module`` (a ``.py`` path inside the suite's folder ``base_dir``, or a dotted
  module name: see :mod:`tooleval_nb.suite.code`; anything else is refused) and ``function(trace, case) -> GradeResult`` (a bool or a dict is accepted too).
  An exception in the function is a failed grade with ``error`` set.

This module is the only part of scoring that calls a model; it does so only through
:mod:`tooleval_nb.models`.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, cast

from ..aio import run_sync
from ..suite import EvalCase, GraderSpec
from ..suite.code import GraderRefused, locate_grader
from .trace import GradeResult, Trace

__all__ = [
    "GradeResult",
    "Trace",
    "render_prompt",
    "parse_verdict",
    "grade_llm_async",
    "grade_code",
    "run_graders_async",
    "run_graders",
    "CallModel",
]

#: the model-calling function an LLM grader uses: ``(model, messages, **kw) -> ModelReply``
CallModel = Callable[..., Awaitable[Any]]

_VAR = re.compile(r"\{\{\s*(input|output|trace|task)\s*\}\}")
_SCORE = re.compile(r"SCORE\s*[:=]\s*(-?\d+(?:\.\d+)?)", re.IGNORECASE)
_ANSWER = re.compile(r"(?:answer|verdict|result)\s*[:=]\s*\**\s*(PASS|FAIL)", re.IGNORECASE)
_WORD = re.compile(r"\b(PASS|FAIL)(?:ED|ES)?\b")
_REASON = re.compile(r"reason\s*[:=]\s*(.+)", re.IGNORECASE | re.DOTALL)


def render_prompt(template: str, case: EvalCase, trace: Trace) -> str:
    """Fill ``{{ input }}``, ``{{ output }}``, ``{{ trace }}`` and ``{{ task }}``."""
    values = {
        "input": trace.input or case.prompt_text,
        "output": trace.output or "",
        "trace": trace.to_json(),
        "task": case.description or case.prompt_text,
    }
    return _VAR.sub(lambda m: values[m.group(1)], template)


def parse_verdict(
    text: str, threshold: float | None = None
) -> tuple[bool | None, float | None, str]:
    """(passed, score, reason) from a grader reply; passed is None when no verdict is found.

    With a ``threshold`` the ``SCORE: n`` line decides (n >= threshold); without one, or when no
    score is given, an ``Answer: PASS|FAIL`` line, else the first standalone PASS / FAIL word.
    """
    score = None
    m = _SCORE.search(text)
    if m:
        score = float(m.group(1))
    reason_m = _REASON.search(text)
    reason = reason_m.group(1).strip() if reason_m else text.strip()
    if threshold is not None and score is not None:
        return score >= threshold, score, reason
    m = _ANSWER.search(text) or _WORD.search(text)
    if m:
        return m.group(1).upper() == "PASS", score, reason
    return None, score, reason


def _name(spec: GraderSpec, index: int) -> str:
    if spec.name:
        return spec.name
    if spec.type == "code":
        return str(spec.function)
    return f"llm_{index}"


async def grade_llm_async(
    spec: GraderSpec,
    case: EvalCase,
    trace: Trace,
    *,
    call: CallModel | None = None,
    name: str = "llm",
    timeout: float | None = None,
) -> GradeResult:
    """Run one LLM grader. ``call`` replaces :func:`tooleval_nb.models.call_model_async`."""
    from ..models import DEFAULT_MODEL, call_model_async

    model = spec.model or DEFAULT_MODEL
    caller = call or call_model_async
    prompt = render_prompt(spec.prompt or "", case, trace)
    reply = await caller(model, [{"role": "user", "content": prompt}], timeout=timeout)
    details = {"model": model, "prompt": prompt}
    if getattr(reply, "error", None):
        return GradeResult.failed_result(
            name, f"the grader model failed: {reply.error}", error=str(reply.error), details=details
        )
    text = getattr(reply, "content", None) or getattr(reply, "raw_text", None) or ""
    details["reply"] = text
    passed, score, reason = parse_verdict(text, spec.threshold)
    if passed is None:
        return GradeResult.failed_result(
            name,
            "the grader's reply has no PASS/FAIL verdict"
            + (" and no SCORE" if spec.threshold is not None else ""),
            score=score,
            details=details,
        )
    return GradeResult(grader=name, passed=passed, score=score, reason=reason, details=details)


def _load_function(module: str, function: str, base_dir: str | Path | None) -> Callable[..., Any]:
    found = locate_grader(module, base_dir)
    if isinstance(found, str):
        mod = importlib.import_module(found)  # an installed module: sys.path untouched
    else:
        mod = _load_file(found, base_dir)
    fn = getattr(mod, function, None)
    if not callable(fn):
        raise AttributeError(f"module {module!r} has no function {function!r}")
    return cast("Callable[..., Any]", fn)


def _load_file(path: Path, base_dir: str | Path | None) -> Any:
    """The module of the file ``path`` (loaded once per file), its folder on ``sys.path`` only
    while its top level runs (see :mod:`tooleval_nb.suite.code`)."""
    mod_name = f"tooleval_grader_{hashlib.sha256(str(path).encode()).hexdigest()[:16]}"
    mod = sys.modules.get(mod_name)
    if mod is not None:
        return mod
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ImportError(f"grader file {path} not found")
    mod = importlib.util.module_from_spec(spec)
    folder = str(Path(base_dir).resolve()) if base_dir is not None else str(path.parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(mod)
    finally:
        if added:
            try:
                sys.path.remove(folder)
            except ValueError:
                pass
    sys.modules[mod_name] = mod
    return mod


def grade_code(
    spec: GraderSpec,
    case: EvalCase,
    trace: Trace,
    *,
    name: str = "code",
    base_dir: str | Path | None = None,
    code_graders: bool = True,
) -> GradeResult:
    """Run one code grader ``module.function(trace, case)``.

    Its module is found by :func:`tooleval_nb.suite.code.locate_grader`: a file inside the
    suite's folder ``base_dir`` or an installed module; anything else is refused, a failed grade
    with ``error="refused"`` and the reason. ``code_graders=False`` refuses every code grader
    (``run_eval(..., code_graders=False)``, ``--no-code-graders``): nothing is imported.
    """
    where = f"{spec.module}.{spec.function}"
    if not code_graders:
        return GradeResult.failed_result(
            name,
            f"code grader {where} refused: code graders are off (code_graders=False, "
            "--no-code-graders); nothing was run. Check the code the suite names "
            "(tooleval-nb validate lists it) and run with code graders on to grade it",
            error="refused",
        )
    try:
        fn = _load_function(str(spec.module), str(spec.function), base_dir)
    except GraderRefused as exc:
        return GradeResult.failed_result(
            name, f"code grader {where} refused: {exc}", error="refused"
        )
    except (ImportError, AttributeError, SyntaxError, OSError) as exc:
        return GradeResult.failed_result(
            name,
            f"cannot load code grader {where}: {exc}; check the grader's module and function",
            error=str(exc),
        )
    try:
        value = fn(trace, case)
    except Exception as exc:  # a grader's bug is a failed grade, recorded with its message
        return GradeResult.failed_result(
            name, f"code grader {where} raised {type(exc).__name__}: {exc}", error=repr(exc)
        )
    if isinstance(value, GradeResult):
        return value
    if isinstance(value, bool):
        return GradeResult(grader=name, passed=value)
    if isinstance(value, dict):
        return GradeResult.model_validate({"grader": name, **value})
    return GradeResult.failed_result(
        name,
        f"code grader {where} returned {type(value).__name__}, not a GradeResult",
        error="bad return type",
    )


async def run_graders_async(
    case: EvalCase,
    trace: Trace,
    *,
    call: CallModel | None = None,
    base_dir: str | Path | None = None,
    graders: Sequence[GraderSpec] | None = None,
    code_graders: bool = True,
) -> list[GradeResult]:
    """Run the case's graders (LLM graders concurrently); one GradeResult each, in order
    (``code_graders=False``: code graders are refused, see :func:`grade_code`)."""
    specs = list(case.graders if graders is None else graders)
    results: list[GradeResult | None] = [None] * len(specs)
    pending = []
    for i, spec in enumerate(specs):
        name = _name(spec, i)
        if spec.type == "code":
            results[i] = grade_code(
                spec, case, trace, name=name, base_dir=base_dir, code_graders=code_graders
            )
        else:
            timeout = case.timeout  # None: the models module's default
            pending.append(
                (i, grade_llm_async(spec, case, trace, call=call, name=name, timeout=timeout))
            )
    if pending:
        done = await asyncio.gather(*(c for _, c in pending))
        for (i, _), result in zip(pending, done, strict=True):
            results[i] = result
    return [r for r in results if r is not None]


def run_graders(
    case: EvalCase,
    trace: Trace,
    *,
    call: CallModel | None = None,
    base_dir: str | Path | None = None,
    graders: Sequence[GraderSpec] | None = None,
    code_graders: bool = True,
) -> list[GradeResult]:
    """The sync twin of :func:`run_graders_async` (safe inside a running loop)."""
    if all(g.type == "code" for g in (case.graders if graders is None else graders)):
        return [
            grade_code(
                g, case, trace, name=_name(g, i), base_dir=base_dir, code_graders=code_graders
            )
            for i, g in enumerate(case.graders if graders is None else graders)
        ]
    return run_sync(
        run_graders_async(
            case, trace, call=call, base_dir=base_dir, graders=graders, code_graders=code_graders
        )
    )
