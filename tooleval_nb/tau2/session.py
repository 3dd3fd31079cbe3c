"""Scoring sessions: tau2's evaluator called on many simulations in one process, faster, with the
same rewards.

tau2's evaluator (``evaluate_simulation``) builds two environments per simulation (the replay of
the trajectory and the gold one) through the constructor tau2's registry holds for the domain;
airline's and retail's load the domain's database from its file each time (tau2's ``DB.load``:
``load_file``, a JSON parse, then ``model_validate``, pydantic's validation into the domain's
``DB`` model), and the evaluator hashes both. Within a session, two costs that do not change
the result are gone:

- **the JSON parse**: each large database file is parsed once per session (by tau2's own
  ``load_file``) and each environment validates its own database from that parsed data, which
  is what ``DB.load`` does after its parse. Validation builds every container anew (the
  domains' models hold no ``Any`` field and no validator), so no two environments, and no
  environment and the parsed data, share a mutable object (``tests/tau2/test_session.py``
  checks it). The environment is then built by tau2's own constructor, given that database
  (its ``db`` argument).
- **the cycle collector's passes over the whole heap**: building a database allocates some
  100,000 objects, for which Python's collector walked every object of the process (tau2,
  litellm, a notebook's own) several times per simulation: about half of tau2's time here.
  tau2's evaluation makes no reference cycles (its objects go by reference counting), so within
  a session the collector is paused; each simulation's leftovers are collected after it
  (the young generation only: cheap), so nothing is kept, and the collector is resumed when the
  outermost session ends. The pausing is the runner's one mechanism
  (:func:`~tooleval_nb.runner.heap.collector_paused`): ``TOOLEVAL_KEEP_GC=1`` leaves the
  collector alone here too.

The parsed-once constructors are registered in tau2's registry (its public
``register_domain``) under private names (:func:`scoring_domain`), which are handed to
``evaluate_simulation`` as its ``domain``: it uses that argument only to ask the registry for
the constructor. The domains whose databases are small (telecom, mock) keep tau2's constructor.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

from ..runner.heap import collector_paused
from .domains import domain_module, environment_constructor, tau2_registry

if TYPE_CHECKING:  # pragma: no cover
    from tau2.environment.environment import Environment

__all__ = ["LARGE_DATABASES", "is_private_domain", "scoring_domain", "scoring_session"]

#: the domains whose database is parsed once per session: the name of the domain's ``DB`` model
#: and of its file's path, as its ``tau2.domains.<domain>.environment`` module imports them
LARGE_DATABASES: dict[str, tuple[str, str]] = {
    "airline": ("FlightDB", "AIRLINE_DB_PATH"),
    "retail": ("RetailDB", "RETAIL_DB_PATH"),
}
_SUFFIX = "@tooleval_nb-parsed-once"

_lock = threading.Lock()
_depth = 0
#: the outermost session's pause of the collector (closed when that session ends)
_paused: ExitStack | None = None
_parsed: dict[str, Any] = {}


def is_private_domain(name: str) -> bool:
    """Whether a name in tau2's registry is one of :func:`scoring_domain`'s."""
    return name.endswith(_SUFFIX)


def scoring_domain(domain: str) -> str:
    """The name to pass ``evaluate_simulation`` as ``domain``: for a domain of
    :data:`LARGE_DATABASES`, its parsed-once constructor's (registered on first use); else the
    domain's own."""
    if domain not in LARGE_DATABASES:
        return domain
    return _register(domain)


@cache
def _register(domain: str) -> str:
    name = domain + _SUFFIX
    tau2_registry().register_domain(_parsed_once_constructor(domain), name)
    return name


def _parsed_once_constructor(domain: str) -> Callable[..., Environment]:
    module = domain_module(domain)
    model_name, path_name = LARGE_DATABASES[domain]
    model, path = getattr(module, model_name), getattr(module, path_name)
    construct = environment_constructor(domain)
    from tau2.utils import load_file  # tau2's own reader, as DB.load calls it

    def parsed(solo_mode: bool = False) -> Environment:
        with _lock:
            data = _parsed.get(domain) if _depth else None
            if data is None:
                data = load_file(path)
                if _depth:
                    _parsed[domain] = data
        return construct(db=model.model_validate(data), solo_mode=solo_mode)

    parsed.__doc__ = f"tau2's {domain} environment, its database validated from data parsed once"
    return parsed


@contextmanager
def scoring_session() -> Iterator[None]:
    """Within: each large database parsed once, the cycle collector paused (see the module
    docstring). Sessions nest (an inner one ending collects the young generation: call one per
    simulation inside one for the whole file); the outermost one ending drops the parsed data
    and resumes the collector if it was on. Thread-safe; the collector is the process's own, so
    other threads run without it meanwhile."""
    open_session()
    try:
        yield
    finally:
        close_session()


def open_session() -> None:
    """Enter a session (see :func:`scoring_session`; a pool's worker opens one for its life)."""
    global _depth, _paused
    with _lock:
        if _depth == 0:
            _paused = ExitStack()
            _paused.enter_context(collector_paused())
        _depth += 1


def close_session() -> None:
    """Leave the session :func:`open_session` entered."""
    global _depth, _paused
    with _lock:
        _depth -= 1
        if _depth:
            # an inner session's end: its simulation's own garbage (the young generation only)
            with collector_paused(collect_young=True):
                pass
            return
        _parsed.clear()
        if _paused is not None:
            _paused.close()
            _paused = None
