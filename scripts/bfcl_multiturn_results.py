#!/usr/bin/env python
"""Multi-turn and memory result files in BFCL's shape, for the official-agreement proof.

From BFCL's ground truth, for every entry of the four multi-turn categories, one result per
model folder: the ground truth as the model's output, or one of the systematic perturbations
below (chosen by the entry's index, shifted per model folder so that each entry meets several),
in ``fc`` shape (each step a list of ``{name: "<arguments JSON>"}``, a text reply a string) and
in ``prompt`` shape (each step the text ``[f(a=1), g(b='x')]``, a text reply prose).

    .venv/bin/python scripts/bfcl_multiturn_results.py --data DIR --out DIR [--models 2]

Writes ``<out>/result/<model>/multi_turn/BFCL_v4_<category>_result.json`` (models
``perturb-<k>-FC`` and ``perturb-<k>``) and ``<out>/variants.json`` (id -> variant per model);
and for memory (``agentic/memory/<backend>/BFCL_v4_memory_<backend>_result.json``) one turn of
steps per entry: the answer said, restyled, missing, inside a word, followed by a call, no
message without a call, an empty last message, and the malformed shapes.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
TEXT = "I have done what you asked."

Turns = list[list[list[str]]]  # turns -> steps -> call texts


def _call_parts(call: str) -> tuple[str, dict[str, Any]]:
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), call
    return node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords}


def _call_text(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


# -- perturbations of the turns (each returns new turns, or a raw result for the shapes) -------
def truth_one_step(turns: list[list[str]], rng: random.Random) -> Turns:
    return [[list(t)] if t else [] for t in turns]


def truth_step_per_call(turns: list[list[str]], rng: random.Random) -> Turns:
    return [[[c] for c in t] for t in turns]


def _pick(turns: list[list[str]], rng: random.Random) -> tuple[int, int] | None:
    spots = [(i, j) for i, t in enumerate(turns) for j in range(len(t))]
    return rng.choice(spots) if spots else None


def drop_call(turns: list[list[str]], rng: random.Random) -> Turns:
    spot = _pick(turns, rng)
    out = [list(t) for t in turns]
    if spot:
        del out[spot[0]][spot[1]]
    return truth_one_step(out, rng)


def change_argument(turns: list[list[str]], rng: random.Random) -> Turns:
    out = [list(t) for t in turns]
    spot = _pick(turns, rng)
    if spot:
        name, args = _call_parts(out[spot[0]][spot[1]])
        if args:
            key = rng.choice(sorted(args))
            v = args[key]
            args[key] = (
                v + "_x"
                if isinstance(v, str)
                else not v
                if isinstance(v, bool)
                else v + 1
                if isinstance(v, (int, float))
                else v[:-1]
                if isinstance(v, list) and v
                else "changed"
            )
        else:
            args["unexpected"] = 1
        out[spot[0]][spot[1]] = _call_text(name, args)
    return truth_one_step(out, rng)


def extra_step(turns: list[list[str]], rng: random.Random) -> Turns:
    out = truth_one_step(turns, rng)
    spot = _pick(turns, rng)
    if spot:
        out[spot[0]].append([turns[spot[0]][spot[1]]])  # the call again, one more step
    return out


def unknown_function(turns: list[list[str]], rng: random.Random) -> Turns:
    out = truth_one_step(turns, rng)
    spot = _pick(turns, rng)
    if spot:
        out[spot[0]].insert(0, ["no_such_function(x=1)", "ls(unexpected_arg=True)"])
    return out


def empty_turn(turns: list[list[str]], rng: random.Random) -> Turns:
    out = truth_one_step(turns, rng)
    spot = _pick(turns, rng)
    if spot:
        out[spot[0]] = []
    return out


def calls_late(turns: list[list[str]], rng: random.Random) -> Turns:
    """One turn's calls made in the next turn instead."""
    out = [list(t) for t in turns]
    movable = [i for i in range(len(out) - 1) if out[i]]
    if movable:
        i = rng.choice(movable)
        out[i + 1] = out[i] + out[i + 1]
        out[i] = []
    return truth_one_step(out, rng)


def calls_in_empty_turn(turns: list[list[str]], rng: random.Random) -> Turns:
    """Calls where the ground truth has none (miss_func / miss_param: the model should ask)."""
    out = truth_one_step(turns, rng)
    for i, t in enumerate(turns):
        if not t:
            later = next((u for u in turns[i + 1 :] if u), None)
            if later:
                out[i] = [list(later)]
    return out


def reversed_calls(turns: list[list[str]], rng: random.Random) -> Turns:
    return [[list(reversed(t))] if t else [] for t in turns]


def force_terminated(turns: list[list[str]], rng: random.Random) -> Turns:
    """As BFCL's loop leaves it: the last turn run is 21 steps of the same call, and no more."""
    stop = rng.randrange(len(turns))
    out = truth_one_step(turns[:stop], rng)
    call = next((c for t in turns[stop:] for c in t), "pwd()")
    out.append([[call]] * 21)
    return out


TURN_VARIANTS: dict[str, Callable[[list[list[str]], random.Random], Turns]] = {
    "truth": truth_one_step,
    "truth_step_per_call": truth_step_per_call,
    "drop_call": drop_call,
    "change_argument": change_argument,
    "extra_step": extra_step,
    "unknown_function": unknown_function,
    "empty_turn": empty_turn,
    "calls_late": calls_late,
    "calls_in_empty_turn": calls_in_empty_turn,
    "reversed_calls": reversed_calls,
    "force_terminated": force_terminated,
}
#: raw shapes, not turns of calls: BFCL's verdict for a malformed result
SHAPES = (
    "not_a_list",
    "flat_list",
    "turn_is_text",
    "step_is_dict",
    "step_is_number",
    "turn_is_dict",
    "extra_turn",
    "prose_steps",
)
VARIANTS = (*TURN_VARIANTS, *SHAPES)


def _fc_step(calls: list[str]) -> list[dict[str, str]]:
    out = []
    for call in calls:
        name, args = (
            _call_parts(call) if not call.startswith("no_such") else ("no_such_function", {"x": 1})
        )
        out.append({name: json.dumps(args)})
    return out


def _prompt_step(calls: list[str]) -> str:
    return "[" + ", ".join(calls) + "]"


def render(turns: Turns, mode: str) -> list[list[Any]]:
    """Turns of call texts as a result in BFCL's shape; each turn ends with a text reply."""
    step = _fc_step if mode == "fc" else _prompt_step
    return [[step(s) for s in t] + [TEXT] for t in turns]


def result_for(variant: str, truth: list[list[str]], mode: str, rng: random.Random) -> Any:
    if variant in TURN_VARIANTS:
        return render(TURN_VARIANTS[variant](truth, rng), mode)
    good = render(truth_one_step(truth, rng), mode)
    if variant == "not_a_list":
        return "Error during inference: the model call failed"
    if variant == "flat_list":  # the steps without their turns
        return [s for t in good for s in t]
    i = rng.randrange(len(good))
    if variant == "turn_is_text":
        good[i] = TEXT
    elif variant == "step_is_dict":
        good[i] = [s[0] if isinstance(s, list) and s else s for s in good[i]]
    elif variant == "step_is_number":
        good[i] = [7, *good[i]]
    elif variant == "turn_is_dict":
        good[i] = {"step": good[i]}
    elif variant == "extra_turn":
        good.append([TEXT])
    elif variant == "prose_steps":  # prose around the calls: FC text, prompt text with words
        good = [[f"Let me do this: {s}" if isinstance(s, str) else s for s in t] for t in good]
    return good


# -- memory: one turn of steps; the last step without a call is the answer checked -----------
MEMORY_BACKENDS = ("kv", "rec_sum", "vector")
MEMORY_VARIANTS = (
    "answer",
    "answer_restyled",
    "wrong_answer",
    "no_last_message",
    "empty_last",
    "not_a_list",
    "two_turns",
    "last_is_list",
    "answer_then_call",
    "prose_then_call",
    "turn_is_text",
    "inside_a_word",
    "answer_first_of_two",
)


def _memory_call(mode: str) -> Any:
    return [{"core_memory_retrieve_all": "{}"}] if mode == "fc" else "[core_memory_retrieve_all()]"


def memory_result(variant: str, answers: list[str], mode: str) -> Any:
    call = _memory_call(mode)
    answer = answers[0]
    said = f"Based on what I remember, the answer is {answer}."
    steps: dict[str, Any] = {
        "answer": [call, said],
        "answer_restyled": [call, f"It is {answer.upper().replace(' ', '  ')}!"],
        "wrong_answer": [call, "I am sorry, I do not remember that."],
        "no_last_message": [call, call],
        "empty_last": [call, ""],
        "last_is_list": [call, [said]],
        "answer_then_call": [said, call],
        "prose_then_call": ["Let me look that up.", call],
        "inside_a_word": [call, f"zz{answer}zz"],
        "answer_first_of_two": [said, "Anything else I can do?"],
    }
    if variant == "not_a_list":
        return "Error during inference: the model call failed"
    if variant == "two_turns":
        return [[call, said], [said]]
    if variant == "turn_is_text":
        return [said]
    return [steps[variant]]


def write_memory(data: Path, out: Path, models: list[tuple[str, str]]) -> int:
    answers = [
        json.loads(x)
        for x in (data / "possible_answer" / "BFCL_v4_memory.json").read_text().splitlines()
        if x
    ]
    n = 0
    for k, (model, mode) in enumerate(models):
        for backend in MEMORY_BACKENDS:
            folder = out / "result" / model / "agentic" / "memory" / backend
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / f"BFCL_v4_memory_{backend}_result.json", "w") as f:
                for i, line in enumerate(answers):
                    variant = MEMORY_VARIANTS[(i + k * 5) % len(MEMORY_VARIANTS)]
                    entry_id = line["id"].replace("memory", f"memory_{backend}", 1)
                    result = memory_result(variant, line["ground_truth"], mode)
                    f.write(json.dumps({"id": entry_id, "result": result, **_usage()}) + "\n")
                    n += 1
    return n


def _usage() -> dict[str, Any]:
    return {"latency": 1.0, "input_token_count": 10, "output_token_count": 5}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="BFCL's data folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", type=int, default=2, help="model folders per mode")
    parser.add_argument("--limit", type=int, default=None, help="entries per category")
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args(argv)
    chosen: dict[str, dict[str, str]] = {}
    n = 0
    for mode in ("fc", "prompt"):
        for k in range(args.models):
            model = f"perturb-{k}" + ("-FC" if mode == "fc" else "")
            chosen[model] = {}
            for category in CATEGORIES:
                truth_path = args.data / "possible_answer" / f"BFCL_v4_{category}.json"
                lines = [json.loads(x) for x in truth_path.read_text().splitlines() if x]
                folder = args.out / "result" / model / "multi_turn"
                folder.mkdir(parents=True, exist_ok=True)
                with open(folder / f"BFCL_v4_{category}_result.json", "w") as f:
                    for i, line in enumerate(lines[: args.limit]):
                        variant = VARIANTS[(i + k * 7 + (mode == "prompt") * 3) % len(VARIANTS)]
                        rng = random.Random(f"{args.seed}:{model}:{line['id']}")
                        result = result_for(variant, line["ground_truth"], mode, rng)
                        chosen[model][line["id"]] = variant
                        f.write(json.dumps({"id": line["id"], "result": result, **_usage()}) + "\n")
                        n += 1
    n += write_memory(
        args.data, args.out, [(m, "fc" if m.endswith("-FC") else "prompt") for m in chosen]
    )
    (args.out / "variants.json").write_text(json.dumps(chosen, indent=1))
    print(f"{n} entries written under {args.out / 'result'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
