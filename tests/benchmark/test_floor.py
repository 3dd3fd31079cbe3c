"""The benchmark floor (``tooleval_nb.benchmark``) under a small benchmark of its own: an agent
that runs some cases as two-turn conversations through the runner's agent hook, a follower
that takes the stored cases while the run goes, and a job whose result is the benchmark's run.
The model is a ``MockTransport``; the runner, the store and the cache are the real ones."""

from __future__ import annotations

import asyncio
import math
import threading
from pathlib import Path
from typing import Any

import pytest

from tooleval_nb.benchmark import (
    Ask,
    BenchmarkJob,
    BenchmarkRun,
    CaseAgent,
    done_cells,
    prepare,
    run_folder,
    run_options,
    target_labels,
    write_csv,
)
from tooleval_nb.errors import ModelBadRequestError, ModelConfigError
from tooleval_nb.models.transport import ChatRequest
from tooleval_nb.runner import Job, Run
from tooleval_nb.runner.chains import add_hop
from tooleval_nb.runner.events import Event
from tooleval_nb.runner.record import CaseOutcome
from tooleval_nb.suite import EvalCase
from tooleval_nb.testing import MockTransport, weather_suite

CASES = 4
#: the cases the agent runs as conversations (the others: the runner, one request)
TALKED = {"c000", "c002"}


class TwoTurns:
    """Runs the TALKED cases as two requests, each a hop with its turn; None for the others."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def run_case(self, case: EvalCase, label: str, ask: Ask) -> CaseOutcome | None:
        if case.id not in TALKED:
            return None
        self.calls.append((label, str(case.id)))
        outcome = CaseOutcome()
        messages: list[dict[str, Any]] = [{"role": "user", "content": case.prompt}]
        for turn in range(2):
            reply = await ask(list(messages), case.tools or [], "auto")
            hop = add_hop(outcome, reply, turn)
            hop["turn"] = turn
            outcome.tool_calls.extend(reply.tool_calls)
            messages += [{"role": "assistant", "content": reply.content or ""}]
            messages += [{"role": "user", "content": "and again"}]
        return outcome


class Counter:
    """A follower: the cases stored while the run goes."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.waited = 0
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self.seen.append(str(event.data["case_id"]))

    def wait(self) -> None:
        self.waited += 1


class ToyRun(BenchmarkRun):
    finished = False

    def turns(self) -> dict[str, int]:
        """Case id -> the turns its stored hops name (the agent's conversations)."""
        cells = [(r.model, r.case_id, r.sample or 0) for r in self._rows]
        details = self.stored_details(cells)
        return {
            case_id: sum(1 for hop in detail.get("hops") or [] if "turn" in hop)
            for (_, case_id, _), detail in details.items()
        }


class ToyJob(BenchmarkJob[ToyRun]):
    def __init__(self, job: Job, follower: Counter | None = None) -> None:
        super().__init__(job, follower)
        self.finishes = 0

    def view(self, run: Run) -> ToyRun:
        return ToyRun.from_run(run)

    def finish(self, run: Run) -> ToyRun:
        self.finishes += 1
        out = self.view(run)
        out.check_native_tools("toy case", "run it with mode='prompt'")
        out.finished = True
        return out


def _model(transport: MockTransport) -> dict[str, Any]:
    return {"model": "openai/mock", "transport": transport}


def _job(store: Path, transport: MockTransport, agent: CaseAgent | None = None) -> Job:
    options = run_options(
        "run_toy",
        {"cache": False, "progress": "none", "resume": False},
        {"mode": "native"},
        reason="the toy's own",
        advice="no advice",
    )
    return prepare(
        weather_suite(CASES), _model(transport), store=str(store), agent=agent, options=options
    )


def test_a_job_runs_to_the_end_without_a_loop_and_finishes_once(tmp_path: Path) -> None:
    """Twice in one process: each job's agent, follower and finish are its own."""
    for attempt in range(2):
        transport, agent, counter = MockTransport(), TwoTurns(), Counter()
        job = _job(tmp_path / f"runs{attempt}.db", transport, agent)
        assert done_cells(job) == set()
        toy = ToyJob(job, counter).start()  # no loop here: runs to its end, finished
        assert toy.finishes == 1 and counter.waited == 1
        run = toy.result()
        assert run is toy.result() and toy.finishes == 1  # finished once, kept
        assert isinstance(run, ToyRun) and run.finished and run.id == job.run_id
        assert sorted(counter.seen) == [f"c{i:03d}" for i in range(CASES)]
        assert sorted(agent.calls) == [("openai/mock", c) for c in sorted(TALKED)]
        assert len(transport.requests) == CASES + len(TALKED)  # two requests per conversation
        assert run.turns() == {f"c{i:03d}": (2 if f"c{i:03d}" in TALKED else 0) for i in range(4)}
        assert done_cells(job) == {("openai/mock", f"c{i:03d}", 0) for i in range(CASES)}
        snapshot = toy.snapshot()
        assert isinstance(snapshot, ToyRun) and not snapshot.finished and len(snapshot) == CASES
        assert toy.status == "completed" and toy.run_id == job.run_id  # the runner job's own


def test_an_awaited_job_finishes_in_a_worker_thread(tmp_path: Path) -> None:
    async def main() -> tuple[ToyRun, ToyJob]:
        toy = ToyJob(_job(tmp_path / "runs.db", MockTransport(), TwoTurns()), Counter())
        started = toy.start()  # on this loop: returns at once
        assert started is toy and not toy.job.done()
        return await toy, toy

    run, toy = asyncio.run(main())
    assert run.finished and toy.finishes == 1 and run is toy.result()
    assert run.turns()["c000"] == 2


def test_stored_details_read_at_once_when_many(tmp_path: Path, monkeypatch) -> None:
    toy = ToyJob(_job(tmp_path / "runs.db", MockTransport(), TwoTurns())).start()
    one_by_one = toy.result().turns()
    monkeypatch.setattr("tooleval_nb.benchmark.run._ONE_BY_ONE", 0)
    assert toy.result().turns() == one_by_one


def test_a_model_that_refuses_native_tools_is_told_in_the_benchmarks_words(tmp_path: Path) -> None:
    def refuse(request: ChatRequest) -> dict[str, Any]:
        raise ModelBadRequestError("tools are not supported by this model", status_code=400)

    toy = ToyJob(_job(tmp_path / "runs.db", MockTransport(refuse)))
    with pytest.raises(ModelConfigError, match=r"every toy case .* run it with mode='prompt'"):
        toy.start()


def test_run_options_sets_its_own_and_refuses_them_by_name() -> None:
    own = {"mode": "native", "tool_choice": "auto"}
    assert run_options("run_x", {"temperature": 0.0}, own, reason="r", advice="a") == {
        "temperature": 0.0,
        **own,
    }
    with pytest.raises(TypeError, match=r"run_x sets agent, mode itself \(why\); do this"):
        run_options(
            "run_x",
            {"mode": "x", "agent": 1},
            own,
            refused=("agent",),
            reason="why",
            advice="do this",
        )


def test_target_labels_are_the_runners() -> None:
    assert target_labels(["openai/a", "openai/a", "openai/b"], "native") == [
        "openai/a",
        "openai/a #2",
        "openai/b",
    ]


def test_write_csv_leaves_none_and_nan_empty(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    write_csv(path, ["a", "b", "c"], [{"a": 1, "b": None, "c": math.nan}, {"a": "x,y"}])
    assert path.read_text(encoding="utf-8").splitlines() == ["a,b,c", "1,,", '"x,y",,']


def test_run_folder_is_in_the_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path))
    assert run_folder("bench_side", "run_1") == tmp_path / "bench_side" / "run_1"
    assert not (tmp_path / "bench_side").exists()  # named, not made
