"""τ² simulations as the runner's cells: :class:`Tau2Loop`, the runner's ``agent`` hook.

A τ² run's cases are its tasks (:func:`task_case`), its samples the trials (the runner's
``repeats``, with tau2's seeds: :func:`trial_seeds`). For each cell the runner calls
:meth:`Tau2Loop.run_case` with its ``ask``: one simulation of the task (:mod:`.conversation`:
tau2's orchestrator, the agent :mod:`.agent`, the user :mod:`.user`, the domain's environment),
whose every model request, the agent's and the user's, is the cell's (its cache, retries, rate
limit and timeout), recorded as a hop with its ``role``. The outcome's ``trace`` is tau2's
``SimulationRun`` (as JSON, the shape of a results file's simulation), stored with the row,
and the row's ``overall`` and ``passed`` are tau2's reward for it and whether tau2 counts it
a success (the outcome's ``verdict``: so ``te.history()`` and a run's summary count tau2's
successes; a simulation tau2 cannot score is 0, not passed); so progress, cancel, history,
resume (a stored simulation is never asked again) and ``executor="ray"`` (the hook pickles)
are the runner's.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ..runner.record import CaseOutcome
from ..suite import EvalCase, Tool
from .agent import Caller, Tau2Agent, our_tools
from .conversation import Bridge, Placement, converse, run_orchestrator
from .domains import make_environment, tau2_registry
from .evaluate import Verdict, evaluate
from .scores import is_successful
from .user import Tau2User

__all__ = ["Tau2Loop", "task_case", "trial_seeds", "DEFAULT_MAX_STEPS", "DEFAULT_MAX_ERRORS"]

#: tau2's defaults (``tau2.config``: ``DEFAULT_MAX_STEPS``, ``DEFAULT_MAX_ERRORS``, ``DEFAULT_SEED``)
DEFAULT_MAX_STEPS = 200
DEFAULT_MAX_ERRORS = 10
DEFAULT_SEED = 300


#: where each domain's parts of a simulation run, learnt by this process (a domain's costs are
#: its code's on this machine: every run of the process shares what the earlier ones timed)
_PLACEMENT = Placement()


def trial_seeds(trials: int, seed: int = DEFAULT_SEED) -> list[int]:
    """The seed of each trial, as tau2's ``run_tasks`` draws them (``random.seed(seed)``, then
    one ``randint(0, 1000000)`` per trial); each is sent with every request of its trial."""
    draw = random.Random(seed)
    return [draw.randint(0, 1000000) for _ in range(trials)]


def task_case(task: Any, domain: str, metadata: Mapping[str, Any]) -> EvalCase:
    """One τ² task as a runner case: its id, the domain as category, tags ``tau2`` and the
    domain, the user's reason for calling as its prompt (for display), and ``metadata`` (the
    run's τ² settings: a case differs when they do, so a run resumes only its own)."""
    scenario = getattr(task, "user_scenario", None)
    instructions = getattr(scenario, "instructions", None)
    reason = getattr(instructions, "reason_for_call", None) or str(scenario or task.id)
    return EvalCase.model_validate(
        {
            "id": str(task.id),
            "messages": [{"role": "user", "content": str(reason)}],
            "category": domain,
            "tags": ["tau2", domain],
            "metadata": {"tau2_domain": domain, **metadata},
        }
    )


class Tau2Loop:
    """Runs a τ² run's cells (the runner's ``agent`` hook: :meth:`run_case`).

    Args:
        domain: the domain.
        tasks: task id -> tau2's ``Task``.
        seeds: the trials' seeds, in trial order (the runner's ``seeds``).
        max_steps: tau2's ``max_steps``.
        max_errors: tau2's ``max_errors``.
        user_models: agent label -> the user simulator's ``ModelSpec`` (absent: the agent's own).
        user_labels: agent label -> the user model's label.
        scripts: ``(task id, trial)`` -> user messages to say first (a replayed user).
    """

    def __init__(
        self,
        domain: str,
        tasks: Mapping[str, Any],
        seeds: Sequence[int],
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_errors: int = DEFAULT_MAX_ERRORS,
        user_models: Mapping[str, Any] | None = None,
        user_labels: Mapping[str, str] | None = None,
        scripts: Mapping[tuple[str, int], Sequence[Any]] | None = None,
    ) -> None:
        self.domain, self.tasks, self.seeds = domain, dict(tasks), list(seeds)
        self.max_steps, self.max_errors = max_steps, max_errors
        self.user_models = dict(user_models or {})
        self.user_labels = dict(user_labels or {})
        self.scripts = dict(scripts or {})
        self._tools: dict[str, DomainTools] = {}
        #: agent label -> ``(task id, trial)`` -> tau2's verdict on the simulation this process
        #: ran and stored (the run's scores reuse it; a Ray replica's stay in the replica)
        self.verdicts: dict[str, dict[tuple[str, int], Verdict]] = {}
        #: agent label -> ``(task id, trial)`` -> that simulation as tau2 reads it from the store
        #: (``SimulationRun`` validated from the very trace stored, which the verdict was given
        #: on; the run's results file and scores reuse it instead of reading the store again)
        self.simulations: dict[str, dict[tuple[str, int], Any]] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_tools"], state["verdicts"], state["simulations"] = {}, {}, {}
        return state

    def trial_of(self, seed: int | None) -> int:
        """The trial a cell's seed belongs to (0 when the cell has no seed)."""
        return self.seeds.index(seed) if seed in self.seeds else 0

    async def run_case(self, case: EvalCase, label: str, ask: Any) -> CaseOutcome | None:
        """One simulation of the case's task (None: not a task of this run)."""
        task = self.tasks.get(str(case.id))
        if task is None:
            return None
        seed = getattr(ask, "seed", None)
        trial = self.trial_of(seed)
        outcome = CaseOutcome(cached=True)
        bridge = Bridge()
        script = self.scripts.get((str(task.id), trial), ())

        def prepare() -> Any:
            """tau2's orchestrator for this simulation (a new environment: its database)."""
            from tau2.orchestrator.orchestrator import Orchestrator

            env = make_environment(self.domain)
            tools = self._domain_tools(env)
            agent = Tau2Agent(
                Caller("agent", ask, bridge, outcome, tools.agent),
                list(tools.tau2_agent),
                env.get_policy(),
                label,
            )
            user = Tau2User(
                Caller("user", ask, bridge, outcome, tools.user, self.user_models.get(label)),
                None if tools.tau2_user is None else list(tools.tau2_user),
                str(task.user_scenario),
                self.user_labels.get(label, label),
                script,
            )
            return Orchestrator(
                domain=self.domain,
                agent=agent,
                user=user,
                environment=env,
                task=task,
                max_steps=self.max_steps,
                max_errors=self.max_errors,
                seed=seed,
            )

        def finish(simulation: Any) -> dict[str, Any]:
            """The simulation as stored (tau2's JSON), and tau2's verdict on what is stored."""
            from tau2.data_model.simulation import SimulationRun

            simulation.trial = trial
            trace: dict[str, Any] = simulation.model_dump(mode="json")
            if outcome.error is None:
                stored = SimulationRun.model_validate(trace)
                verdict = evaluate(self.domain, task, stored)
                self.verdicts.setdefault(label, {})[str(task.id), trial] = verdict
                self.simulations.setdefault(label, {})[str(task.id), trial] = stored
                reward = verdict.reward
                outcome.verdict = (
                    (0.0, False) if reward is None else (reward, is_successful(reward))
                )
            return trace

        tau2_registry()  # tau2's orchestrator imports litellm: through our quiet, offline loader
        # the conversation, which mostly waits for replies, on this loop; building the
        # environment and evaluating, in a thread when they take the interpreter for long
        orchestrator = await _PLACEMENT.run(f"{self.domain} prepare", prepare)
        simulation = await converse(lambda: run_orchestrator(orchestrator, outcome), bridge)
        outcome.trace = await _PLACEMENT.run(f"{self.domain} finish", lambda: finish(simulation))
        outcome.content = _last_agent_text(simulation)
        if not outcome.hops:
            outcome.cached = False
        return outcome

    def _domain_tools(self, env: Any) -> DomainTools:
        """The domain's tools (built once per domain and process, from the first ``env``)."""
        tools = self._tools.get(self.domain)
        if tools is None:
            agent, user = env.get_tools(), _user_tools(env)
            tools = self._tools[self.domain] = DomainTools(
                our_tools(agent), our_tools(user), agent, user
            )
        return tools


class DomainTools(NamedTuple):
    """A domain's tools, the agent's and the user's: ours (what the requests offer) and tau2's
    (what its ``LLMAgent`` and user simulator are given).

    tau2 builds its ``Tool`` objects anew for every environment (``get_tools``: a pydantic model
    made per tool, half of a simulation's own time on the mock domain); they are built once
    here. The agent and the user only hold them (their requests are ours, offering our tools;
    a call is answered by the simulation's own environment, never through these objects), so
    those of the first environment serve every simulation, each given its own list.
    """

    agent: list[Tool]
    user: list[Tool]
    tau2_agent: list[Any]
    tau2_user: list[Any] | None


def _user_tools(env: Any) -> list[Any] | None:
    """The user's own tools (telecom), as tau2's ``run_task`` gets them (None when none)."""
    try:
        return list(env.get_user_tools())
    except Exception:  # noqa: BLE001  # tau2: a domain without user tools raises
        return None


def _last_agent_text(simulation: Any) -> str | None:
    for message in reversed(simulation.messages):
        if getattr(message, "role", None) == "assistant" and message.content:
            return str(message.content)
    return None
