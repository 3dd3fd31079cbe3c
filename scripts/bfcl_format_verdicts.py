"""The golden verdicts of format sensitivity: replies for every entry of BFCL's format_sensitivity
(right in its configuration, untagged, in Python, no call, a wrong value) and bfcl-eval's verdict
of each, as its format_sensitivity_runner decides (decode_ast in the configuration's return format,
then ast_checker). Run in a venv with the full bfcl-eval (scripts/bfcl_official.sh makes one):

    BFCL_PROJECT_ROOT=$(mktemp -d) <venv>/bin/python scripts/bfcl_format_verdicts.py OUT.json

tests/bfcl/data/bfcl_eval_format_verdicts.json.gz holds every tenth row.
"""

import json
import sys
from xml.sax.saxutils import escape, quoteattr

from bfcl_eval import utils as U
from bfcl_eval.constants.enums import Language, ReturnFormat
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
from bfcl_eval.model_handler.utils import (
    default_decode_ast_prompting,
    parse_prompt_variation_params,
)
from bfcl_eval.utils import is_function_calling_format_output

XT = {int: "integer", float: "float", bool: "boolean", str: "string", list: "array", dict: "dict"}


def first(vals):
    for v in vals:
        if v != "":
            return v, True
    return None, False


def calls(gt, wrong=False):
    out = []
    for k, call in enumerate(gt):
        name, params = next(iter(call.items()))
        args = {}
        for i, (p, vals) in enumerate(params.items()):
            v, ok = first(vals)
            if ok:
                args[p] = "zzz" if (wrong and k == 0 and i == 0) else v
        out.append((name, args))
    return out


def render(cs, fmt):
    if fmt == "python":
        return (
            "["
            + ", ".join(
                f"{n}(" + ", ".join(f"{k}={v!r}" for k, v in a.items()) + ")" for n, a in cs
            )
            + "]"
        )
    if fmt == "json":
        return "```json\n" + json.dumps([{"function": n, "parameters": a} for n, a in cs]) + "\n```"

    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (list, dict)):
            return repr(v)
        return str(v)

    if fmt == "verbose_xml":
        return (
            "<functions>"
            + "".join(
                f"<function name={quoteattr(n)}><params>"
                + "".join(
                    f'<param name={quoteattr(k)} value={quoteattr(val(v))} type="{XT.get(type(v), "string")}"/>'
                    for k, v in a.items()
                )
                + "</params></function>"
                for n, a in cs
            )
            + "</functions>"
        )
    return (
        "<functions>"
        + "".join(
            f"<function name={quoteattr(n)}>"
            + "".join(
                f'<param name={quoteattr(k)} type="{XT.get(type(v), "string")}">{escape(val(v))}</param>'
                for k, v in a.items()
            )
            + "</function>"
            for n, a in cs
        )
        + "</functions>"
    )


entries = U.load_dataset_entry("format_sensitivity", include_language_specific_hint=False)
truths = U.load_ground_truth_entry("format_sensitivity")
out = []
for e, t in zip(entries, truths, strict=True):
    cfg = e["id"].split(":")[1]
    ret, tag, _, _, _ = parse_prompt_variation_params(cfg)
    gt = t["ground_truth"]
    right = render(calls(gt), ret)
    replies = [
        f"<TOOLCALL>{right}</TOOLCALL>" if tag else right,
        right if tag else f"Sure: {right}",
        render(calls(gt), "python"),
        "I cannot help with that.",
        (lambda r: f"<TOOLCALL>{r}</TOOLCALL>" if tag else r)(render(calls(gt, wrong=True), ret)),
    ]
    for reply in replies:
        try:
            dec = default_decode_ast_prompting(reply, ReturnFormat(ret), tag)
        except Exception:
            out.append([e["id"], reply, False, "ast_decoder:decoder_failed"])
            continue
        if not is_function_calling_format_output(dec):
            out.append([e["id"], reply, False, "ast_decoder:decoder_wrong_output_format"])
            continue
        r = ast_checker(
            e["function"], dec, gt, Language.PYTHON, e["id"].split(":")[-1], "gpt-5-mini-2025-08-07"
        )
        out.append([e["id"], reply, r["valid"], None if r["valid"] else r["error_type"]])
json.dump(out, open(sys.argv[1], "w"))
print(len(out), sum(o[2] for o in out))
