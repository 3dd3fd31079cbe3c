"""BFCL verdicts: agreement with the official score files, the decoders and the converters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval_nb.bfcl_rules.checker import decoded_verdict
from tooleval_nb.bfcl_rules.convert import java_convert, js_convert
from tooleval_nb.bfcl_rules.decode import DecodeError, decode_prompt, decode_result
from tooleval_nb.scoring import bfcl_check, bfcl_verdict, standardize_string
from tooleval_nb.toolcall import ToolCall

CATEGORIES = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
]


def _official(score_file: Path) -> tuple[dict, dict[str, str]]:
    lines = [json.loads(x) for x in score_file.read_text().splitlines() if x.strip()]
    return lines[0], {e["id"]: e["error_type"] for e in lines[1:]}


@pytest.mark.parametrize("category", CATEGORIES)
def test_agreement_with_official_scores(category, bfcl_data, bfcl_results):
    header, failed = _official(bfcl_results / "score" / f"BFCL_v4_{category}_score.json")
    df = bfcl_check(
        bfcl_results / "result" / f"BFCL_v4_{category}_result.json",
        bfcl_data / f"BFCL_v4_{category}.json",
    )
    assert list(df.columns[:3]) == ["id", "passed", "error_type"]
    assert len(df) == header["total_count"]
    ours = {r.id: r.error_type for r in df.itertuples() if not r.passed}
    assert ours == failed  # the same failed ids, with the same error types
    assert int(df["passed"].sum()) == header["correct_count"]


def test_agreement_script_prints_the_table(bfcl_data, bfcl_results, tmp_path, capsys):
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "bfcl_agreement.py"
    spec = importlib.util.spec_from_file_location("bfcl_agreement", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reference = tmp_path / "reference"  # the layout of ../shared/reference/bfcl, from fixtures
    (reference / "results").mkdir(parents=True)
    (reference / "data").symlink_to(bfcl_data)
    (reference / "results" / bfcl_results.name).symlink_to(bfcl_results)
    assert module.main(["--reference", str(reference)]) == 0
    out = capsys.readouterr().out
    assert "3625/3625 100.0%" in out and "585/585  100.0%" in out


FUNC = {
    "name": "calc.area",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer"},
            "height": {"type": "float"},
            "unit": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "dict"},
        },
        "required": ["base", "height"],
    },
}
TRUTH = [
    {
        "calc.area": {
            "base": [10],
            "height": [5.0],
            "unit": ["cm", ""],
            "tags": [["a b", "C"], ""],
            "opts": [{"x": ["1"], "y": ["", 2]}, ""],
        }
    }
]


@pytest.mark.parametrize(
    ("result", "passed", "error_type"),
    [
        ([{"calc.area": '{"base": 10, "height": 5}'}], True, None),
        ([{"calc.area": '{"base": 10, "height": 5.0, "unit": "CM"}'}], True, None),
        ([{"calc.area": '{"base": 10.0, "height": 5}'}], False, "type_error:simple"),
        ([{"calc.area": '{"base": true, "height": 5}'}], False, "type_error:simple"),
        ([{"calc.area": '{"base": 10}'}], False, "simple_function_checker:missing_required"),
        (
            [{"calc.area": '{"base": 10, "height": 5, "color": "red"}'}],
            False,
            "simple_function_checker:unexpected_param",
        ),
        ([{"calc.area": '{"base": 11, "height": 5}'}], False, "value_error:others"),
        ([{"calc.area": '{"base": 10, "height": 5, "unit": "m"}'}], False, "value_error:string"),
        ([{"calc.area": '{"base": 10, "height": 5, "tags": ["A-B", "c"]}'}], True, None),
        (
            [{"calc.area": '{"base": 10, "height": 5, "tags": ["c", "ab"]}'}],
            False,
            "value_error:list/tuple",
        ),
        # BFCL's quirk: with "" (optional) among the answers the nested type check passes
        (
            [{"calc.area": '{"base": 10, "height": 5, "tags": ["ab", 3]}'}],
            False,
            "value_error:list/tuple",
        ),
        ([{"calc.area": '{"base": 10, "height": 5, "opts": {"x": "1"}}'}], True, None),
        (
            [{"calc.area": '{"base": 10, "height": 5, "opts": {"x": "1", "z": 1}}'}],
            False,
            "value_error:dict_key",
        ),
        (
            [{"calc.area": '{"base": 10, "height": 5, "opts": {"x": "2"}}'}],
            False,
            "value_error:dict_value",
        ),
        (
            [{"calc_area": '{"base": 10, "height": 5}'}],
            False,
            "simple_function_checker:wrong_func_name",
        ),
        ([], False, "simple_function_checker:wrong_count"),
        ([{"calc.area": "{not json"}], False, "ast_decoder:decoder_failed"),
        ([{"calc.area": "[1, 2]"}], False, "ast_decoder:decoder_wrong_output_format"),
        ("[calc.area(base=10, height=5.0)]", True, None),
        ("calc.area(base=2*5, height=5)", True, None),
        ("Sure! The area is 25.", False, "ast_decoder:decoder_failed"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None,
)
def test_simple_rules(result, passed, error_type):
    v = bfcl_verdict(result, [FUNC], TRUTH, "simple_python")
    assert (v.passed, v.error_type) == (passed, error_type)


def test_nested_type_error_when_the_list_is_required():
    truth = [{"calc.area": {"base": [10], "height": [5.0], "tags": [["a b", "C"]]}}]
    v = bfcl_verdict(
        [{"calc.area": '{"base": 10, "height": 5, "tags": ["ab", 3]}'}],
        [FUNC],
        truth,
        "simple_python",
    )
    assert v.error_type == "type_error:nested"


def test_missing_optional():
    truth = [{"calc.area": {"base": [10], "height": [5.0], "unit": ["cm"]}}]
    v = bfcl_verdict([{"calc.area": '{"base": 10, "height": 5}'}], [FUNC], truth, "simple")
    assert v.error_type == "simple_function_checker:missing_optional"


def test_underscore_to_dot():
    result = [{"calc_area": '{"base": 10, "height": 5}'}]
    assert not bfcl_verdict(result, [FUNC], TRUTH, "simple_python").passed
    assert bfcl_verdict(result, [FUNC], TRUTH, "simple_python", underscore_to_dot=True).passed


def test_parallel_is_greedy_and_order_free():
    f = {
        "name": "f",
        "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    }
    truth = [{"f": {"a": [1]}}, {"f": {"a": [2]}}]
    ok = bfcl_verdict([{"f": '{"a": 2}'}, {"f": '{"a": 1}'}], [f], truth, "parallel")
    assert ok.passed
    bad = bfcl_verdict([{"f": '{"a": 2}'}, {"f": '{"a": 3}'}], [f], truth, "parallel")
    assert bad.error_type == "parallel_function_checker_no_order:cannot_find_match"
    short = bfcl_verdict([{"f": '{"a": 2}'}], [f], truth, "parallel")
    assert short.error_type == "parallel_function_checker_no_order:wrong_count"


@pytest.mark.parametrize(
    ("result", "category", "passed"),
    [
        ([], "irrelevance", True),
        ([{"f": "{}"}], "irrelevance", False),
        ("I can't help with that", "live_irrelevance", True),
        ("[f(a=1)]", "live_irrelevance", False),
        ([{"f": "{}"}], "live_relevance", True),
        ([], "live_relevance", False),
    ],
    ids=["irr-none", "irr-call", "irr-text", "irr-prompt-call", "rel-call", "rel-none"],
)
def test_relevance(result, category, passed):
    assert bfcl_verdict(result, [], None, category).passed is passed


def test_standardize_string():
    assert standardize_string("April 1, 2024") == standardize_string("april 1 2024")
    assert standardize_string("It's a_b-c/d.e*f^g") == 'it"sabcdefg'


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("[f(a=1, b='x')]", [{"f": {"a": 1, "b": "x"}}]),
        ("f(a=1), g(b=[1, 2])", [{"f": {"a": 1}}, {"g": {"b": [1, 2]}}]),
        (
            "```\n[mod.sub.f(x=-3, y=(1, 2), z={'k': None})]\n```",
            [{"mod.sub.f": {"x": -3, "y": (1, 2), "z": {"k": None}}}],
        ),
        ("[f(a=2**10 + 1, b='ab' * 2)]", [{"f": {"a": 1025, "b": "abab"}}]),
        (
            "[f(a=x, b=g(), c=h(k=1), d=arr[0])]",
            [{"f": {"a": "x", "b": "g()", "c": {"h": {"k": 1}}, "d": "arr[0]"}}],
        ),
        ("[f(a=...)]", [{"f": {"a": "..."}}]),
        ("[f(1, 2, a=3)]", [{"f": {"a": 3}}]),
    ],
    ids=[
        "basic",
        "no-brackets",
        "nested",
        "arithmetic",
        "names-calls-subscripts",
        "ellipsis",
        "positional-ignored",
    ],
)
def test_prompt_decoder(text, decoded):
    assert decode_prompt(text) == decoded


@pytest.mark.parametrize(
    "text",
    [
        "[__import__('os').system('echo hacked')]",
        "[f(a=__import__('os').system('echo hacked') + 1)]",
        "[f(a=lambda: 1)]",
        "[f(a=9**9**9)]",
        "[f(a='x' * 10**9)]",
        "[f(a=-'x')]",
        "[f(a=[i for i in range(3)])]",
        "Hello there",
        "[1, 2]",
    ],
    ids=[
        "import-call",
        "import-in-arith",
        "lambda",
        "huge-power",
        "huge-repeat",
        "neg-string",
        "comprehension",
        "prose",
        "not-calls",
    ],
)
def test_prompt_decoder_never_executes_and_fails_cleanly(text, capfd):
    try:
        decoded = decode_prompt(text)
    except DecodeError:
        decoded = None
    assert "hacked" not in capfd.readouterr().out
    if text.startswith("[__import__"):
        # a call on a call: BFCL keeps only the dotted name parts it can read
        assert decoded == [{"system": {}}]
    else:
        assert decoded is None


def test_fc_decoder_rejects_non_calls():
    with pytest.raises(DecodeError):
        decode_result(["some text"])
    with pytest.raises(DecodeError):
        decode_result([{"f": ["not", "an", "object"]}])
    assert decode_result([{"f": {"a": 1}}]) == [{"f": {"a": 1}}]


@pytest.mark.parametrize(
    ("value", "kind", "nested", "out"),
    [
        ("42", "integer", None, 42),
        ("4.2", "integer", None, "4.2"),
        ("3.5f", "float", None, 3.5),
        ("3.5", "float", None, "3.5"),
        ("2.5e3", "double", None, 2500.0),
        ("7L", "long", None, 7),
        ("7", "long", None, "7"),
        ("true", "boolean", None, True),
        ("'c'", "char", None, "'c'"),
        ("new int[]{1, 2, 3}", "Array", "integer", [1, 2, 3]),
        ('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String", ["a", "b"]),
        (
            'new HashMap<String, Object>() {{ put("k", 1); put("s", "v"); }}',
            "HashMap",
            None,
            {"k": 1, "s": "v"},
        ),
        ("new HashMap<>()", "HashMap", None, {}),
        ("mapController", "any", None, "mapController"),
    ],
    ids=lambda v: str(v)[:20],
)
def test_java_converter(value, kind, nested, out):
    assert java_convert(value, kind, nested) == out


@pytest.mark.parametrize(
    ("value", "kind", "nested", "out"),
    [
        ('"abc"', "String", None, "abc"),
        ("abc", "String", None, "abc"),
        ("12", "integer", None, 12),
        ("1.5", "float", None, 1.5),
        ("9n", "Bigint", None, 9),
        ("false", "Boolean", None, False),
        ("[1, 2, 3]", "array", "integer", [1, 2, 3]),
        ("['a', 'b']", "array", "String", ["a", "b"]),
        ("[[1, 2], [3, 4]]", "array", None, [[1, 2], [3, 4]]),
        ("{'k': 'v', 'n': 2, 'l': [1, 2]}", "dict", None, {"k": "v", "n": 2, "l": [1, 2]}),
        ("{}", "dict", None, {}),
        ("someVar", "dict", None, "someVar"),
    ],
    ids=lambda v: str(v)[:20],
)
def test_js_converter(value, kind, nested, out):
    assert js_convert(value, kind, nested) == out


def test_hand_written_schemas_map_to_gorilla_types():
    from tooleval_nb.bfcl_rules.adapt import tools_to_functions
    from tooleval_nb.suite import Tool

    tool = Tool.create(
        "f",
        parameters={
            "n": {"type": "number"},
            "o": {"type": "object"},
            "l": {"type": "array", "items": {"type": "integer"}},
            "s": {"type": ["string", "null"]},
            "b": {"type": "boolean"},
        },
        required=["n"],
    )
    (fn,) = tools_to_functions([tool])
    assert fn["name"] == "f" and fn["parameters"]["required"] == ["n"]
    assert {k: v["type"] for k, v in fn["parameters"]["properties"].items()} == {
        "n": "float",
        "o": "dict",
        "l": "array",
        "s": "string",
        "b": "boolean",
    }
    assert fn["parameters"]["properties"]["l"]["items"] == {"type": "integer"}
    truth = [{"f": {"n": [2.0], "l": [[1, 2], ""]}}]
    assert bfcl_verdict([{"f": '{"n": 2, "l": [1, 2]}'}], [tool], truth, "simple").passed


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        ' {"a": 1} ',
        '{"a": 1}\n',
        '{"a": 1} \x0c',
        '{"a": 1',
        "",
        "[1, 2]",
        '{"a": 1}{}',
        "NaN",
    ],
)
def test_fc_arguments_decode_as_json_loads(text):
    """BFCL's FC handlers parse each call's arguments with json.loads: our short-cut decodes
    and refuses exactly what it does (a trailing form feed is not JSON whitespace)."""
    try:
        expected = [{"f": json.loads(text)}]
    except ValueError:
        with pytest.raises(DecodeError):
            decode_result([{"f": text}])
        return
    assert decode_result([{"f": text}]) == expected


@pytest.mark.parametrize(
    "category", ["simple", "multiple", "parallel", "irrelevance", "live_relevance"]
)
@pytest.mark.parametrize(
    "calls",
    [
        [],
        [{"get_weather": {"city": "Paris"}}],
        [{"get_weather": {"city": "paris!"}}],
        [{"get_weather": {"city": 3}}],
        [{"get_weather": {"city": "Paris", "unit": "c"}}],
        [{"get_weather": {}}],
        [{"function": {"city": "Paris"}}],  # a tool named like the OpenAI shape's key
        [{"get_weather": {"city": "Paris"}}, {"get_weather": {"city": "Rome"}}],
    ],
)
def test_a_decoded_result_gets_the_verdict_of_its_tool_calls(category, calls):
    functions = [
        {
            "name": n,
            "parameters": {
                "type": "dict",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        }
        for n in ("get_weather", "function")
    ]
    truth = [{"get_weather": {"city": ["Paris"], "unit": ["", "c"]}}]
    if category == "parallel":
        truth = [*truth, {"get_weather": {"city": ["Rome"], "unit": [""]}}]
    tool_calls = [ToolCall.create(name, args) for call in calls for name, args in call.items()]
    assert decoded_verdict(calls, functions, truth, category) == bfcl_verdict(
        tool_calls, functions, truth, category
    )
