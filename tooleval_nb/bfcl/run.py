"""``te.run_bfcl``: any model on BFCL's single-turn categories, through the runner.

One call builds the suite from BFCL's data (:mod:`.suite`), runs it through the runner on the
benchmark floor (:mod:`tooleval_nb.benchmark`: the response cache, resume, history, progress
and cancellation are the runner's; multi-turn and memory entries run BFCL's loop, :mod:`.loop`,
through the runner's agent hook), judging each entry as soon as it is stored (:mod:`.tally`),
then writes BFCL's result files and our score files when an output folder is given. The
job (:class:`BfclJob`) gives a :class:`BfclRun`: a :class:`~tooleval_nb.runner.Run` with the
BFCL views (``bfcl_results_df``, ``bfcl_category_df``, ``bfcl_scores``) and ``write_bfcl``.

It prepares the runner's job and starts it (what ``run_eval`` does) rather than calling
``run_eval``, so that the preparation runs with the garbage collector paused and the judging
follows the job from its first event.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..benchmark import (
    BenchmarkJob,
    BenchmarkRun,
    done_cells,
    prepare,
    run_folder,
    run_options,
    target_labels,
    write_csv,
)
from ..bfcl_rules.categories import CATEGORIES, folder_of, resolve_categories
from ..bfcl_rules.data import BfclData, CategoryData
from ..bfcl_rules.prompt import PROMPT_FORMATS, PromptFormat
from ..errors import SuiteError
from ..runner import Job, Run
from ..runner.results import ResultRow
from ..suite import Suite
from .collector import collector_paused
from .loop import BfclLoop, is_loop_category, loop_cases
from .multiturn_check import multi_turn_verdict
from .results import (
    check_manifest,
    model_dir_name,
    model_name,
    multi_turn_entry,
    result_entry,
    result_path,
    write_manifest,
    write_result_file,
)
from .scores import LEADERBOARD_COLUMNS, category_table, leaderboard, leaderboard_rows
from .suite import BFCL_MODES, BfclMode, build_suite
from .tally import EntryTally
from .verdicts import ENTRY_COLUMNS, verdict_rows

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["BfclJob", "BfclRun", "BfclSpec", "run_bfcl", "run_bfcl_async", "SCORE_FOLDER"]

#: our score files, beside BFCL's ``result/`` folder
SCORE_FOLDER = "score_tooleval"
#: run options run_bfcl refuses (BFCL's prompts and cases), beside the ones it sets
_REFUSED_OPTIONS = ("system_prompt", "ids", "tags", "agent")
#: the parser that reads calls from prompt-mode text for the runner's own scores
_PARSERS = {"python": "pythonic", "json": "json"}
#: the cache folder of a run's memory snapshots when it writes no output folder
MEMORY_FOLDER = "bfcl_memory"
#: :meth:`BfclRun.bfcl_turns_df`'s columns
TURN_VIEW_COLUMNS = (
    "turn",
    "step",
    "user",
    "calls",
    "results",
    "text",
    "turn_passed",
    "turn_error_type",
    "state_diff",
    "replay_passed",
)


@dataclass
class BfclSpec:
    """What a BFCL run is: categories, mode, reply format, data, limit and output folder."""

    categories: list[str]
    mode: BfclMode
    prompt_format: PromptFormat
    data: BfclData
    limit: int | None = None
    output: Path | None = None
    category_data: dict[str, CategoryData] = field(default_factory=dict)
    #: only these entry ids (None: every entry, up to ``limit`` per category)
    entries: frozenset[str] | None = None

    def runner_mode(self) -> str:
        return "native" if self.mode == "fc" else _PARSERS[self.prompt_format]


def _spec(
    categories: Any,
    mode: str,
    prompt_format: str,
    data_dir: Any,
    limit: int | None,
    output: Any,
    entries: Any = None,
) -> BfclSpec:
    cats = resolve_categories(categories)
    if mode not in BFCL_MODES:
        raise SuiteError(
            f"mode must be 'fc' (native tools) or 'prompt' (BFCL's system prompt, "
            f"calls read from the reply text), not {mode!r}"
        )
    if prompt_format not in PROMPT_FORMATS:
        raise SuiteError(
            f"prompt_format must be one of {', '.join(PROMPT_FORMATS)}, not {prompt_format!r}"
        )
    data = BfclData(data_dir)
    spec = BfclSpec(
        cats,
        mode,  # type: ignore[arg-type]  # checked against BFCL_MODES above
        prompt_format,  # type: ignore[arg-type]  # checked against PROMPT_FORMATS above
        data,
        limit,
        Path(output) if output is not None else None,
    )
    spec.category_data = {c: data.category(c) for c in cats}
    if entries is not None:
        wanted = frozenset([entries] if isinstance(entries, str) else map(str, entries))
        unknown = sorted(wanted - {i for d in spec.category_data.values() for i in d.by_id})
        if unknown:
            raise SuiteError(
                f"entries: {', '.join(map(repr, unknown[:10]))} are not entries of "
                f"the categories run ({', '.join(cats)}); name ids of those "
                "categories, or add their category"
            )
        spec.entries = wanted
    return spec


def _run_options(spec: BfclSpec, options: Mapping[str, Any]) -> dict[str, Any]:
    return run_options(
        "run_bfcl",
        options,
        {"mode": spec.runner_mode(), "tool_choice": "auto" if spec.mode == "fc" else "none"},
        refused=_REFUSED_OPTIONS,
        reason="BFCL's prompts and tool choice",
        advice="choose mode='fc' or 'prompt' and categories=... instead",
    )


def _precheck_output(spec: BfclSpec, model: Any) -> None:
    if spec.output is None:
        return
    for label in target_labels(model, spec.runner_mode()):
        folder = spec.output / "result" / model_dir_name(label, spec.mode)
        check_manifest(folder, label, spec.mode, spec.category_data)


def run_bfcl(
    model: Any = None,
    categories: str | Iterable[str] | None = "all",
    mode: BfclMode = "fc",
    limit: int | None = None,
    store: Any = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    prompt_format: PromptFormat = "python",
    entries: str | Iterable[str] | None = None,
    **run_options: Any,
) -> BfclJob:
    """Run a model on BFCL's single-turn categories; returns the :class:`BfclJob`.

    In a notebook the job runs on the kernel's loop and this returns at once
    (``run = await job``); elsewhere it blocks until the run is finished (``job.result()``).

    Args:
        model: a litellm model string, a dict (``model``, ``api_base``, ``api_key``, ...), a
            ``te.ModelSpec``, or a list of them; default the embedded offline model.
        categories: category and group names (``non_live``, ``live``, ``single_turn``,
            ``all``), a list or a comma-separated string.
        mode: ``"fc"`` offers BFCL's functions as native tools; ``"prompt"`` puts them in
            BFCL's system prompt and reads the calls from the reply text.
        limit: the first ``limit`` entries of each category (all when None).
        store: the run store (see ``run_eval``).
        data_dir: BFCL's data folder (default: ``TOOLEVAL_BFCL_DATA``, else the data of an
            installed ``bfcl-eval``).
        output: write BFCL result files (``result/``) and our score files
            (``score_tooleval/``) there once the run is finished.
        prompt_format: in prompt mode, the call format asked for: ``python`` (BFCL's default)
            or ``json`` (BFCL's JSON list).
        entries: only these entry ids (of the categories given; ``limit`` then counts among
            them). A memory entry brings the prerequisite conversations of its scenario.
        **run_options: passed to ``run_eval`` unchanged (``temperature``, ``max_concurrency``,
            ``cache``, ``timeout``, ``progress``, ``name``, ``resume``, ``executor``, ...).

    Raises:
        SuiteError: an unknown category (the valid ones listed), no data, or an output folder
            holding results of another model or dataset version (the differing ids shown).
        ModelConfigError: in ``fc`` mode, a model that rejects native tools (use
            ``mode="prompt"``).
    """
    with collector_paused():  # run_eval(...), with the preparation apart from the run
        spec = _spec(categories, mode, prompt_format, data_dir, limit, output, entries)
        _precheck_output(spec, model)
        suite, loop = build_run_suite(spec)
        job = prepare(
            suite, model, store=store, agent=loop, options=_run_options(spec, run_options)
        )
        _prepare_loop(loop, job, spec)
    return BfclJob(job, spec, suite, _tally(job, spec, suite, loop)).start()


async def run_bfcl_async(
    model: Any = None,
    categories: str | Iterable[str] | None = "all",
    mode: BfclMode = "fc",
    limit: int | None = None,
    store: Any = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    prompt_format: PromptFormat = "python",
    entries: str | Iterable[str] | None = None,
    **run_options: Any,
) -> BfclRun:
    """:func:`run_bfcl` for async code: the finished :class:`BfclRun` (same arguments;
    ``progress`` defaults to ``"none"``)."""
    spec = await asyncio.to_thread(
        _spec, categories, mode, prompt_format, data_dir, limit, output, entries
    )
    _precheck_output(spec, model)
    suite, loop = await asyncio.to_thread(build_run_suite, spec)
    options = {"progress": "none", **_run_options(spec, run_options)}
    job = prepare(suite, model, store=store, agent=loop, options=options)  # run_eval_async(...)
    _prepare_loop(loop, job, spec)
    return await BfclJob(job, spec, suite, _tally(job, spec, suite, loop)).start()


def build_run_suite(spec: BfclSpec) -> tuple[Suite, BfclLoop | None]:
    """The run's suite: the single-turn categories' cases (:func:`.suite.build_suite`), then
    the multi-turn and memory entries (:func:`.loop.loop_cases`), and the loop that runs those
    (None when there are none)."""
    single = [d for c, d in spec.category_data.items() if not is_loop_category(c)]
    looped = [d for c, d in spec.category_data.items() if is_loop_category(c)]
    wanted = spec.entries
    if wanted is not None:
        single = [d for d in single if wanted & set(d.by_id)]
        looped = [d for d in looped if wanted & set(d.by_id)]
    suite = (
        build_suite(
            single,
            spec.mode,
            limit=spec.limit if wanted is None else None,
            prompt_format=spec.prompt_format,
        )
        if single
        else None
    )
    if suite is not None and wanted is not None:
        suite = _only(suite, wanted, spec.limit)
    if not looped:
        assert suite is not None
        return suite, None
    parts = loop_cases(
        looped, spec.mode, limit=spec.limit, prompt_format=spec.prompt_format, only=wanted
    )
    loop = BfclLoop(parts.entries, parts.categories, spec.mode, spec.prompt_format)
    cases = [*(suite.cases if suite is not None else []), *parts.cases]
    names = "+".join(spec.category_data)
    suffix = "" if spec.mode == "fc" or spec.prompt_format == "python" else f"_{spec.prompt_format}"
    return Suite.model_construct(
        name=f"bfcl_{spec.mode}{suffix}", description=f"BFCL v4 ({spec.mode}): {names}", cases=cases
    ), loop


def _only(suite: Suite, wanted: frozenset[str], limit: int | None) -> Suite:
    """The suite's cases whose ids are wanted (the first ``limit`` of each category)."""
    seen: dict[str | None, int] = {}
    cases = []
    for case in suite.cases:
        if case.id in wanted and (limit is None or seen.get(case.category, 0) < limit):
            seen[case.category] = seen.get(case.category, 0) + 1
            cases.append(case)
    return Suite.model_construct(name=suite.name, description=suite.description, cases=cases)


def _prepare_loop(loop: BfclLoop | None, job: Job, spec: BfclSpec) -> None:
    """Where the loop keeps each model's memory snapshots (BFCL's result folder of the model
    when the run writes files, else a folder of the run in the cache), and which entries a
    resumed run stored already (not waited for)."""
    if loop is None:
        return
    loop.memory_root = (
        spec.output / "result" if spec.output is not None else run_folder(MEMORY_FOLDER, job.run_id)
    )
    loop.done = {(label, case_id) for label, case_id, _ in done_cells(job)}


def _tally(job: Job, spec: BfclSpec, suite: Suite, loop: BfclLoop | None = None) -> EntryTally:
    """What judges the job's entries while it runs (:mod:`.tally`)."""
    return EntryTally(
        job.store,
        job.run_id,
        spec.mode,
        spec.prompt_format,
        spec.category_data,
        suite.cases,
        loop.categories if loop is not None else None,
    )


class BfclJob(BenchmarkJob["BfclRun"]):
    """A BFCL run in progress: a runner :class:`~tooleval_nb.runner.Job` whose result is a
    :class:`BfclRun` (its files written when an output folder was given). Everything else
    (``cancel``, ``progress``, ``status``, ``events``...) is the job's own.

    Args:
        job: the runner's job, not started.
        spec: what the run is.
        suite: the run's suite.
        tally: judges the entries while the run goes (``job.tally``).
    """

    def __init__(
        self, job: Job, spec: BfclSpec, suite: Suite, tally: EntryTally | None = None
    ) -> None:
        super().__init__(job, tally)
        self.spec = spec
        self.suite = suite
        self.tally = tally

    def __repr__(self) -> str:
        return f"BfclJob({self.spec.mode}, {len(self.spec.categories)} categories, {self.job!r})"

    def view(self, run: Run) -> BfclRun:
        return BfclRun.of(run, self.spec, self.suite, self.tally)

    def finish(self, run: Run) -> BfclRun:
        bfcl_run = self.view(run)
        if self.spec.mode == "fc":
            bfcl_run.check_native_tools()
        if self.spec.output is not None:
            bfcl_run.write_bfcl(self.spec.output)
        return bfcl_run


class BfclRun(BenchmarkRun):
    """A :class:`~tooleval_nb.runner.Run` of BFCL entries, with BFCL's verdicts and scores."""

    spec: BfclSpec
    suite: Suite
    tally: EntryTally | None

    @classmethod
    def of(cls, run: Run, spec: BfclSpec, suite: Suite, tally: EntryTally | None = None) -> BfclRun:
        """The BFCL view of a runner's run (no read of the store)."""
        out = cls.from_run(run)
        out.spec, out.suite, out.tally = spec, suite, tally
        out.__dict__["_entries"] = None
        return out

    # -- the written entries -----------------------------------------------------------------
    def bfcl_entries(self) -> dict[tuple[str, str], list[dict[str, Any]]]:
        """``(model label, category)`` -> BFCL's result entries (as the files hold them)."""
        cached: dict[tuple[str, str], list[dict[str, Any]]] | None = self.__dict__.get("_entries")
        if cached is not None:
            return cached
        tools = {c.id: c.tools or [] for c in self.suite.cases}
        rows = [r for r in self._rows if r.sample in (0, None)]  # BFCL: one answer
        details = self._details(rows)
        out: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in rows:
            label, case_id = row.model, row.case_id
            detail = details.get((label, case_id))
            if is_loop_category(str(row.category)):
                known = self.tally.entry(label, case_id) if self.tally is not None else None
                entry = (
                    known
                    if known is not None and detail is None
                    else multi_turn_entry(row._asdict(), detail or {})
                )
            else:
                entry = result_entry(
                    row._asdict(), detail or {}, self.spec.mode, tools.get(case_id, [])
                )
                if detail is None and not row.error and self.tally is not None:
                    entry["result"] = self.tally.result(label, case_id)[1]  # judged in the run
            out.setdefault((label, str(row.category)), []).append(entry)
        self.__dict__["_entries"] = out
        return out

    def _details(self, rows: list[ResultRow]) -> dict[tuple[str, str], dict[str, Any]]:
        """The stored detail of each entry that ran and whose result the tally has not (read
        as :meth:`~tooleval_nb.benchmark.BenchmarkRun.stored_details` reads them)."""
        tally = self.tally
        wanted = [
            (r.model, r.case_id, r.sample or 0)
            for r in rows
            if not r.error
            and (
                tally is None
                or not (
                    tally.result(r.model, r.case_id)[0]
                    or tally.entry(r.model, r.case_id) is not None
                )
            )
        ]
        return {
            (label, case_id): d for (label, case_id, _), d in self.stored_details(wanted).items()
        }

    def bfcl_results_df(self, credit: bool = True) -> pd.DataFrame:
        """One row per model × entry: BFCL's verdict and our partial credit
        (columns: :data:`tooleval_nb.bfcl.verdicts.ENTRY_COLUMNS`)."""
        return _entries_frame(self._verdict_rows(credit))

    def _verdict_rows(self, credit: bool = True) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        order = {c: i for i, c in enumerate(CATEGORIES)}
        judged = self.tally.judged if self.tally is not None else {}
        for (label, category), entries in sorted(
            self.bfcl_entries().items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], len(order)))
        ):
            if category not in self.spec.category_data:
                continue  # memory's prerequisite conversations: not scored (as in BFCL)
            rows += verdict_rows(
                entries,
                self.spec.category_data[category],
                model=model_name(label),
                mode=self.spec.mode,
                prompt_format=self.spec.prompt_format,
                credit=credit,
                judged=judged.get(label),
            )
        return rows

    def bfcl_turns_df(self, entry_id: str, model: str | None = None) -> pd.DataFrame:
        """One multi-turn entry turn by turn: a row per model step (``turn``, ``step``, the
        turn's ``user`` message on its first step, the ``calls`` decoded as BFCL executes
        them, their execution ``results``), with each turn's check beside it: the official
        checker's (``turn_passed``, ``turn_error_type``, ``state_diff``: the attributes whose
        state differs from the ground truth's after the turn, ``{class: {attr: {model,
        ground_truth}}}``) and the replayed one (``replay_passed``: the turn from the ground
        truth's state before it).

        Args:
            entry_id: a multi-turn entry of the run.
            model: the model label (default: the run's first).
        """
        import pandas as pd

        label = model or self.models[0]
        category = next(
            (c for c in self.spec.category_data if entry_id in self.spec.category_data[c].by_id),
            None,
        )
        if category is None or not category.startswith("multi_turn"):
            raise KeyError(
                f"{entry_id!r} is not a multi-turn entry of this run "
                f"(categories: {', '.join(self.spec.categories)})"
            )
        data = self.spec.category_data[category]
        text = self.store.result_detail(self.id, label, entry_id, 0)
        if text is None:
            raise KeyError(
                f"{entry_id!r} has no stored result for model {label!r} (not run, "
                "or its model call failed)"
            )
        hops = [h for h in json.loads(text).get("hops") or [] if "turn" in h]
        entry = multi_turn_entry({"case_id": entry_id}, {"hops": hops})
        truth = data.answers.get(entry_id) if data.answers is not None else None
        verdict = multi_turn_verdict(
            entry["result"], data.by_id[entry_id], truth or [], self.spec.mode, replay=True
        )  # type: ignore[arg-type]
        rows = []
        for hop in hops:
            turn = int(hop["turn"])
            check = verdict.turns[turn] if turn < len(verdict.turns) else None
            replay = (
                verdict.replay[turn]
                if verdict.replay is not None and turn < len(verdict.replay)
                else None
            )
            query = hop.get("turn_query") or []
            rows.append(
                {
                    "turn": turn,
                    "step": int(hop.get("step") or 0),
                    "user": next(
                        (m.get("content") for m in reversed(query) if m.get("role") == "user"), None
                    ),
                    "calls": hop.get("decoded") or [],
                    "results": hop.get("execution_results") or [],
                    "text": None if hop.get("decoded") else hop.get("bfcl_result"),
                    "turn_passed": None if check is None else check.passed,
                    "turn_error_type": None if check is None else check.error_type,
                    "state_diff": (
                        check.detail
                        if check is not None and check.error_type and "state" in check.error_type
                        else None
                    ),
                    "replay_passed": None if replay is None else replay.passed,
                }
            )
        return pd.DataFrame(rows, columns=list(TURN_VIEW_COLUMNS))

    def bfcl_category_df(self) -> pd.DataFrame:
        """Accuracy per model × category with its interval (``scores.CATEGORY_COLUMNS``)."""
        return category_table(self.bfcl_results_df())

    def bfcl_scores(self) -> pd.DataFrame:
        """BFCL's leaderboard row per model (``scores.LEADERBOARD_COLUMNS``)."""
        return leaderboard(self.bfcl_results_df())

    # -- checks and files --------------------------------------------------------------------
    def check_native_tools(
        self,
        unit: str = "BFCL entry",
        advice: str = "run it with mode='prompt' (BFCL's prompting system prompt, calls read "
        "from the text)",
    ) -> None:
        """Raise ModelConfigError when a model rejected native tools on every entry (fc mode;
        see :meth:`~tooleval_nb.benchmark.BenchmarkRun.check_native_tools`); an entry too long
        for the model stays, errored, as BFCL records an inference error."""
        super().check_native_tools(unit, advice)

    def write_bfcl(self, output: str | os.PathLike[str]) -> dict[str, list[Path]]:
        """Write BFCL's result files and our score files under ``output``; returns the paths
        by model label (see :mod:`tooleval_nb.bfcl.results` for the layout)."""
        base = Path(output)
        written: dict[str, list[Path]] = {}
        entries = self.bfcl_entries()
        rows = self._verdict_rows()
        for target in self.targets:
            label = target["label"]
            model_dir = model_dir_name(label, self.spec.mode)
            folder = base / "result" / model_dir
            check_manifest(folder, label, self.spec.mode, self.spec.category_data)
            paths = []
            done = [c for c in self.spec.categories if entries.get((label, c))]
            prereqs = [f"{c}_prereq" for c in done if entries.get((label, f"{c}_prereq"))]
            for category in [*done, *prereqs]:  # a category with no entry gets no file
                paths.append(
                    write_result_file(
                        result_path(base, model_dir, category), entries[(label, category)]
                    )
                )
            write_manifest(
                folder,
                {
                    "model": label,
                    "mode": self.spec.mode,
                    "prompt_format": self.spec.prompt_format,
                    "run_id": self.id,
                    "data": str(self.spec.data.folder),
                    "categories": {
                        c: {
                            "fingerprint": self.spec.category_data[c].fingerprint,
                            "entries": len(entries.get((label, c), [])),
                        }
                        for c in done
                    },
                },
            )
            mine = [r for r in rows if r["model"] == model_name(label)]
            paths += _write_scores(base / SCORE_FOLDER / model_dir, mine, label, done)
            written[label] = paths
        return written


def _entries_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    df = pd.DataFrame(rows, columns=list(ENTRY_COLUMNS))
    df["passed"] = df["passed"].astype(bool)
    return df


def _write_scores(
    folder: Path, rows: list[dict[str, Any]], label: str, categories: list[str]
) -> list[Path]:
    """Our score files: BFCL's score-file shape per category (header, then every failed entry
    with its error and our partial credit), every entry as CSV, and the leaderboard row
    (written from the rows: no DataFrame, so a run needs no pandas to finish)."""
    paths = []
    by_category: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_category.setdefault(row["category"], []).append(row)
    for category in categories:
        part = by_category.get(category, [])
        n, correct = len(part), sum(1 for r in part if r["passed"])
        lines: list[dict[str, Any]] = [
            {"accuracy": correct / n if n else 0.0, "correct_count": correct, "total_count": n}
        ]
        for row in part:
            if not row["passed"]:
                lines.append(
                    {
                        "id": row["id"],
                        "model_name": label,
                        "test_category": category,
                        "valid": False,
                        "error": [row["error"]] if row["error"] else [],
                        "error_type": row["error_type"],
                        "model_result": row["result"],
                        "tool_score": row.get("tool_score"),
                        "param_score": row.get("param_score"),
                        "call_matches": row.get("call_matches"),
                    }
                )
        path = folder / folder_of(category) / f"BFCL_v4_{category}_score.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(x, default=str) + "\n" for x in lines), encoding="utf-8")
        paths.append(path)
    folder.mkdir(parents=True, exist_ok=True)
    entries = folder / "entries.csv"
    write_csv(entries, [c for c in ENTRY_COLUMNS if c != "result"], rows)
    board = folder / "leaderboard.csv"
    write_csv(board, list(LEADERBOARD_COLUMNS), leaderboard_rows(rows))
    return [*paths, entries, board]
