"""A benchmark's finished run: the runner's :class:`~tooleval_nb.runner.Run`, with the
benchmark's views beside the runner's own.

:class:`BenchmarkRun` is the base of ``BfclRun`` (and of τ²'s run): made from the runner's run
without reading the store again (:meth:`BenchmarkRun.from_run`), it reads the stored detail of
the cells its views need (:meth:`BenchmarkRun.stored_details`) and says when a model refused
native tools on every case (:meth:`BenchmarkRun.check_native_tools`).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any, Self

from ..errors import ModelConfigError
from ..runner import Run
from ..runner.results import ResultRow

__all__ = ["BenchmarkRun", "Cell"]

#: ``(model label, case id, sample)``: one stored result of a run
Cell = tuple[str, str, int]
#: cells whose stored detail is read one by one (more: the run's rows in one read)
_ONE_BY_ONE = 32
_TOOL_REJECTION = ("tool", "function")
#: words of a bad request refused for its length (a case too long for the model's context
#: window: that case's error, not a model that rejects native tools)
_TOO_LONG = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "too many tokens",
    "reduce the length",
)


class BenchmarkRun(Run):
    """A :class:`~tooleval_nb.runner.Run` of a benchmark; a subclass adds its views."""

    @classmethod
    def from_run(cls, run: Run) -> Self:
        """This class's view of ``run``: the same run (store, id, rows read), no read."""
        out = cls.__new__(cls)
        out.__dict__.update(run.__dict__)
        return out

    def stored_details(self, cells: Collection[Cell]) -> dict[Cell, dict[str, Any]]:
        """The stored detail (the hops, the conversation) of these cells, parsed: one by one
        when they are few (a resumed run's earlier cells), else all the run's rows in one
        read. A cell with no stored detail maps to ``{}``."""
        if len(cells) > _ONE_BY_ONE:
            wanted = set(cells)
            out: dict[Cell, dict[str, Any]] = {}
            for row in self.store.results(self.id, detail=True):
                cell = (row.model, row.case_id, row.sample or 0)
                if cell in wanted:
                    out[cell] = json.loads(row.detail or "{}")
            return out
        return {
            (label, case_id, sample): json.loads(
                self.store.result_detail(self.id, label, case_id, sample) or "{}"
            )
            for label, case_id, sample in cells
        }

    def check_native_tools(self, unit: str, advice: str) -> None:
        """Raise ModelConfigError when a model rejected native tools on every case (``fc``
        mode): every request refused as a bad request, or every error about tools or
        functions. A request refused for its length says nothing about tools: a model with
        such an error is not judged here (its cases stay, errored).

        Args:
            unit: what a case is, for the message (``"BFCL entry"``).
            advice: what to do instead (``"run it with mode='prompt' (...)"``).
        """
        by_model: dict[str, list[ResultRow]] = {}
        for row in self._rows:
            by_model.setdefault(row.model, []).append(row)
        for label, part in by_model.items():
            errors = [r.error for r in part if r.error is not None]
            if any(w in str(e).lower() for e in errors for w in _TOO_LONG):
                continue
            kinds = [r.error_type for r in part if r.error_type is not None]
            if len(errors) == len(part) and (
                all(k == "ModelBadRequestError" for k in kinds)
                or all(any(w in str(e).lower() for w in _TOOL_REJECTION) for e in errors)
            ):
                raise ModelConfigError(
                    f"model {label!r} rejected native tools on every {unit} (first error: "
                    f"{str(errors[0])[:300]}); it cannot be run in mode='fc': {advice}"
                )
