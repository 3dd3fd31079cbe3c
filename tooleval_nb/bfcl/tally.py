"""BFCL's verdicts taken while a run goes: each entry judged as soon as the runner stores it.

A BFCL run lasts as long as the model takes to answer; judging an entry needs only its stored
reply. :class:`EntryTally` follows the job's ``tool_eval_result`` events (published once the
case's row is committed) and, for each first sample that ran, reads the row's stored detail,
rebuilds BFCL's ``result`` from it (:func:`.results.raw_result`) and judges it
(:func:`.verdicts.judge`: BFCL's verdict and our partial credit). When the run ends, only the
files remain to write (:class:`~tooleval_nb.bfcl.run.BfclRun` takes what was kept here).

A stored row never changes (the runner inserts a case × model × sample once), so a result
rebuilt here is the one the result file gets. What was not seen here (entries a resumed run
stored in an earlier process, errored entries, which need no detail) is read and judged at the
end, as before. A failure here is logged and loses nothing but the head start: that entry is
judged at the end.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..bfcl_rules.data import CategoryData
from .results import multi_turn_entry, raw_result
from .verdicts import judge

if TYPE_CHECKING:  # pragma: no cover
    from ..runner.events import Event
    from ..runner.store import Store
    from ..suite import EvalCase

__all__ = ["EntryTally"]

log = logging.getLogger("tooleval_nb.bfcl")


class EntryTally:
    """Results and judgements of a run's stored entries, by model label and entry id.

    Args:
        store: the run's store.
        run_id: the run.
        mode: ``fc`` or ``prompt`` (how the result is read and judged).
        prompt_format: in prompt mode, the call format asked for.
        categories: category -> its data (questions and possible answers).
        cases: the suite's cases (their category, and their tools to name calls when a raw
            reply was not kept).
    """

    def __init__(
        self,
        store: Store,
        run_id: str,
        mode: str,
        prompt_format: str,
        categories: Mapping[str, CategoryData],
        cases: list[EvalCase],
        looped: Mapping[str, str] | None = None,
    ) -> None:
        self.store, self.run_id = store, run_id
        self.mode, self.prompt_format = mode, prompt_format
        self.categories = categories
        self._cases = {c.id: c for c in cases}
        #: entry id -> category, for the entries run by BFCL's multi-turn loop
        self.looped = dict(looped or {})
        #: model label -> entry id -> (result, judge(result))
        self.judged: dict[str, dict[str, tuple[Any, dict[str, Any]]]] = {}
        #: model label -> entry id -> BFCL's result line (multi-turn and memory entries)
        self.entries: dict[str, dict[str, dict[str, Any]]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []

    def __call__(self, event: Event) -> None:
        """Take one ``tool_eval_result`` event (other events are ignored)."""
        data = event.data
        if (
            event.type != "tool_eval_result"
            or data.get("sample") not in (0, None)
            or data.get("error")
            or data.get("run_id") != self.run_id
        ):
            return
        try:
            self.take(str(data["model"]), str(data["case_id"]), int(data.get("sample") or 0))
        except Exception:  # noqa: BLE001  # judged again at the end; the run must go on
            log.warning(
                "BFCL entry %s of %s not judged during the run",
                data.get("case_id"),
                data.get("model"),
                exc_info=True,
            )

    def take(self, label: str, case_id: str, sample: int = 0) -> None:
        """Read one stored entry's reply and judge it."""
        case = self._cases.get(case_id)
        data = self.categories.get(case.category or "") if case is not None else None
        if case is None or (data is None and case_id not in self.looped):
            return
        text = self.store.result_detail(self.run_id, label, case_id, sample)
        if text is None:
            return
        if case_id in self.looped:
            entry = multi_turn_entry({"case_id": case_id}, json.loads(text))
            self.entries.setdefault(label, {})[case_id] = entry
            if data is not None:  # memory's prerequisite conversations: not judged (as BFCL)
                # replaying the environments takes tens of ms: off the loop, which sends the
                # other entries' requests meanwhile
                self._pending.append(
                    self._judging().submit(self._judge, label, case_id, entry["result"], data)
                )
            return
        if data is None:
            return
        self._judge(label, case_id, raw_result(json.loads(text), self.mode, case.tools or []), data)

    def _judge(self, label: str, case_id: str, result: Any, data: CategoryData) -> None:
        truth = data.answers.get(case_id) if data.answers is not None else None
        self.judged.setdefault(label, {})[case_id] = (
            result,
            judge(result, data.by_id[case_id], truth, data.category, self.mode, self.prompt_format),
        )

    def _judging(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="bfcl-judge")
        return self._pool

    def wait(self) -> None:
        """Wait for the judgements still running (multi-turn entries are judged in a thread);
        one that failed is logged and judged again at the end."""
        pending, self._pending = self._pending, []
        for future in pending:
            try:
                future.result()
            except Exception:  # noqa: BLE001
                log.warning("a BFCL multi-turn entry was not judged during the run", exc_info=True)
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def entry(self, label: str, case_id: str) -> dict[str, Any] | None:
        """BFCL's result line of a multi-turn or memory entry read here, else None."""
        return self.entries.get(label, {}).get(case_id)

    def result(self, label: str, case_id: str) -> tuple[bool, Any]:
        """``(True, result)`` for an entry judged here, else ``(False, None)``."""
        known = self.judged.get(label, {}).get(case_id)
        return (True, known[0]) if known is not None else (False, None)
