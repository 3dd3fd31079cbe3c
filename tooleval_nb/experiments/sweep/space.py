"""Search spaces for parameter sweeps: ``te.space(...)`` and ``te.uniform(...)``.

A space maps flat config keys (see :class:`~tooleval_nb.experiments.config.Config`) to a list of
values or a :class:`Uniform` range. Expanding it against a base config gives the *canonical*
configs: assignments that collapse to the same :attr:`Config.key` (for example ``top_p`` values at
temperature 0) become one trial, and the expansion says how many collapsed.

Conditions (``when="temperature > 0"``) are small comparisons ``key op number`` with ``op`` in
``> >= < <= == !=``; they are parsed, never evaluated. A key whose condition is false keeps the
base config's value. Sampling-only keys need no condition: canonicalisation drops them at
temperature 0 anyway.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from ...errors import ExperimentError
from ..config import Config

__all__ = ["Condition", "Expansion", "Space", "Uniform", "space", "uniform", "DEFAULT_SPACE"]

_COND = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|==|!=|>|<)\s*(-?[0-9.eE+-]+|'[^']*'|\"[^\"]*\")\s*$"
)


class Condition(BaseModel):
    """``key op value``: when it is false for a config, the swept key keeps its base value."""

    model_config = ConfigDict(frozen=True)

    key: str
    op: str
    value: Any

    @classmethod
    def parse(cls, text: str) -> Condition:
        match = _COND.match(text)
        if not match:
            raise ExperimentError(
                f"condition {text!r} is not understood: write 'key op number', "
                "e.g. 'temperature > 0' (ops: > >= < <= == !=)"
            )
        key, op, raw = match.groups()
        try:
            value: Any = raw[1:-1] if raw[0] in "'\"" else float(raw)
        except ValueError:
            raise ExperimentError(f"condition {text!r}: {raw!r} is not a number") from None
        return cls(key=key, op=op, value=value)

    def holds(self, cfg: Config) -> bool:
        left = cfg.get(self.key)
        if left is None:
            return False
        try:
            return {
                ">": left > self.value,
                ">=": left >= self.value,
                "<": left < self.value,
                "<=": left <= self.value,
                "==": left == self.value,
                "!=": left != self.value,
            }[self.op]
        except TypeError:
            return False

    def __str__(self) -> str:
        return (
            f"{self.key} {self.op} {self.value:g}"
            if isinstance(self.value, float)
            else f"{self.key} {self.op} {self.value!r}"
        )


class Uniform(BaseModel):
    """A continuous range; random sampling draws from it, a grid takes ``grid_points`` values."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    low: float
    high: float
    when: Condition | None = None
    grid_points: int = 3
    digits: int = 3

    @model_validator(mode="after")
    def _check(self) -> Uniform:
        if self.high < self.low:
            raise ValueError(f"uniform({self.low}, {self.high}): high is below low")
        if self.grid_points < 1:
            raise ValueError("grid_points must be at least 1")
        return self

    def grid(self) -> list[float]:
        if self.grid_points == 1 or self.high == self.low:
            return [round((self.low + self.high) / 2, self.digits)]
        step = (self.high - self.low) / (self.grid_points - 1)
        return [round(self.low + i * step, self.digits) for i in range(self.grid_points)]

    def sample(self, rng: random.Random) -> float:
        return round(rng.uniform(self.low, self.high), self.digits)


def uniform(
    low: float, high: float, *, when: str | None = None, grid_points: int = 3, digits: int = 3
) -> Uniform:
    """A continuous range for ``te.space`` (``when="temperature > 0"`` makes it conditional)."""
    return Uniform(
        low=low,
        high=high,
        when=Condition.parse(when) if when else None,
        grid_points=grid_points,
        digits=digits,
    )


@dataclass
class Expansion:
    """The canonical configs of a space around a base config."""

    configs: list[Config]
    #: per config, the swept keys with their effective values (None = left at base / dropped)
    assignments: list[dict[str, Any]]
    n_raw: int
    #: canonical key -> number of raw assignments it stands for
    collapsed: dict[str, int] = field(default_factory=dict)

    @property
    def n_canonical(self) -> int:
        return len(self.configs)

    def describe(self) -> str:
        if self.n_raw == self.n_canonical:
            return f"{self.n_canonical} configs"
        return f"collapsed {self.n_raw} → {self.n_canonical} configs"


class Space(BaseModel):
    """A sweep's search space (build it with :func:`space`)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    values: dict[str, tuple[Any, ...] | Uniform]

    @property
    def keys(self) -> list[str]:
        return list(self.values)

    def _grid_values(self) -> list[list[Any]]:
        return [v.grid() if isinstance(v, Uniform) else list(v) for v in self.values.values()]

    def _realise(self, base: Config, raw: dict[str, Any]) -> tuple[Config, dict[str, Any]]:
        cfg = base.merge(**raw)
        # conditions are checked against the config with every unconditional key applied
        for key, spec in self.values.items():
            if isinstance(spec, Uniform) and spec.when is not None and not spec.when.holds(cfg):
                cfg = cfg.merge(**{key: base.get(key)})
        canon = cfg.canonical()
        return canon, {k: canon.get(k) for k in self.values}

    def expand(self, base: Config) -> Expansion:
        """Every canonical config of the grid (first occurrence order)."""
        grids = self._grid_values()
        seen: dict[str, int] = {}
        configs: list[Config] = []
        assigns: list[dict[str, Any]] = []
        n_raw = 0
        for combo in itertools.product(*grids):
            n_raw += 1
            cfg, assign = self._realise(base, dict(zip(self.values, combo, strict=True)))
            key = cfg.key
            if key in seen:
                seen[key] += 1
                continue
            seen[key] = 1
            configs.append(cfg)
            assigns.append(assign)
        return Expansion(configs, assigns, n_raw, seen)

    def sample(self, base: Config, n: int, seed: int = 0) -> Expansion:
        """``n`` distinct canonical configs drawn at random (lists stay discrete), seeded."""
        rng = random.Random(seed)
        if not any(isinstance(v, Uniform) for v in self.values.values()):
            full = self.expand(base)
            order = list(range(full.n_canonical))
            rng.shuffle(order)
            pick = sorted(order[:n])
            return Expansion(
                [full.configs[i] for i in pick],
                [full.assignments[i] for i in pick],
                full.n_raw,
                {full.configs[i].key: full.collapsed[full.configs[i].key] for i in pick},
            )
        seen: dict[str, int] = {}
        configs: list[Config] = []
        assigns: list[dict[str, Any]] = []
        tries = 0
        while len(configs) < n and tries < 50 * n:
            tries += 1
            raw = {
                k: (v.sample(rng) if isinstance(v, Uniform) else rng.choice(list(v)))
                for k, v in self.values.items()
            }
            cfg, assign = self._realise(base, raw)
            if cfg.key in seen:
                seen[cfg.key] += 1
                continue
            seen[cfg.key] = 1
            configs.append(cfg)
            assigns.append(assign)
        return Expansion(configs, assigns, tries, seen)

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in self.values.items():
            if isinstance(v, Uniform):
                out[k] = {
                    "uniform": [v.low, v.high],
                    "when": str(v.when) if v.when else None,
                    "grid_points": v.grid_points,
                }
            else:
                out[k] = list(v)
        return out

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{k}={v!r}" if isinstance(v, Uniform) else f"{k}={list(v)!r}"
            for k, v in self.values.items()
        )
        return f"space({inner})"


def space(**params: Iterable[Any] | Uniform | Any) -> Space:
    """A search space: ``te.space(temperature=[0, 0.7], top_p=te.uniform(0.8, 1.0))``.

    A scalar value is a one-value list. Keys are flat config keys (fields or provider params).
    """
    if not params:
        raise ExperimentError(
            "te.space() needs at least one parameter, e.g. te.space(temperature=[0, 0.7])"
        )
    values: dict[str, tuple[Any, ...] | Uniform] = {}
    for key, spec in params.items():
        if isinstance(spec, Uniform):
            values[key] = spec
        elif isinstance(spec, (list, tuple, set, frozenset, range)):
            items = tuple(spec)
            if not items:
                raise ExperimentError(f"te.space({key}=[]) has no values; give at least one")
            values[key] = tuple(dict.fromkeys(items))
        else:
            values[key] = (spec,)
    return Space(values=values)


#: the small default space for the embedded model (16 configs)
DEFAULT_SPACE = space(
    temperature=[0.0, 0.7],
    tool_choice=["auto", "required"],
    max_tokens=[128, 256],
    repeat_penalty=[1.0, 1.1],
)
