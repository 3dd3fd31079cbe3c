"""Scoring sessions: environments built from a database parsed once are tau2's own, share no
mutable object, and give tau2's rewards; the collector and the parsed data are restored and
dropped when the session ends, every time."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("tau2.domains.airline.environment")

from pydantic import BaseModel  # noqa: E402

from tooleval_nb.tau2 import domains, session, trajectory  # noqa: E402
from tooleval_nb.tau2.evaluate import evaluate  # noqa: E402


def _containers(obj: Any) -> Iterator[Any]:
    """Every mutable object reachable from a database (models, dicts, lists, sets)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseModel):
            yield item
            stack.extend(item.__dict__.values())
        elif isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list | set):
            yield item
            stack.extend(item)


def _constructors(domain: str) -> tuple[Any, Any]:
    registry = domains.tau2_registry()
    return (
        registry.get_env_constructor(domain),
        registry.get_env_constructor(session.scoring_domain(domain)),
    )


@pytest.mark.parametrize("domain", sorted(session.LARGE_DATABASES))
def test_an_environment_from_parsed_data_is_taus(domain: str) -> None:
    theirs, ours = _constructors(domain)
    fresh = theirs()
    with session.scoring_session():
        first, second = ours(), ours()
        parsed = session._parsed[domain]
    for env in (first, second):
        assert type(env) is type(fresh) and type(env.tools) is type(fresh.tools)
        assert type(env.tools.db) is type(fresh.tools.db)
        assert env.tools.db == fresh.tools.db
        assert env.get_db_hash() == fresh.get_db_hash()
        assert env.get_user_db_hash() == fresh.get_user_db_hash()
        assert env.get_policy() == fresh.get_policy() and env.domain_name == fresh.domain_name
        assert [t.name for t in env.get_tools()] == [t.name for t in fresh.get_tools()]
    # nothing mutable is shared between two environments, or with the parsed data
    ids = [{id(x) for x in _containers(o)} for o in (first.tools.db, second.tools.db, parsed)]
    assert ids[0] and ids[1] and ids[2]
    assert not (ids[0] & ids[1]) and not (ids[0] & ids[2]) and not (ids[1] & ids[2])
    # solo mode: refused as tau2's constructor refuses it
    with pytest.raises(ValueError, match="does not support solo mode"):
        theirs(solo_mode=True)
    with pytest.raises(ValueError, match="does not support solo mode"):
        ours(solo_mode=True)


def test_a_change_to_one_environment_reaches_no_other() -> None:
    theirs, ours = _constructors("retail")
    task = domains.load_tasks("retail")[0]
    with session.scoring_session():
        changed, untouched = ours(), ours()
        before = changed.get_db_hash()
        for action in task.evaluation_criteria.actions:  # the gold actions: one writes
            changed.make_tool_call(action.name, requestor=action.requestor, **action.arguments)
        assert changed.get_db_hash() != before
        assert untouched.get_db_hash() == before
        assert ours().get_db_hash() == before == theirs().get_db_hash()


def test_rewards_equal_taus_evaluator_called_directly() -> None:
    """Each reward part, on a gold and a greet-and-stop conversation (every task of airline
    and retail: tests/tau2/test_proof_scores.py, slow)."""
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    domain = "retail"
    task = next(t for t in domains.load_tasks(domain) if t.evaluation_criteria.actions)
    for sim in (trajectory.gold_simulation(domain, task), trajectory.noop_simulation(task)):
        theirs = evaluate_simulation(
            simulation=sim,
            task=task,
            evaluation_type=EvaluationType.ALL,
            solo_mode=False,
            domain=domain,
        )
        ours = evaluate(domain, task, sim).reward_info
        assert ours is not None and ours.model_dump() == theirs.model_dump()


def test_small_databases_keep_taus_constructor() -> None:
    assert session.scoring_domain("telecom") == "telecom"
    assert session.scoring_domain("mock") == "mock"
    name = session.scoring_domain("airline")
    assert name != "airline" and session.is_private_domain(name)
    assert name in domains.tau2_registry().get_domains()
    assert session.scoring_domain("airline") == name  # registered once


@pytest.mark.parametrize("collector_on", [True, False], ids=["collector-on", "collector-off"])
def test_a_session_restores_the_collector_and_drops_the_data(collector_on: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if collector_on else gc.disable)()
        _, ours = _constructors("retail")
        for _ in range(2):  # twice in one process
            with session.scoring_session():
                assert not gc.isenabled()
                ours()
                with session.scoring_session():  # nested: one per simulation
                    ours()
                assert not gc.isenabled() and "retail" in session._parsed
            assert gc.isenabled() is collector_on and session._parsed == {}
        with pytest.raises(RuntimeError), session.scoring_session():
            raise RuntimeError("a failure inside")
        assert gc.isenabled() is collector_on and session._depth == 0
        ours()  # outside a session: parsed each time, nothing kept
        assert session._parsed == {}
    finally:
        (gc.enable if was else gc.disable)()
