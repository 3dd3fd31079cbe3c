"""BFCL's AST checker, reimplemented: a pass/fail verdict and error type identical to BFCL's.

The rules (BFCL ``eval_checker/ast_eval/ast_checker.py``, summarised in
``shared/reference/README.md``): per call the first failure decides: the function name, every
required parameter, every given parameter being in the schema *and* in the ground truth, the
Python type of each value (an int is accepted for a float; arrays are checked one level deep),
then the value against the acceptable values (strings normalised, lists of strings item by item,
dicts and lists of dicts one level deep), then omitted parameters. ``simple`` wants exactly one
call, ``multiple`` one call checked against the one expected call, ``parallel*`` equal counts and
a greedy order-insensitive match. The irrelevance categories pass when nothing decodes as a call;
``live_relevance`` passes when something does.

Entry points: :func:`bfcl_verdict` for one entry (BFCL-shaped data or our own ``Tool`` /
``ExpectedCall`` / ``ToolCall`` objects), :func:`decoded_verdict` for one entry whose result is
decoded already, and :func:`check_calls` for decoded calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ScoringError
from .adapt import calls_to_decoded, expected_to_ground_truth, tools_to_functions
from .categories import Language, is_relevance, language_of
from .decode import DecodeError, decode_prompt, decode_result, is_call_list, is_empty_calls

__all__ = [
    "BfclVerdict",
    "bfcl_verdict",
    "decoded_verdict",
    "format_sensitivity_verdict",
    "check_calls",
    "standardize_string",
    "tools_to_functions",
    "expected_to_ground_truth",
    "calls_to_decoded",
]

_PY_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_CONVERTED_NESTED = ("Array", "ArrayList", "array")
_STRIP = str.maketrans("", "", " ,./-_*^")


@dataclass(frozen=True, slots=True)
class BfclVerdict:
    """One BFCL verdict: ``passed``, BFCL's ``error_type`` (None when passed) and messages."""

    passed: bool
    error_type: str | None = None
    errors: tuple[str, ...] = field(default=())


_PASS = BfclVerdict(True)
_CATEGORY_INFO: dict[str, tuple[Language, bool]] = {}


def _fail(error_type: str, message: str) -> BfclVerdict:
    return BfclVerdict(False, error_type, (message,))


_STD_CACHE: dict[str, str] = {}


def standardize_string(text: str) -> str:
    """BFCL's string normalisation: drop `` ,./-_*^``, lowercase, ``'`` -> ``"``."""
    out = _STD_CACHE.get(text)
    if out is None:
        out = text.translate(_STRIP).lower().replace("'", '"')
        if len(_STD_CACHE) < 100_000:  # a bounded memo: answers repeat across entries and runs
            _STD_CACHE[text] = out
    return out


# -- value checkers ----------------------------------------------------------------------------
def _answer_type(answers: Any) -> type | None:
    for a in answers:
        if a != "":
            return type(a)
    return None


def _type_check(
    param: str, value: Any, answers: Any, desc: str, expected: type, nested: type | None
) -> tuple[BfclVerdict, bool]:
    """(verdict, is_variable): the value's type against the declared one, as BFCL does it."""
    ans_type = _answer_type(answers)
    is_variable = ans_type is not None and ans_type != expected
    nested_failed = False
    if type(value) is expected:  # exact type, as the reference
        if nested is None:
            return _PASS, is_variable
        for item in answers:
            ok = True
            if type(item) is list:
                for v in value:  # type: ignore[attr-defined]  # a list: its type was just checked
                    if not _type_check(param, v, item, str(nested), nested, None)[0].passed:
                        ok = False
                        break
            if ok:
                return _PASS, is_variable
        nested_failed = True
    if ans_type is not None and type(value) is ans_type:
        if nested_failed:
            return _fail(
                "type_error:nested",
                f"Nested type checking failed for parameter "
                f"{param!r}: expected {desc} of {nested}, got {value!r}.",
            ), True
        return _PASS, True
    return _fail(
        "type_error:simple",
        f"Incorrect type for parameter {param!r}. Expected type "
        f"{desc}, got {type(value).__name__}. Parameter value: {value!r}.",
    ), False


def _string_check(param: str, value: str, answers: list[Any]) -> BfclVerdict:
    wanted = [standardize_string(a) for a in answers if type(a) is str]
    if standardize_string(value) in wanted:
        return _PASS
    return _fail(
        "value_error:string",
        f"Invalid value for parameter {param!r}: {value!r}. "
        f"Expected one of {answers}. Case insensitive.",
    )


def _std_items(items: Any) -> list[Any]:
    return [standardize_string(x) if type(x) is str else x for x in items]


def _list_check(param: str, value: list[Any], answers: list[Any]) -> BfclVerdict:
    if _std_items(value) in [_std_items(a) for a in answers]:
        return _PASS
    return _fail(
        "value_error:list/tuple",
        f"Invalid value for parameter {param!r}: {value!r}. Expected one of {answers}.",
    )


def _dict_check(param: str, value: dict[Any, Any], answers: list[Any]) -> BfclVerdict:
    result = BfclVerdict(False, "dict_checker:unclear")
    for answer in answers:
        if answer == "":
            continue
        result = BfclVerdict(False, "dict_checker:unclear")
        ok = True
        for key, v in value.items():
            if key not in answer:
                result = _fail("value_error:dict_key", f"Unexpected dict key parameter: '{key}'.")
                ok = False
                break
            sv = standardize_string(v) if type(v) is str else v
            if sv not in _std_items(answer[key]):
                result = _fail(
                    "value_error:dict_value",
                    f"Invalid value for parameter {key!r}: {v!r}. Expected one of {answer[key]}.",
                )
                ok = False
                break
        for key, acceptable in answer.items():
            if key not in value and "" not in acceptable:
                result = _fail("value_error:dict_key", f"Missing dict key parameter: '{key}'.")
                ok = False
                break
        if ok:
            return _PASS
    return result


def _list_dict_check(param: str, value: list[Any], answers: list[Any]) -> BfclVerdict:
    result = BfclVerdict(False, "list_dict_checker:unclear")
    for answer in answers:
        if len(value) != len(answer):
            result = _fail(
                "value_error:list_dict_count", "Wrong number of dictionaries in the list."
            )
            continue
        ok = True
        for i, item in enumerate(value):
            result = _dict_check(param, item, [answer[i]])
            if not result.passed:
                ok = False
                break
        if ok:
            return _PASS
    return result


# -- call checkers -----------------------------------------------------------------------------
def _check_one(
    func: dict[str, Any],
    call: dict[str, Any],
    answer: dict[str, Any],
    language: Language,
    underscore_to_dot: bool,
) -> BfclVerdict:
    acceptable: dict[str, list[Any]] = next(iter(answer.values()))
    name = func["name"]
    params_schema = func["parameters"]
    props: dict[str, Any] = params_schema["properties"]
    if underscore_to_dot and "." in name:
        name = name.replace(".", "_")
    found = call.get(name)
    if found is None and name not in call:
        return _fail(
            "simple_function_checker:wrong_func_name",
            f"Function name {name!r} not found in model output.",
        )
    given: dict[str, Any] = found  # type: ignore[assignment]  # a dict: checked by is_call_list
    python = language == "Python"
    for p in params_schema.get("required", ()):
        if p not in given:
            return _fail(
                "simple_function_checker:missing_required", f"Missing required parameter: {p!r}."
            )
    for p, value in given.items():
        if p not in props or p not in acceptable:
            return _fail(
                "simple_function_checker:unexpected_param", f"Unexpected parameter: {p!r}."
            )
        spec = props[p]
        desc = spec["type"]
        nested: type | None = None
        if python:
            expected = _PY_TYPES[desc]
            if expected is list:
                items = spec.get("items")
                if items is not None:
                    nested = _PY_TYPES[items["type"]]
                if desc == "tuple" and type(value) is tuple:
                    value = list(value)
            elif expected is float and type(value) is int:
                value = float(value)
        else:
            from .convert import JAVA_TYPES, JS_TYPES, java_convert, js_convert

            table, convert = (
                (JAVA_TYPES, java_convert) if language == "Java" else (JS_TYPES, js_convert)
            )
            expected = table[desc]
            if type(value) is not str:
                return _fail(
                    "type_error:java" if language == "Java" else "type_error:js",
                    f"Incorrect type for parameter {p!r}. Expected type String, got "
                    f"{type(value).__name__}. Parameter value: {value!r}.",
                )
            items = spec.get("items")
            if desc in _CONVERTED_NESTED and items is not None:
                nested = table[items["type"]]
                value = convert(value, desc, items["type"])
            else:
                value = convert(value, desc)
            if desc == "tuple" and type(value) is tuple:
                value = list(value)
        answers = acceptable[p]
        if nested is None and type(value) is expected:  # the common case, inlined
            is_variable = False
            for a in answers:
                if a != "":
                    is_variable = type(a) is not expected
                    break
        else:
            verdict, is_variable = _type_check(p, value, answers, desc, expected, nested)
            if not verdict.passed:
                return verdict
        if not is_variable:
            if expected is str:
                get = _STD_CACHE.get
                if (get(value) or standardize_string(value)) in [
                    get(a) or standardize_string(a) for a in answers if type(a) is str
                ]:
                    continue
                return _string_check(p, value, answers)
            if expected is dict:
                verdict = _dict_check(p, value, answers)
            elif expected is list:
                verdict = (
                    _list_dict_check(p, value, answers)
                    if nested is dict
                    else _list_check(p, value, answers)
                )
            else:
                verdict = None  # type: ignore[assignment]
            if verdict is not None:
                if not verdict.passed:
                    return verdict
                continue
        if value not in answers:
            return _fail(
                "value_error:others",
                f"Invalid value for parameter {p!r}: {value!r}. Expected one of {answers}.",
            )
    for p, values in acceptable.items():
        if p not in given and "" not in values:
            return _fail(
                "simple_function_checker:missing_optional",
                f"Optional parameter {p!r} not provided and not marked as optional.",
            )
    return _PASS


def _find(functions: list[dict[str, Any]], name: str) -> dict[str, Any]:
    for f in functions:
        if f["name"] == name:
            return f
    raise ScoringError(
        f"the ground truth names function {name!r}, which is not among the "
        f"entry's functions ({', '.join(f['name'] for f in functions)}); "
        "fix the answer file or the question's function list"
    )


def check_calls(
    functions: Sequence[dict[str, Any]] | dict[str, Any],
    decoded: list[Any],
    ground_truth: list[dict[str, Any]],
    category: str,
    language: Language | None = None,
    underscore_to_dot: bool = False,
) -> BfclVerdict:
    """BFCL's ``ast_checker``: decoded calls against the ground truth of one entry."""
    funcs = [functions] if isinstance(functions, dict) else list(functions)
    lang = language or language_of(category)
    if "parallel" in category:
        if len(decoded) != len(ground_truth):
            return _fail(
                "parallel_function_checker_no_order:wrong_count", "Wrong number of functions."
            )
        used: set[int] = set()
        for i, answer in enumerate(ground_truth):
            func = _find(funcs, next(iter(answer)))
            last = _PASS
            for j, call in enumerate(decoded):
                if j in used:
                    continue
                last = _check_one(func, call, answer, lang, underscore_to_dot)
                if last.passed:
                    used.add(j)
                    break
            if not last.passed:
                return BfclVerdict(
                    False,
                    "parallel_function_checker_no_order:cannot_find_match",
                    (
                        f"Could not find a matching function for index {i} of possible answers.",
                        *last.errors,
                    ),
                )
        return _PASS
    if "multiple" in category:
        if len(decoded) != len(ground_truth):
            return _fail("multiple_function_checker:wrong_count", "Wrong number of functions.")
        func = _find(funcs, next(iter(ground_truth[0])))
        return _check_one(func, decoded[0], ground_truth[0], lang, underscore_to_dot)
    if len(decoded) != 1:
        return _fail("simple_function_checker:wrong_count", "Wrong number of functions.")
    return _check_one(funcs[0], decoded[0], ground_truth[0], lang, underscore_to_dot)


# -- one entry, any shape ----------------------------------------------------------------------
def bfcl_verdict(
    result: Any,
    functions: Sequence[Any],
    ground_truth: Sequence[Any] | None,
    category: str,
    *,
    underscore_to_dot: bool = False,
) -> BfclVerdict:
    """The BFCL verdict of one entry.

    Args:
        result: the model result: BFCL FC shape ``[{name: "<json>"}]``, a prompt-style string, or
            a list of :class:`~tooleval_nb.toolcall.ToolCall` / OpenAI tool-call dicts.
        functions: the entry's functions: gorilla dicts or :class:`~tooleval_nb.suite.Tool`.
        ground_truth: ``[{name: {param: [acceptable]}}]`` or ``ExpectedCall`` objects; not needed
            for the (ir)relevance categories.
        category: the BFCL category (``simple_python``, ``live_multiple``, ``irrelevance``...).
        underscore_to_dot: compare against expected names with ``.`` turned into ``_`` (for FC
            models whose API forbids dots, as BFCL's model configs say).
    """
    lang, relevance = _category_info(category)
    try:
        decoded = (
            calls_to_decoded(result)
            if _is_tool_call_list(result)
            else decode_result(result, "Python" if relevance else lang)
        )
    except DecodeError as exc:
        if "irrelevance" in category:
            return _PASS
        if relevance:
            return _fail("relevance_error:decoder_failed", f"Invalid syntax. {exc}")
        return _fail("ast_decoder:decoder_failed", f"Invalid syntax. Failed to decode AST. {exc}")
    return decoded_verdict(
        decoded, functions, ground_truth, category, underscore_to_dot=underscore_to_dot
    )


def decoded_verdict(
    decoded: list[Any],
    functions: Sequence[Any],
    ground_truth: Sequence[Any] | None,
    category: str,
    *,
    underscore_to_dot: bool = False,
) -> BfclVerdict:
    """The BFCL verdict of one entry whose result is decoded already (``[{name: {param:
    value}}]``, as :func:`calls_to_decoded` makes of tool calls whose arguments are JSON
    objects): :func:`bfcl_verdict` after its decoding step."""
    lang, relevance = _category_info(category)
    if relevance:
        has_call = not is_empty_calls(decoded)
        if "irrelevance" in category:
            return (
                _fail(
                    "irrelevance_error:decoder_success",
                    "Valid syntax. Successfully decode AST when it should not.",
                )
                if has_call
                else _PASS
            )
        return (
            _PASS
            if has_call
            else _fail("relevance_error:decoder_failed", "Invalid syntax. Failed to decode AST.")
        )
    if not is_call_list(decoded):
        return _fail(
            "ast_decoder:decoder_wrong_output_format", "Did not output in the specified format."
        )
    if ground_truth is None:
        raise ScoringError(f"category {category!r} needs a ground truth (possible answer)")
    try:
        return check_calls(
            tools_to_functions(functions),
            decoded,
            expected_to_ground_truth(ground_truth),
            category,
            lang,
            underscore_to_dot,
        )
    except ScoringError:
        raise
    except Exception as exc:  # where BFCL itself would crash (unknown type, odd answer shape)
        return _fail(f"checker_error:{type(exc).__name__}", f"the checker cannot apply: {exc}")


def format_sensitivity_verdict(
    result: Any, functions: Sequence[Any], ground_truth: Sequence[Any], entry_id: str
) -> BfclVerdict:
    """The BFCL verdict of one format-sensitivity entry (``format_sensitivity_<n>:<config>:
    <original id>``), as bfcl-eval's ``format_sensitivity_runner``: the reply decoded in the
    configuration's return format (and ``<TOOLCALL>`` tag), then checked as Python against the
    original entry's ground truth, the original id standing for the category (``parallel``,
    ``multiple``)."""
    from .prompt import parse_prompt_config, prompt_config_of

    config = parse_prompt_config(prompt_config_of(entry_id))
    original = entry_id.rsplit(":", 1)[-1]
    try:
        if not isinstance(result, str):
            raise DecodeError(f"a prompt-mode result is text, not {type(result).__name__}")
        decoded = decode_prompt(
            result, "Python", return_format=config.return_format, tool_call_tag=config.tool_call_tag
        )
    except DecodeError as exc:
        return _fail("ast_decoder:decoder_failed", f"Invalid syntax. Failed to decode AST. {exc}")
    if not is_call_list(decoded):
        return _fail(
            "ast_decoder:decoder_wrong_output_format", "Did not output in the specified format."
        )
    try:
        return check_calls(
            tools_to_functions(functions),
            decoded,
            expected_to_ground_truth(ground_truth),
            original,
            "Python",
        )
    except ScoringError:
        raise
    except Exception as exc:  # where BFCL itself would crash (unknown type, odd answer shape)
        return _fail(f"checker_error:{type(exc).__name__}", f"the checker cannot apply: {exc}")


def _category_info(category: str) -> tuple[Language, bool]:
    """A category's language and whether it is a (ir)relevance one (memoised: few exist)."""
    info = _CATEGORY_INFO.get(category)
    if info is None:
        info = _CATEGORY_INFO[category] = (language_of(category), is_relevance(category))
    return info


def _is_tool_call_list(result: Any) -> bool:
    if not isinstance(result, list) or not result:
        return False
    first = result[0]
    if type(first) is dict:
        return isinstance(first.get("function"), dict)
    return hasattr(first, "function")
