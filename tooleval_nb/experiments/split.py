"""Dev / holdout splits: tuners select on ``dev`` and are confirmed on ``holdout`` (P3).

:func:`split` is stratified (by category, first tag, or any function of a case) and seeded, so the
same suite and seed always give the same split. Each stratum gives the holdout its share, rounded
by largest remainder so the total is exact.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from ..errors import ExperimentError

if TYPE_CHECKING:  # pragma: no cover
    from ..suite import EvalCase, Suite

__all__ = ["Split", "SplitName", "split"]

SplitName = Literal["all", "dev", "holdout"]


class Split(BaseModel):
    """Case ids of the dev and holdout parts of a suite (disjoint)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dev: tuple[str, ...]
    holdout: tuple[str, ...]
    seed: int = 0
    by: str | None = None
    #: how the sizes were decided, e.g. "holdout raised from 2 to 8 (min_holdout)"
    notes: tuple[str, ...] = ()

    def ids(self, which: SplitName) -> list[str]:
        """The case ids of ``which`` (``all`` = dev then holdout)."""
        if which == "dev":
            return list(self.dev)
        if which == "holdout":
            return list(self.holdout)
        return [*self.dev, *self.holdout]

    def subset(self, suite: Suite, which: SplitName) -> Suite:
        """The suite restricted to one part (case order follows the suite)."""
        wanted = set(self.ids(which))
        missing = wanted - {c.id for c in suite.cases}
        if missing:
            raise ExperimentError(
                f"split refers to {len(missing)} case id(s) not in suite {suite.name!r} "
                f"(e.g. {sorted(missing)[0]!r}); rebuild it with te.split(suite, ...)"
            )
        return suite.filter(ids=wanted)

    @classmethod
    def whole(cls, suite: Suite) -> Split:
        """Every case in dev and none held out (when a suite is too small to split)."""
        return cls(
            dev=tuple(c.id or "" for c in suite.cases),
            holdout=(),
            notes=("no holdout: every case is in dev",),
        )

    def __repr__(self) -> str:
        return (
            f"Split(dev={len(self.dev)} cases, holdout={len(self.holdout)} cases, seed={self.seed})"
        )


def _stratum(by: str | Callable[[EvalCase], object] | None) -> Callable[[EvalCase], str]:
    if by is None:
        return lambda case: ""
    if callable(by):
        return lambda case: str(by(case))
    if by == "category":
        return lambda case: str(case.category or "")
    if by == "tag":
        return lambda case: case.tags[0] if case.tags else ""
    raise ExperimentError(
        f"split(by={by!r}) is not supported: use 'category', 'tag', None or a function of the case"
    )


def split(
    suite: Suite,
    holdout: float = 0.3,
    *,
    by: str | Callable[[EvalCase], object] | None = "category",
    seed: int = 0,
    min_holdout: int = 8,
) -> Split:
    """Split ``suite`` into dev and holdout case ids, stratified and seeded.

    Args:
        suite: the suite to split.
        holdout: the share of cases held out (0 ≤ holdout < 1).
        by: stratify by ``"category"``, ``"tag"`` (first tag), a function of the case, or None.
        seed: the shuffle seed.
        min_holdout: the holdout gets at least this many cases when the suite allows it (never
            more than half the suite unless ``holdout`` itself asks for more).

    Returns:
        A :class:`Split` with every case in exactly one part.
    """
    if not 0 <= holdout < 1:
        raise ExperimentError(
            f"split(holdout={holdout}) must be in [0, 1): the share of cases kept for confirmation"
        )
    cases = [c for c in suite.cases if not c.draft]
    n = len(cases)
    notes: list[str] = []
    if n == 0:
        raise ExperimentError(f"suite {suite.name!r} has no (accepted) cases to split")
    want = round(holdout * n)
    if holdout > 0:
        floor = min(min_holdout, n // 2)
        if want < floor:
            notes.append(f"holdout raised from {want} to {floor} cases (min_holdout={min_holdout})")
            want = floor
        want = max(1, min(want, n - 1)) if n > 1 else 0
    key = _stratum(by)
    strata: dict[str, list[str]] = {}
    for case in cases:
        strata.setdefault(key(case), []).append(case.id or "")
    rng = random.Random(seed)
    # largest-remainder allocation of `want` holdout cases across strata
    names = sorted(strata)
    quotas = {s: want * len(strata[s]) / n for s in names}
    alloc = {s: math.floor(q) for s, q in quotas.items()}
    rest = want - sum(alloc.values())
    for s in sorted(names, key=lambda s: (-(quotas[s] - alloc[s]), s))[:rest]:
        alloc[s] += 1
    dev: list[str] = []
    held: list[str] = []
    for s in names:
        ids = sorted(strata[s])
        rng.shuffle(ids)
        take = min(alloc[s], len(ids))
        held.extend(ids[:take])
        dev.extend(ids[take:])
    order = {c.id: i for i, c in enumerate(cases)}
    dev.sort(key=order.__getitem__)
    held.sort(key=order.__getitem__)
    label = by if isinstance(by, str) or by is None else getattr(by, "__name__", "function")
    return Split(dev=tuple(dev), holdout=tuple(held), seed=seed, by=label, notes=tuple(notes))
