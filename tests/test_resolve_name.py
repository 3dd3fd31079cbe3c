"""The four "module:attr" references (a progress display, a run's agent callable, a report's
agent, the fake server's handler) resolve through ``pkgutil.resolve_name``, and a bad one fails
with a message naming the reference and where it came from."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import StoreError, ToolEvalError
from tooleval_nb.report.suites import _agent
from tooleval_nb.runner import progress
from tooleval_nb.runner.plan import callable_path, import_callable
from tooleval_nb.testing.fake_openai import _load_handler


def helper(case: object) -> str:
    return "ok"


class Holder:
    @staticmethod
    def nested(case: object) -> str:
        return "nested"


def test_the_four_sites_resolve_a_reference() -> None:
    assert import_callable(callable_path(helper)) is helper
    assert import_callable(callable_path(Holder.nested)) is Holder.nested  # a dotted qualname
    assert _agent(f"{__name__}:helper") is helper
    assert _load_handler(f"{__name__}:helper") is helper
    progress._DISPLAYS["test-by-name"] = f"{__name__}:Holder"
    try:
        assert progress._factory("test-by-name") is Holder
        assert progress._DISPLAYS["test-by-name"] is Holder  # resolved once, then kept
    finally:
        del progress._DISPLAYS["test-by-name"]


@pytest.mark.parametrize("ref", ["no_such_module_xyz:f", f"{__name__}:missing", "not a name:f"])
def test_a_bad_reference_is_named_with_its_origin(ref: str) -> None:
    with pytest.raises(StoreError, match=rf"agent callable {ref}.*te.resume"):
        import_callable(ref)
    with pytest.raises(ToolEvalError, match=rf"agent '{ref}' cannot be imported"):
        _agent(ref)
    with pytest.raises(ValueError, match=rf"handler '{ref}' cannot be imported"):
        _load_handler(ref)
    progress._DISPLAYS["test-bad"] = ref
    try:
        with pytest.raises(ImportError, match=rf"progress display 'test-bad': '{ref}'"):
            progress._factory("test-bad")
    finally:
        del progress._DISPLAYS["test-bad"]


def test_a_reference_without_a_colon_is_refused_where_a_callable_is_wanted() -> None:
    with pytest.raises(ToolEvalError, match="agent 'os' cannot be imported.*module:callable"):
        _agent("os")
    with pytest.raises(ValueError, match="handler 'os' cannot be imported"):
        _load_handler("os")


def test_an_interactive_callable_is_refused_by_name() -> None:
    with pytest.raises(StoreError, match=r"__main__:f cannot be imported again.*interactively"):
        import_callable("__main__:f")
