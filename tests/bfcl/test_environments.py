"""BFCL's environment classes driven without eval: the same results, errors and states as BFCL's
own executor (``execute_multi_turn_func_call``, imported from the installed bfcl-eval)."""

from __future__ import annotations

import json

import pytest

from tooleval_nb.bfcl import environments as env_mod
from tooleval_nb.bfcl.environments import (
    Environments,
    decode_execute,
    is_empty_execute,
    long_context_of,
)
from tooleval_nb.bfcl_rules.data import BfclData, _installed_data
from tooleval_nb.bfcl_rules.decode import DecodeError
from tooleval_nb.errors import SuiteError

MULTI_TURN = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)

#: calls BFCL answers with an error or an odd result; each is run after an entry's ground truth
ODD_CALLS = [
    "ls(a=1)",
    "cd(folder='x')",
    "foo(x=1)",
    "ls(",
    "kill(x=1)",
    "os.remove(x=1)",
    "echo(content='run ls() now', file_name='a.txt')",
    "mean(numbers=[1,2,'a'])",
    "get_stock_info(symbol=inf)",
    "ls(a=1, a=2)",
    "  pwd()",
    "pwd() + 1",
    "mean(numbers=[1.5, -2, 3])",
    "x",
    "'str'",
    "{'a': 1}",
    "GorillaFileSystem.ls()",
    "cd(folder=pwd())",
    "ls(**{'a': True})",
    "ls(*[True])",
    "sort(file_name='a', x=[1,2][0])",
    "sort(file_name=['a','b'][1:])",
    "sort(file_name={'a': 1}['b'])",
    "exit()",
    "run(x=1)",
]


@pytest.fixture(scope="module")
def data() -> BfclData:
    found = _installed_data()
    if found is None or not (found / "BFCL_v4_multi_turn_base.json").is_file():
        pytest.skip("bfcl-eval (the bfcl extra) is not installed")
    return BfclData(found)


@pytest.fixture(scope="module")
def official():
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    return multi_turn_utils.execute_multi_turn_func_call


@pytest.mark.parametrize("category", MULTI_TURN)
def test_results_and_states_equal_bfcls_executor(data, official, category):
    """Every 3rd entry: its ground truth turn by turn, then the odd calls; each result text
    and, after each turn, every instance's public state equal to BFCL's."""
    cat = data.category(category)
    checked = 0
    for n, entry in enumerate(cat.questions[::3]):
        ours = Environments.from_entry(entry, model_name=f"t{n}", evaluation=True)
        for turn in [*cat.answers[entry["id"]], ODD_CALLS]:
            theirs, instances = official(
                turn,
                entry["initial_config"],
                entry["involved_classes"],
                f"t{n}",
                entry["id"],
                long_context=long_context_of(entry["id"]),
                is_evaL_run=True,
            )
            assert ours.execute(turn) == theirs, entry["id"]
            assert ours.snapshot() == {k: env_mod.public_state(v) for k, v in instances.items()}
            checked += len(turn)
    assert checked > 1000


def _fs_entry() -> dict:
    return {
        "id": "multi_turn_base_0",
        "involved_classes": ["GorillaFileSystem", "MathAPI"],
        "initial_config": {
            "GorillaFileSystem": {"root": {"alex": {"type": "directory", "contents": {}}}}
        },
    }


def test_errors_are_the_texts_the_model_sees(data):
    env = Environments.from_entry(_fs_entry())
    assert env.execute_one("pwd()") == '{"current_working_directory": "/alex"}'
    assert env.execute_one("nope(x=1)") == "Error during execution: name 'nope' is not defined"
    assert env.execute_one("pwd(x=1)") == (
        "Error during execution: GorillaFileSystem.pwd() got an unexpected keyword argument 'x'"
    )
    assert env.execute_one("mean(numbers=[])").startswith("{")  # a method's own error dict
    assert env.execute_one("kill(pid=1)") == (
        "Error during execution: Function call kill is not allowed."
    )
    assert env.execute_one("pwd(").startswith("Error during execution: '(' was never closed")
    assert env.execute_one("mkdir(dir_name='d')") == "None"


def test_model_text_is_never_run_as_python(tmp_path):
    env = Environments.from_entry(_fs_entry())
    marker = tmp_path / "ran"
    for text in (
        f"__import__('os').system('touch {marker}')",
        f"open('{marker}', 'w')",
        "pwd().__class__",
        "ls.__globals__",
        "[c for c in ().__class__.__base__.__subclasses__()]",
        "(lambda: 1)()",
    ):
        assert env.execute_one(text).startswith("Error during execution: ")
    assert not marker.exists()
    assert env.execute_one("_load_scenario(config={})") == (
        "Error during execution: name '_load_scenario' is not defined"
    )


def test_state_copy_and_differences():
    a = Environments.from_entry(_fs_entry())
    b = a.copy()
    assert a.differences(b) == {} and a.snapshot() == b.snapshot()
    b.execute_one("mkdir(dir_name='docs')")
    diff = a.differences(b)
    assert list(diff) == ["GorillaFileSystem"] and "root" in diff["GorillaFileSystem"]
    snap = b.snapshot()
    b.execute_one("mkdir(dir_name='more')")
    assert snap != b.snapshot()  # a snapshot is a copy, not a view


def test_decode_execute_as_bfcls_handlers():
    fc = [{"cd": '{"folder": "docs"}'}, {"mean": {"numbers": [1, 2.5]}, "pwd": "{}"}]
    assert decode_execute(fc, "fc") == ["cd(folder='docs')", "mean(numbers=[1, 2.5])", "pwd()"]
    assert decode_execute({"pwd": "{}"}, "fc") == ["pwd()"]
    assert decode_execute("", "fc") == [] and is_empty_execute([])
    for bad in ("I am done.", [{"cd": "not json"}], None, 7, [["cd"]]):
        with pytest.raises(DecodeError):
            decode_execute(bad, "fc")
    text = "[cd(folder='docs'), sort(file_name=\"a.txt\"), f(x={'k': {'n': 1}}), g(y={'a': 1})]"
    assert decode_execute(text, "prompt") == [
        "cd(folder='docs')",
        "sort(file_name='a.txt')",
        "f(x=k(n=1))",
        "g(y={'a': 1})",
    ]
    for bad in ("Sure, I will do that.", [{"cd": "{}"}], "[f(x={})]"):
        with pytest.raises(DecodeError):
            decode_execute(bad, "prompt")


def test_memory_snapshot_carries_to_the_next_entry(data, tmp_path):
    cat = data.category("memory_kv")
    first, second = cat.prereq[0], cat.prereq[1]
    env = Environments.from_entry(first, result_dir=tmp_path)
    assert env.memory is not None and type(env.memory).__name__ == "MemoryAPI_kv"
    assert "error" not in env.execute_one("core_memory_add(key='name', value='Ada')")
    env.flush_memory()
    snapshots = list(tmp_path.rglob("*_final.json"))
    assert len(snapshots) == 1 and json.loads(snapshots[0].read_text())["core_memory"] == {
        "name": "Ada"
    }
    later = Environments.from_entry(second, result_dir=tmp_path)
    assert later.memory.core_memory == {"name": "Ada"}
    with pytest.raises(SuiteError, match="result_dir"):
        Environments.from_entry(second)


def test_missing_bfcl_eval_names_the_extra(monkeypatch):
    real = env_mod.importlib.import_module

    def without_bfcl(name, *args):
        if name.startswith("bfcl_eval"):
            raise ModuleNotFoundError(f"No module named {name!r}", name="bfcl_eval")
        return real(name, *args)

    env_mod._load_class.cache_clear()
    monkeypatch.setattr(env_mod.importlib, "import_module", without_bfcl)
    with pytest.raises(
        SuiteError,
        match=r"pip install --no-deps bfcl-eval==2026\.3\.23.*'bfcl' "
        "extra",
    ):
        Environments.from_entry(_fs_entry())
    env_mod._load_class.cache_clear()


def test_a_class_whose_import_fails_names_the_package(monkeypatch):
    real = env_mod.importlib.import_module

    def without_mpmath(name, *args):
        if name.endswith(".math_api"):
            raise ModuleNotFoundError("No module named 'mpmath'", name="mpmath")
        return real(name, *args)

    env_mod._load_class.cache_clear()
    monkeypatch.setattr(env_mod.importlib, "import_module", without_mpmath)
    with pytest.raises(SuiteError, match="MathAPI cannot be imported.*pip install mpmath"):
        Environments.from_entry(_fs_entry())
    env_mod._load_class.cache_clear()
    with pytest.raises(SuiteError, match="unknown BFCL environment class 'Nope'"):
        Environments(["Nope"], {}, entry_id="multi_turn_base_0")


def test_long_context_rule():
    assert long_context_of("multi_turn_long_context_3")
    assert not long_context_of("multi_turn_base_3")


def test_plain_calls_run_directly_with_the_texts_results():
    """A decoded call with plain arguments runs without reading its text again; the results
    and the state are those of running the text (BFCL's path) on a twin environment."""
    steps = [
        {"mkdir": '{"dir_name": "d"}'},
        {"echo": '{"content": "run ls() now", "file_name": "a.txt"}'},
        {"cd": '{"folder": "d"}'},
        {"mean": '{"numbers": [1.5, -2, 3]}'},
        {"pwd": '{"x": 1}'},
        {"ls": '{"a": true, "class": 1}'},
        {"cd": '{"folder": Infinity}'},
    ]
    calls = decode_execute(steps, "fc")
    plain = [c for c in calls if c.plan is not None]
    assert 3 <= len(plain) < len(calls)  # "ls() now", "class", Infinity: read as text
    direct, text = Environments.from_entry(_fs_entry()), Environments.from_entry(_fs_entry())
    assert direct.execute(calls) == text.execute([str(c) for c in calls])
    assert direct.snapshot() == text.snapshot()
    prompt = decode_execute(
        "[mkdir(dir_name={'a': {'b': 1}}), mkdir(dir_name=('t',)), mkdir(dir_name='x')]", "prompt"
    )
    assert [c.plan is not None for c in prompt] == [False, False, True]
