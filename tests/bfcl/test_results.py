"""BFCL result entries from stored cases, the files, and the refusals."""

from __future__ import annotations

import json

import pytest

from tooleval_nb.bfcl.results import (
    check_manifest,
    check_result_file,
    model_dir_name,
    multi_turn_entry,
    raw_result,
    read_result_file,
    result_entry,
    result_path,
    sort_key,
    write_manifest,
    write_result_file,
)
from tooleval_nb.bfcl_rules.data import BfclData
from tooleval_nb.errors import SuiteError
from tooleval_nb.suite import Tool


def _hop(message, **extra):
    return {"hops": [{"raw": {"choices": [{"message": message}]}, **extra}]}


@pytest.mark.parametrize(
    ("message", "mode", "expected"),
    [
        (
            {
                "content": None,
                "tool_calls": [
                    {"function": {"name": "math_factorial", "arguments": '{"number": 5}'}}
                ],
            },
            "fc",
            [{"math_factorial": '{"number": 5}'}],
        ),
        ({"content": "I cannot", "tool_calls": []}, "fc", []),
        ({"content": "I cannot"}, "fc", "I cannot"),
        ({"content": None}, "fc", None),
        ({"content": " [math.factorial(number=5)]\n"}, "prompt", " [math.factorial(number=5)]\n"),
    ],
    ids=["fc-calls-as-returned", "fc-empty-list-kept", "fc-text", "fc-nothing", "prompt-raw-text"],
)
def test_raw_result_is_what_bfcls_handler_stores(message, mode, expected):
    assert raw_result(_hop(message), mode) == expected


def test_without_the_raw_response_the_result_is_rebuilt():
    tools = [Tool.create("math.factorial", "", {"number": {"type": "integer"}})]
    detail = {
        "hops": [
            {
                "tool_calls": [
                    {"function": {"name": "math.factorial", "arguments": '{"number": 5}'}}
                ],
                "content": None,
            }
        ]
    }
    assert raw_result(detail, "fc", tools) == [{"math_factorial": '{"number": 5}'}]
    assert raw_result({"hops": [{"content": "x", "raw_text": "[f()]"}]}, "prompt") == "[f()]"


def test_entry_fields_and_errors():
    row = {
        "case_id": "simple_python_3",
        "latency_ms": 1500.0,
        "prompt_tokens": 10,
        "completion_tokens": 4,
        "error": None,
    }
    entry = result_entry(row, _hop({"content": "[f(a=1)]"}), "prompt")
    assert entry == {
        "id": "simple_python_3",
        "result": "[f(a=1)]",
        "input_token_count": 10,
        "output_token_count": 4,
        "latency": 1.5,
    }
    failed = result_entry({**row, "error": "boom", "error_type": "ModelServerError"}, {}, "fc")
    assert failed["result"] == "Error during inference: boom"
    assert "ModelServerError" in failed["traceback"]


def test_files_are_sorted_as_bfcl_sorts_and_laid_out_by_group(tmp_path):
    ids = ["live_simple_10-2-3", "live_simple_2-1-0", "live_simple_1-0-0"]
    assert sorted(ids, key=sort_key) == [
        "live_simple_1-0-0",
        "live_simple_2-1-0",
        "live_simple_10-2-3",
    ]
    path = result_path(tmp_path, model_dir_name("openai/gpt-x", "fc"), "live_simple")
    assert (
        path == tmp_path / "result" / "openai_gpt-x-FC" / "live" / "BFCL_v4_live_simple_result.json"
    )
    write_result_file(path, [{"id": i, "result": []} for i in ids])
    assert [e["id"] for e in read_result_file(path)] == sorted(ids, key=sort_key)
    assert model_dir_name("local/m", "prompt") == "local_m"
    assert model_dir_name("local/m [pythonic]", "prompt") == "local_m"


def test_a_result_file_of_another_dataset_is_refused_with_the_ids(bfcl_data, tmp_path):
    data = BfclData(bfcl_data).category("simple_python")
    entries = [{"id": "simple_python_0", "result": []}, {"id": "simple_python_9999", "result": []}]
    with pytest.raises(SuiteError, match="simple_python_9999"):
        check_result_file(tmp_path / "f.json", entries, data)
    with pytest.raises(SuiteError, match="more than once: simple_python_0"):
        check_result_file(tmp_path / "f.json", [entries[0], entries[0]], data)


def test_an_output_folder_of_another_model_or_data_version_is_refused(bfcl_data, tmp_path):
    data = BfclData(bfcl_data).category("simple_python")
    folder = tmp_path / "result" / "m-FC"
    facts = {
        "model": "m",
        "mode": "fc",
        "categories": {"simple_python": {"fingerprint": data.fingerprint}},
    }
    write_manifest(folder, facts)
    check_manifest(folder, "m", "fc", {"simple_python": data})  # the same: accepted
    with pytest.raises(SuiteError, match="model 'm' \\(fc mode\\), not 'other'"):
        check_manifest(folder, "other", "fc", {"simple_python": data})
    write_manifest(folder, {**facts, "categories": {"simple_python": {"fingerprint": "old"}}})
    write_result_file(
        folder / "non_live" / "BFCL_v4_simple_python_result.json",
        [{"id": "simple_python_0", "result": []}, {"id": "simple_python_777777", "result": []}],
    )
    with pytest.raises(SuiteError, match="another BFCL dataset version.*simple_python_777777"):
        check_manifest(folder, "m", "fc", {"simple_python": data})


def test_a_malformed_result_file_names_the_line(tmp_path):
    path = tmp_path / "BFCL_v4_simple_python_result.json"
    path.write_text(json.dumps({"id": "simple_python_0", "result": []}) + '\n{"id": 3}\n')
    with pytest.raises(SuiteError, match="line 2: field id/result"):
        read_result_file(path)


def _step(turn, step, message, **extra):
    return {
        "turn": turn,
        "step": step,
        "raw": {"choices": [{"message": message}]},
        "bfcl_result": extra.pop("result"),
        "prompt_tokens": 10 + step,
        "completion_tokens": 2,
        "latency_ms": 250.0,
        **extra,
    }


def test_multi_turn_entry_is_bfcls_list_of_turns_of_steps():
    call = {"tool_calls": [{"function": {"name": "ls", "arguments": "{}"}}]}
    hops = [
        _step(
            0,
            0,
            call,
            result=[{"ls": "{}"}],
            decoded=["ls()"],
            execution_results=['{"current_directory_content": []}'],
            turn_query=[{"role": "user", "content": "list"}],
        ),
        _step(0, 1, {"content": "done"}, result="done", decode_error="DecodeError: text"),
        _step(
            1,
            0,
            {"content": "bye"},
            result="bye",
            decode_error="DecodeError: text",
            turn_query=[{"role": "user", "content": "thanks"}],
            reasoning_content="hm",
        ),
        {"round": 9, "agent": True},  # not a step of the loop: left out
    ]
    entry = multi_turn_entry({"case_id": "multi_turn_base_0"}, {"hops": hops})
    assert entry["result"] == [[[{"ls": "{}"}], "done"], ["bye"]]
    assert entry["input_token_count"] == [[10, 11], [10]]
    assert entry["output_token_count"] == [[2, 2], [2]]
    assert entry["latency"] == [[0.25, 0.25], [0.25]]
    assert entry["reasoning_content"] == [["", ""], ["hm"]]
    log = entry["inference_log"]
    assert log[0]["begin_of_turn_query"] == [{"role": "user", "content": "list"}]
    assert log[0]["step_0"][-1] == {"role": "tool", "content": '{"current_directory_content": []}'}
    assert log[0]["step_1"][1]["error"] == "DecodeError: text"
    assert log[1]["step_0"][0] == {"role": "assistant", "content": "bye", "reasoning_content": "hm"}
    failed = multi_turn_entry({"case_id": "x_1", "error": "boom", "error_type": "E"}, {})
    assert failed == {"id": "x_1", "result": "Error during inference: boom", "traceback": "E: boom"}
