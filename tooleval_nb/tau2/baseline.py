"""The inaction baseline: which τ²-bench tasks an agent that does nothing passes.

The agent greets, the user asks, the agent stops (:func:`.trajectory.noop_simulation`); tau2's
evaluator scores that conversation (:func:`.evaluate.evaluate`). A task it passes rewards
inaction: its final database is the initial one, and nothing needed saying. On the wheel's data
19 of airline's 50 tasks pass, 7 of retail's 114 and none of telecom's ``small`` 20.

A task's verdict is kept for the process (keyed by the domain and the task's content).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .evaluate import Verdict, evaluate
from .trajectory import noop_simulation

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from tau2.data_model.tasks import Task

__all__ = ["BASELINE_COLUMNS", "inaction_baseline", "inaction_verdict"]

#: the columns of :func:`inaction_baseline`
BASELINE_COLUMNS = ["domain", "task_id", "passes_on_inaction", "reward", "not_scored"]

_VERDICTS: dict[tuple[str, str], Verdict] = {}


def inaction_verdict(domain: str, task: Task) -> Verdict:
    """tau2's verdict on the greet-and-stop conversation of ``task``."""
    key = (domain, hashlib.sha256(task.model_dump_json().encode()).hexdigest())
    verdict = _VERDICTS.get(key)
    if verdict is None:
        verdict = evaluate(domain, task, noop_simulation(task))
        _VERDICTS[key] = verdict
    return verdict


def inaction_baseline(domain: str, tasks: Iterable[Task]) -> pd.DataFrame:
    """Per task: whether an agent that only greets and stops passes it (columns
    :data:`BASELINE_COLUMNS`; a task tau2's evaluator cannot score on it is not passed, with the
    reason in ``not_scored``)."""
    import pandas as pd

    from .scores import is_successful

    rows = []
    for task in tasks:
        verdict = inaction_verdict(domain, task)
        reward = verdict.reward
        rows.append(
            {
                "domain": domain,
                "task_id": task.id,
                "passes_on_inaction": reward is not None and is_successful(reward),
                "reward": reward,
                "not_scored": verdict.not_scored,
            }
        )
    return pd.DataFrame(rows, columns=BASELINE_COLUMNS)
