"""BFCL's inference loop for multi-turn and memory entries, as bfcl-eval's handlers run it.

For each turn of an entry (``question[i]``): the turn's user message is added (for a
``multi_turn_miss_func`` turn that adds functions: those functions, offered as tools in ``fc``
mode or listed in the message in ``prompt`` mode, with BFCL's own wording); then the model is
asked, step after step. Each step's reply is decoded into calls (:func:`execution_calls`, as
BFCL's ``decode_execute``), the calls run against the entry's environments (BFCL's classes,
:mod:`.environments`) and the results go back to the model (``tool`` messages answering each
call in ``fc`` mode; one ``user`` message holding the list in ``prompt`` mode), until a step's
reply holds no call (or cannot be decoded). More than :data:`MAXIMUM_STEP_LIMIT` steps in one
turn ends the entry (BFCL's force-quit). The environments live across the turns.

Memory entries (``memory_kv``, ``memory_rec_sum``, ``memory_vector``) run the same loop with
BFCL's memory system prompt (the scenario and the core memory's content). Their prerequisite
conversations (``..._prereq_<n>-<scenario>-<k>``) run first, in order, each starting from the
memory the previous one left (BFCL's snapshot files, under a folder of the run); the entries
of a scenario start from the memory its last conversation left.

:class:`BfclLoop` runs one entry per runner cell (the runner's ``agent`` hook,
:class:`tooleval_nb.benchmark.CaseAgent`): the model
requests are the runner's (its cache, retries, rate limits, cancellation), each one a hop of the
stored outcome, with the turn and step, BFCL's ``result`` of the step, the decoded calls and
their execution results (:func:`.results.multi_turn_entry` turns them into BFCL's result line).
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..benchmark import Ask
from ..bfcl_rules.categories import folder_of, is_memory, is_memory_prereq, is_multi_turn
from ..bfcl_rules.data import CategoryData
from ..bfcl_rules.decode import DecodeError, decode_prompt
from ..bfcl_rules.prompt import bfcl_tools, openai_tool, prompt_messages
from ..runner.chains import add_hop
from ..runner.record import CaseOutcome
from ..suite import EvalCase, ExpectedCall, FunctionDef, Tool
from .environments import Environments, decode_execute, is_empty_execute
from .results import model_dir_name, model_name, step_result

__all__ = [
    "BfclLoop",
    "LoopCases",
    "loop_cases",
    "loop_case",
    "memory_snapshot_paths",
    "MAXIMUM_STEP_LIMIT",
    "is_loop_category",
    "prompts",
]

#: BFCL's step limit per turn (``constants/default_prompts.py``): a turn that needs more steps
#: ends the entry (force-quit)
MAXIMUM_STEP_LIMIT = 20


def is_loop_category(category: str) -> bool:
    """Categories run with BFCL's multi-turn loop: multi-turn and memory (prereqs included)."""
    return is_multi_turn(category) or is_memory(category)


def memory_snapshot_paths(
    model_dir: Path, entry_id: str, category: str, scenario: str
) -> tuple[Path, Path]:
    """Where BFCL's memory classes keep a prerequisite conversation's snapshot and the
    scenario's latest memory (``MemoryAPI._prepare_snapshot``)::

        <model dir>/agentic/memory/<backend>/memory_snapshot/prereq_checkpoints/<id>.json
        <model dir>/agentic/memory/<backend>/memory_snapshot/<scenario>_final.json
    """
    folder = model_dir / folder_of(category) / "memory_snapshot"
    return folder / "prereq_checkpoints" / f"{entry_id}.json", folder / f"{scenario}_final.json"


def prompts() -> Any:
    """bfcl-eval's prompt constants (``bfcl_eval.constants.default_prompts``: no imports of
    its own), or ImportError naming the extra."""
    try:
        return importlib.import_module("bfcl_eval.constants.default_prompts")
    except ImportError as exc:
        raise ImportError(
            "BFCL's multi-turn and memory categories need bfcl-eval's classes: "
            "pip install 'tooleval_nb[bfcl]' (the bfcl extra: bfcl-eval "
            f"installed with --no-deps and the few packages its classes use); {exc}"
        ) from exc


@functools.lru_cache(maxsize=32)
def _system_text(functions: str, category: str, prompt_format: str) -> str:
    """BFCL's prompting system prompt for a function list (given as its JSON text): built once
    per list (it holds the functions as indented JSON, slow to write; entries share lists)."""
    only = {"id": "", "function": json.loads(functions), "question": [[]]}
    return str(prompt_messages(only, category, prompt_format)[0]["content"])  # type: ignore[arg-type]


def with_system_prompt(
    turn: list[dict[str, Any]], functions: list[dict[str, Any]], category: str, prompt_format: str
) -> list[dict[str, Any]]:
    """A first turn as BFCL's prompting handlers send it
    (:func:`tooleval_nb.bfcl_rules.prompt.prompt_messages`: the system prompt first, or before
    the turn's own system message)."""
    text = _system_text(json.dumps(functions), category, prompt_format)
    out = [dict(m) for m in turn]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{text}\n\n{out[0].get('content') or ''}"
    else:
        out.insert(0, {"role": "system", "content": text})
    return out


# -- cases --------------------------------------------------------------------------------------
def _truth_calls(truth: Any) -> list[ExpectedCall]:
    """Ground-truth call strings (``"cd(folder='x')"``) as expected calls (keyword arguments
    only), for the runner's own partial-credit scores; memory answers give none."""
    out = []
    for turn in truth or []:
        for source in turn if isinstance(turn, list) else []:
            try:
                decoded = decode_prompt(str(source), "Python")
            except DecodeError:
                continue
            out += [
                ExpectedCall(name=name, arguments=args)
                for call in decoded
                for name, args in call.items()
            ]
    return out


def loop_case(
    entry: dict[str, Any],
    truth: Any,
    category: str,
    mode: str,
    prompt_format: str = "python",
    *,
    tools: list[Tool] | None = None,
) -> EvalCase:
    """One multi-turn or memory entry as a runner case: its id and category, the first turn
    as messages (for display: the loop builds the real ones), the functions as tools, the
    ground-truth calls as expected calls (multi-turn), tags ``bfcl``, the category and
    ``bfcl_loop``. ``tools``: the entry's tools when built already (entries share function
    lists)."""
    if tools is None:
        tools = bfcl_tools(entry.get("function") or [], category)
    first = (entry.get("question") or [[]])[0] or [{"role": "user", "content": ""}]
    if mode == "prompt":
        first = with_system_prompt(first, entry.get("function") or [], category, prompt_format)
    if not any(m.get("role") == "user" for m in first):
        first = [*first, {"role": "user", "content": ""}]
    return EvalCase.model_validate(
        {
            "id": entry["id"],
            "messages": first,
            "tools": tools,
            "category": category,
            "tags": ["bfcl", category, "bfcl_loop"],
            "expected_calls": _truth_calls(truth) if is_multi_turn(category) else [],
            "metadata": {
                "bfcl_mode": mode,
                "bfcl_language": "python",
                "bfcl_turns": len(entry.get("question") or []),
            },
        }
    )


@dataclass
class LoopCases:
    """The loop entries of a run: the cases in run order (every memory category's
    prerequisite conversations first, in their chains' order; then the entries, interleaved
    across categories), and by id each entry and its category."""

    cases: list[EvalCase] = field(default_factory=list)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    categories: dict[str, str] = field(default_factory=dict)

    #: the tools built per function list (most entries share a few lists)
    tools: dict[str, list[Tool]] = field(default_factory=dict)

    def add(
        self, entry: dict[str, Any], truth: Any, category: str, mode: str, prompt_format: str
    ) -> None:
        key = json.dumps(entry.get("function") or [])
        tools = self.tools.get(key)
        if tools is None:
            tools = self.tools[key] = bfcl_tools(entry.get("function") or [], category)
        self.cases.append(loop_case(entry, truth, category, mode, prompt_format, tools=tools))
        self.entries[entry["id"]] = entry
        self.categories[entry["id"]] = category


def loop_cases(
    categories: Sequence[CategoryData],
    mode: str,
    *,
    limit: int | None = None,
    prompt_format: str = "python",
    only: Set[str] | None = None,
) -> LoopCases:
    """The first ``limit`` entries (all when None) of each multi-turn or memory category (of
    those in ``only`` when given) as cases, with the prerequisite conversations their memory
    scenarios need (a memory entry starts from the memory its scenario's conversations
    left)."""
    out = LoopCases()
    chosen = [
        data.head(limit) if only is None else [e for e in data.questions if e["id"] in only][:limit]
        for data in categories
    ]
    for data, entries in zip(categories, chosen, strict=True):
        if is_memory(data.category):
            needed = {str(d) for e in entries for d in e.get("depends_on") or []}
            for entry in getattr(data, "prereq", None) or []:
                if entry["id"] in needed:
                    out.add(entry, None, f"{data.category}_prereq", mode, prompt_format)
    for i in range(max((len(q) for q in chosen), default=0)):
        for data, entries in zip(categories, chosen, strict=True):
            if i < len(entries):
                entry = entries[i]
                truth = data.answers.get(entry["id"]) if data.answers is not None else None
                out.add(entry, truth, data.category, mode, prompt_format)
    return out


# -- the loop -----------------------------------------------------------------------------------
@dataclass
class _Chat:
    """The messages, tools and functions of one entry's conversation, as BFCL's handler keeps
    them (its ``inference_data``)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    tools: list[Tool] = field(default_factory=list)


def _plain_tools(functions: list[dict[str, Any]]) -> list[Tool]:
    """Functions added by a miss_func turn, as BFCL offers them: its function docs without the
    language hint (bfcl-eval hints the entry's function list before the missed ones are added)."""
    tools = []
    for fn in functions:
        spec = openai_tool(fn)["function"]
        extra = {k: v for k, v in spec.items() if k not in ("name", "description", "parameters")}
        tools.append(
            Tool.model_construct(
                function=FunctionDef.model_construct(
                    name=str(fn["name"]),
                    description=str(spec.get("description", "")),
                    parameters=spec["parameters"],
                    **extra,
                )
            )
        )
    return tools


def _message(reply: Any) -> dict[str, Any]:
    raw = getattr(reply, "raw", None) or {}
    choices = raw.get("choices") if isinstance(raw, dict) else None
    if choices and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict):
        return dict(choices[0]["message"])
    return {}


def _call_ids(reply: Any, message: Mapping[str, Any]) -> list[str]:
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        return [str((c or {}).get("id")) for c in calls]
    return [c.id for c in reply.tool_calls]


class BfclLoop:
    """Runs the multi-turn and memory cases of a BFCL run (the runner's ``agent`` hook:
    :meth:`run_case`); other cases return None and run as usual.

    Args:
        entries: entry id -> the BFCL entry (as bfcl-eval's ``load_dataset_entry`` gives it).
        categories: entry id -> its category.
        mode: ``fc`` or ``prompt``.
        prompt_format: in prompt mode, the call format asked for.
        memory_root: where the memory snapshots of each model go (BFCL's result folder of
            the model: ``<memory_root>/<model dir>/agentic/...``).
        done: ``(model label, entry id)`` already stored (a resumed run): not waited for.
    """

    def __init__(
        self,
        entries: Mapping[str, dict[str, Any]],
        categories: Mapping[str, str],
        mode: str,
        prompt_format: str = "python",
        *,
        memory_root: Path | None = None,
        done: set[tuple[str, str]] | None = None,
    ) -> None:
        self.entries, self.categories = entries, categories
        self.mode, self.prompt_format = mode, prompt_format
        self.memory_root = memory_root or Path(tempfile.mkdtemp(prefix="tooleval_bfcl_memory_"))
        self.done = set(done or ())
        self._finished: dict[tuple[str, str], asyncio.Event] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_finished"] = {}
        return state

    # -- ordering of memory entries ------------------------------------------------------------
    def _event(self, label: str, entry_id: str) -> asyncio.Event:
        key = (label, entry_id)
        event = self._finished.get(key)
        if event is None:
            event = self._finished[key] = asyncio.Event()
            if key in self.done:
                event.set()
        return event

    def _waits_for(self, entry_id: str) -> list[str]:
        """The prerequisite conversation an entry starts after: the last of its
        ``depends_on`` (BFCL's chain: each conversation depends on the ones before it in its
        scenario, each memory entry on all of them)."""
        return [str(d) for d in (self.entries[entry_id].get("depends_on") or [])][-1:]

    def memory_dir(self, label: str) -> Path:
        """BFCL's ``model_result_dir`` of a model: where its memory snapshots live."""
        return self.memory_root / model_dir_name(label, self.mode)

    # -- the runner hook ---------------------------------------------------------------------------
    async def run_case(self, case: EvalCase, label: str, ask: Ask) -> CaseOutcome | None:
        """Run one case's entry through BFCL's loop (None: not a loop entry)."""
        entry_id = str(case.id)
        entry = self.entries.get(entry_id)
        category = self.categories.get(entry_id)
        if entry is None or category is None:
            return None
        before = self._waits_for(entry_id) if is_memory(category) else []
        for other in before:  # a prerequisite conversation of this run still going
            await self._event(label, other).wait()
        try:
            return await self.run_entry(entry, category, label, ask, tools=case.tools)
        finally:
            self._event(label, entry_id).set()

    async def run_entry(
        self,
        entry: dict[str, Any],
        category: str,
        label: str,
        ask: Ask,
        *,
        tools: list[Tool] | None = None,
    ) -> CaseOutcome:
        """BFCL's ``inference_multi_turn_FC`` / ``_prompting`` for one entry; the outcome's hops
        are its steps (see the module docstring)."""
        defaults = prompts()
        entry = json.loads(json.dumps(entry))  # the loop changes its copy, as BFCL's does
        memory = is_memory(category)
        memory_dir = self.memory_dir(label) if memory else None
        if memory_dir is not None and is_memory_prereq(category):
            self._restore_snapshot(entry, category, label)
        # on the loop: BFCL's classes are quick to build and call (a thread hop cost more)
        env = Environments.from_entry(
            entry,
            model_name=_handler_name(label),
            long_context="long_context" in category,
            result_dir=memory_dir,
        )
        questions: list[list[dict[str, Any]]] = entry["question"]
        if memory:
            _add_memory_prompt(questions, category, entry.get("scenario", ""), env, defaults)
        chat = _Chat()
        functions = list(entry.get("function") or [])
        if self.mode == "fc":  # the case's tools are these (built once per function list)
            chat.tools = list(tools) if tools is not None else bfcl_tools(functions, category)
        else:
            questions[0] = with_system_prompt(questions[0], functions, category, self.prompt_format)
        holdout = entry.get("missed_function") or {}
        outcome = CaseOutcome(cached=True)
        force_quit = False
        for turn, message in enumerate(questions):
            if str(turn) in holdout:
                added = holdout[str(turn)]
                if self.mode == "fc":
                    chat.tools = [*chat.tools, *_plain_tools(added)]
                    text = defaults.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
                else:
                    text = defaults.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING.format(
                        functions=added
                    )
                message = [{"role": "user", "content": text}]
            chat.messages.extend(message)
            step = 0
            while True:
                reply = await ask(
                    list(chat.messages), chat.tools, "auto" if self.mode == "fc" else "none"
                )
                outcome.cached = outcome.cached and bool(reply.cached)
                hop = add_hop(outcome, reply, len(outcome.hops))
                hop["turn"], hop["step"] = turn, step
                if step == 0:
                    hop["turn_query"] = message
                if reply.error:
                    return outcome  # BFCL: the entry's inference failed
                raw_message = _message(reply)
                result = step_result(hop, self.mode)
                hop["bfcl_result"] = result
                reasoning = raw_message.get("reasoning_content")
                if reasoning:
                    hop["reasoning_content"] = reasoning
                outcome.tool_calls.extend(reply.tool_calls)
                outcome.content = reply.content
                chat.messages.append(self._assistant(reply, raw_message, result))
                try:
                    calls = decode_execute(result, self.mode)  # type: ignore[arg-type]
                except Exception as exc:  # noqa: BLE001  # BFCL: any decoding failure ends the turn
                    hop["decode_error"] = f"{type(exc).__name__}: {exc}"
                    break
                hop["decoded"] = calls
                if is_empty_execute(calls):
                    break
                results = env.execute(calls)
                hop["execution_results"] = results
                if self.mode == "fc":
                    chat.messages += [
                        {"role": "tool", "content": r, "tool_call_id": i}
                        for r, i in zip(results, _call_ids(reply, raw_message), strict=False)
                    ]
                else:
                    listed = [
                        {"role": "tool", "name": c, "content": r}
                        for r, c in zip(results, calls, strict=False)
                    ]
                    chat.messages.append({"role": "user", "content": repr(listed)})
                step += 1
                if step > MAXIMUM_STEP_LIMIT:
                    hop["force_quit"] = True
                    force_quit = True
                    break
            if force_quit:
                break
        if memory and is_memory_prereq(category):
            await asyncio.to_thread(env.flush_memory)  # writes two files
        return outcome

    def _assistant(self, reply: Any, raw_message: Mapping[str, Any], result: Any) -> dict[str, Any]:
        """The assistant message BFCL's OpenAI handler adds to the history (reasoning left
        out, as its handlers for reasoning models do)."""
        if self.mode != "fc":
            return {"role": "assistant", "content": raw_message.get("content", reply.content)}
        calls = raw_message.get("tool_calls")
        if calls is None and reply.tool_calls:
            calls = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in reply.tool_calls
            ]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": raw_message.get("content", reply.content),
        }
        if calls:
            message["tool_calls"] = calls
        return message

    def _restore_snapshot(self, entry: dict[str, Any], category: str, label: str) -> None:
        """Before a prerequisite conversation: the scenario's latest memory file holds what the
        previous conversation left (its checkpoint), so that a conversation run again after a
        kill starts where it started the first time."""
        before = self._waits_for(entry["id"])
        if not before:
            return
        checkpoint, latest = memory_snapshot_paths(
            self.memory_dir(label), before[0], category, str(entry.get("scenario", ""))
        )
        if checkpoint.is_file():
            latest.parent.mkdir(parents=True, exist_ok=True)
            tmp = latest.with_suffix(f".{os.getpid()}.tmp")
            shutil.copyfile(checkpoint, tmp)
            tmp.replace(latest)


def _add_memory_prompt(
    questions: list[list[dict[str, Any]]], category: str, scenario: str, env: Any, defaults: Any
) -> None:
    """BFCL's ``add_memory_instruction_system_prompt``: the memory instructions (the scenario,
    the core memory's content) before the first turn's system message, or as one."""
    template = (
        defaults.MEMORY_BACKEND_INSTRUCTION_UNIFIED
        if "rec_sum" in category
        else defaults.MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL
    )
    text = template.format(
        scenario_setting=defaults.MEMORY_AGENT_SETTINGS[scenario],
        memory_content=env.memory._dump_core_memory_to_context(),
    )
    first = questions[0]
    if first and first[0].get("role") == "system":
        first[0]["content"] = f"{text}\n\n{first[0]['content']}"
    else:
        first.insert(0, {"role": "system", "content": text})


def _handler_name(label: str) -> str:
    """The model name BFCL's handler gives its environments (``/``, ``-``, ``.`` -> ``_``)."""
    return model_name(label).replace("/", "_").replace("-", "_").replace(".", "_")
