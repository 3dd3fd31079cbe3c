"""Parameter sweeps: a :class:`Space` of settings, trials raced against the base config, a
:class:`Sweep` result that confirms its winner on the holdout and promotes it to an experiment.

* :mod:`.space`: what may vary (``te.space``, ``te.uniform``, conditions);
* :mod:`.run`: ``te.sweep`` / ``te.sweep_async`` (grid, random, race, TPE), resumable;
* :mod:`.result`: the :class:`Sweep` (trials, best, confirm, promote);
* :mod:`.effects`: each swept parameter's marginal effect.
"""

from __future__ import annotations

from .effects import EFFECT_COLUMNS, effects_frame
from .result import Sweep
from .run import Select, Strategy, sweep, sweep_async
from .space import DEFAULT_SPACE, Space, Uniform, space, uniform

__all__ = [
    "DEFAULT_SPACE",
    "EFFECT_COLUMNS",
    "Select",
    "Space",
    "Strategy",
    "Sweep",
    "Uniform",
    "effects_frame",
    "space",
    "sweep",
    "sweep_async",
    "uniform",
]
