"""The embedded server process: ``python -m llama_cpp.server``, run unchanged after a few
patches of llama-cpp-python, each its own function below.

Read this module without knowing llama-cpp-python: each patch's docstring says what
llama-cpp-python does, what we change, and what goes wrong without the change. The four that change how the model
decodes can each be turned off by an environment variable (:mod:`.embedded_contract` names
them), so a difference in the model's replies can be traced to one patch or to none. The patches, in the order
:func:`main` applies them:

* :func:`_exit_when_parent_dies`: the server ends when the process that started it dies;
* :func:`_bound_and_count`: a budget of generated tokens per chat request, and counters;
* :func:`_greedy_first`: at temperature 0, the argmax first, the grammar on that token only;
* :func:`_plain_templates`: prompts rendered without HTML escaping;
* :func:`_shortcuts`: two completions of the tool-call handler that need no decoding;
* :func:`_one_compute_thread`: every model call on one thread;
* :func:`_serve_stats`: ``GET /tooleval/stats``, what the model did;
* :func:`configure_buffer_types`: llama.cpp's extra CPU buffer types off where they crash.

The one handler these patches mostly concern is llama-cpp-python's ``chatml-function-calling``
(``llama_cpp.llama_chat_format.chatml_function_calling``): the chat format the embedded model
serves tools with. For ``tool_choice="auto"`` it makes several inner completions per request:
first *the choice* (``functions.<name>:`` or ``message:``, under a grammar allowing only those),
then a call's arguments (JSON, under the tool's grammar), then *the follow-up* (another call,
``functions.<name>:``, or the end, ``<|im_end|>``), looping for as long as the model names
another function.

Counters: ``GET /tooleval/stats`` answers the tokens the model actually evaluated (prompt tokens
after the KV-cache prefix reuse, in how many batches, and generated tokens), the seconds spent in
``Llama.eval`` (decode), in sampling and in the whole chat handler, the greedy-first checks,
their rejections and how many of those needed the grammar over the whole vocabulary, and the
inner completions' lengths by finish reason (``"stop<=16"``: stopped by themselves after 9 to 16
tokens; ``"length<=256"``: cut by the bound), so a benchmark can tell the model's own work from
ours.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import runpy
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .embedded_contract import (
    DEFAULT_MAX_TOKENS,
    GREEDY_FIRST_ENV,
    HTML_ESCAPE_ENV,
    MAX_TOKENS_ENV,
    ONE_THREAD_ENV,
    PARENT_FD_ENV,
    SHORTCUTS_ENV,
    STATS_PATH,
    TRACE_ENV,
)

#: what the model did since the server started (read by ``GET /tooleval/stats``)
STATS: dict[str, Any] = {
    "requests": 0,
    "prompt_tokens": 0,
    "prompt_evals": 0,
    "generated_tokens": 0,
    "eval_seconds": 0.0,
    "sample_seconds": 0.0,
    "chat_seconds": 0.0,
    "grammar_checks": 0,
    "grammar_rejections": 0,
    "grammar_full_passes": 0,
    "cut_completions": 0,
    "cut_tokens": 0,
    "completion_lengths": {},
    "early_choices": 0,
    "skipped_follow_ups": 0,
    "compute_threads": 0,
}
#: the threads that have called the model (see :func:`_one_compute_thread`)
_COMPUTE_THREADS: set[int] = set()
_local = threading.local()


def _cpu_has_amx() -> bool:
    try:
        return " amx_" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def _disable_extra_buffer_types() -> None:
    """The patch behind :func:`configure_buffer_types`: every model loaded in this process gets
    ``use_extra_bufts = False`` in llama.cpp's default model parameters."""
    import llama_cpp.llama_cpp as lib

    original = lib.llama_model_default_params

    def params():  # type: ignore[no-untyped-def]
        value = original()
        if hasattr(value, "use_extra_bufts"):
            value.use_extra_bufts = False
        return value

    lib.llama_model_default_params = params


def configure_buffer_types() -> bool:
    """Turn llama.cpp's extra CPU buffer types off where they would crash; call before a model
    is loaded. Anything that loads the model in its own process (the server,
    ``benchmarks/bench_embedded.py``) calls it. Returns whether they were turned off.

        What llama-cpp-python does: loads a model with llama.cpp's default parameters, which use
        the extra CPU buffer types (AMX tiles and repacked weights) on a CPU that advertises AMX
        (``amx_*`` in /proc/cpuinfo).
        What we change: on such a CPU they are turned off (``use_extra_bufts = False``).
        ``TOOLEVAL_LLAMA_EXTRA_BUFTS=1`` keeps them on, ``=0`` always turns them off.
        Otherwise: inside a VM that advertises AMX but does not grant its tile state, the first
        decode crashes the server (SIGSEGV or SIGILL).
    """
    choice = os.environ.get("TOOLEVAL_LLAMA_EXTRA_BUFTS", "")
    if choice == "0" or (choice != "1" and _cpu_has_amx()):
        _disable_extra_buffer_types()
        return True
    return False


def _exit_when_parent_dies() -> None:
    """End this process when the process that started it dies (a daemon thread watching a pipe).

    What llama-cpp-python does: its server runs until it is stopped; it knows nothing of the
    process that started it.
    What we change: the parent passes the read end of a pipe (``TOOLEVAL_PARENT_FD``) and keeps
    the write end open. When the parent dies in any way (SIGKILL included: no atexit, no signal
    handler runs), the kernel closes the write end, the read here returns EOF and the server
    exits at once. A pipe, unlike ``PR_SET_PDEATHSIG``, follows the parent *process*, not the
    thread that spawned the server, and works on every POSIX system.
    Otherwise: a killed kernel leaves an orphan server holding the model's memory and its port.
    """
    value = os.environ.pop(PARENT_FD_ENV, "")
    if not value.isdigit():
        return
    fd = int(value)

    def watch() -> None:
        try:
            while os.read(fd, 64):  # the parent never writes; any data is ignored
                pass
        except OSError:
            pass
        os._exit(0)  # the parent is gone: nobody is left to stop this server

    threading.Thread(target=watch, name="tooleval-parent-watchdog", daemon=True).start()


class GreedyFirstSampler:
    """Stands in for llama-cpp-python's ``LlamaSampler`` (penalties, grammar, greedy) at
    temperature 0: the penalised argmax first, the grammar on that one token, and the grammar over
    the vocabulary only when it rejects it (then penalties, grammar, greedy in the original order).
    Build it with :meth:`create`; ``Llama`` only calls :meth:`sample`.

    When the grammar rejects the argmax, it is first run over the ``TOP`` best tokens only: the
    best one it allows there is the answer when its logit is above every token left out (all of
    them are at most the lowest logit kept); otherwise the grammar runs over the vocabulary."""

    #: how many of the best tokens the grammar sees before it sees them all
    TOP = 64

    def __init__(self, lib: Any, n_vocab: int, penalties: Any, grammar: Any, greedy: Any) -> None:
        import numpy as np

        self._lib, self._n_vocab = lib, n_vocab
        self._penalties, self._grammar, self._greedy = penalties, grammar, greedy
        self._data = (lib.llama_token_data * n_vocab)()
        view = np.ctypeslib.as_array(self._data)
        view["id"] = np.arange(n_vocab, dtype=view["id"].dtype)
        view["p"] = 0.0
        self._logits = view["logit"]
        self._all = lib.llama_token_data_array(self._data, n_vocab, -1, False)
        self._one_data = (lib.llama_token_data * 1)()
        self._one = lib.llama_token_data_array(self._one_data, 1, -1, False)
        self._top_data = (lib.llama_token_data * self.TOP)()
        self._top_view = np.ctypeslib.as_array(self._top_data)
        self._top = lib.llama_token_data_array(self._top_data, self.TOP, -1, False)

    @classmethod
    def create(
        cls,
        llama: Any,
        grammar: Any,
        *,
        repeat_penalty: float = 1.0,
        frequency_penalty: float = 0.0,
        presence_penalty: float = 0.0,
    ) -> GreedyFirstSampler | None:
        """The sampler for ``llama`` and a ``LlamaGrammar``; None if llama.cpp rejects the
        grammar (the caller then builds llama-cpp-python's own sampler)."""
        import llama_cpp.llama_cpp as lib

        parsed = lib.llama_sampler_init_grammar(
            llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not parsed:
            return None
        n_vocab = int(llama.n_vocab())
        penalties = lib.llama_sampler_init_penalties(
            n_vocab, llama.last_n_tokens_size, repeat_penalty, frequency_penalty, presence_penalty
        )
        return cls(lib, n_vocab, penalties, parsed, lib.llama_sampler_init_greedy())

    def _argmax(self, logits: Any, *, grammar: bool) -> int:
        lib, every = self._lib, self._all
        self._logits[:] = logits
        every.selected, every.sorted = -1, False
        lib.llama_sampler_apply(self._penalties, ctypes.byref(every))
        if grammar:
            lib.llama_sampler_apply(self._grammar, ctypes.byref(every))
        lib.llama_sampler_apply(self._greedy, ctypes.byref(every))
        return int(self._data[every.selected].id)

    def _best_allowed_of_top(self) -> int | None:
        """The grammar's choice among the TOP best (penalised) logits, if it is surely the
        choice over the whole vocabulary; else None. Reads the logits the last (grammar-free)
        :meth:`_argmax` left penalised in place."""
        import numpy as np

        values = self._logits
        top = np.argpartition(values, -self.TOP)[-self.TOP :]
        kept = values[top]
        view = self._top_view
        view["id"], view["logit"], view["p"] = top, kept, 0.0
        self._top.size, self._top.selected, self._top.sorted = self.TOP, -1, False
        self._lib.llama_sampler_apply(self._grammar, ctypes.byref(self._top))
        allowed = view["logit"] != -np.inf
        if not allowed.any():
            return None
        best = view["logit"][allowed].max()
        if not best > kept.min():  # a token left out might tie with it
            return None
        return int(view["id"][allowed & (view["logit"] == best)].min())  # first argmax, as greedy

    def sample(self, ctx: Any, idx: int = -1) -> int:
        """The next token for the logits at ``idx``, accepted into the penalties and grammar."""
        import numpy as np

        lib = self._lib
        pointer = lib.llama_get_logits_ith(ctx.ctx, idx)
        logits = np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))
        token = self._argmax(logits, grammar=False)
        one = self._one_data[0]
        one.id, one.logit, one.p = token, 1.0, 0.0
        self._one.selected, self._one.sorted = -1, False
        lib.llama_sampler_apply(self._grammar, ctypes.byref(self._one))
        STATS["grammar_checks"] += 1
        if math.isinf(self._one_data[0].logit):  # the grammar rejects the argmax
            STATS["grammar_rejections"] += 1
            best = self._best_allowed_of_top()
            if best is None:
                STATS["grammar_full_passes"] += 1
                best = self._argmax(logits, grammar=True)
            token = best
        lib.llama_sampler_accept(self._penalties, token)
        lib.llama_sampler_accept(self._grammar, token)
        return token

    def close(self) -> None:
        for name in ("_penalties", "_grammar", "_greedy"):
            sampler = getattr(self, name, None)
            if sampler:
                self._lib.llama_sampler_free(sampler)
            setattr(self, name, None)

    def __del__(self) -> None:
        self.close()


def _greedy_first() -> None:
    """Greedy-first sampling for grammars at temperature 0 (patches ``Llama._init_sampler``).

    What llama-cpp-python does: under a grammar, it runs the grammar over the whole vocabulary
    (49k tokens for the embedded model) for every generated token, then takes the best token
    allowed: a third of the server's time.
    What we change: as llama.cpp's own ``common_sampler`` does, the (penalised) argmax is taken
    first and the grammar checks that one token; only when it rejects it does the grammar filter
    the vocabulary (:class:`GreedyFirstSampler`). The token chosen is the same either way: the
    grammar only sets rejected tokens to -inf, and the first argmax kept is kept first.
    ``TOOLEVAL_LLAMA_GREEDY_FIRST=0`` turns this off.
    Otherwise: nothing breaks; tool calls decode about a third slower.
    """
    from llama_cpp import Llama

    original = Llama._init_sampler

    def init_sampler(self: Any, *args: Any, **kwargs: Any) -> Any:
        grammar = kwargs.get("grammar")
        if (
            not args
            and grammar is not None
            and kwargs.get("temp") == 0.0
            and kwargs.get("logits_processor") is None
        ):
            sampler = GreedyFirstSampler.create(
                self,
                grammar,
                repeat_penalty=kwargs.get("repeat_penalty", 1.0),
                frequency_penalty=kwargs.get("frequency_penalty", 0.0),
                presence_penalty=kwargs.get("presence_penalty", 0.0),
            )
            if sampler is not None:
                return sampler
        return original(self, *args, **kwargs)

    Llama._init_sampler = init_sampler  # type: ignore[method-assign]


def _bound_and_count() -> None:
    """A budget of generated tokens per chat request, and the counters (patches ``Llama``'s
    ``create_chat_completion``, ``create_completion``, ``generate``, ``eval`` and ``sample``).

    What llama-cpp-python does: the ``chatml-function-calling`` handler generates a call's
    arguments, and a plain message, with ``max_tokens=None`` (until the context is full), and
    loops for as long as the model names another function.
    What we change: every chat request gets a budget of generated tokens (its own
    ``max_tokens``, else ``TOOLEVAL_LLAMA_MAX_TOKENS``, default 512) that the handler's inner
    completions share: a runaway call is cut (its arguments are then invalid JSON, scored as
    such), and a call loop ends when the budget is spent. The same wrappers count what the
    model evaluates and generates (the module docstring lists the counters), and, with
    ``TOOLEVAL_LLAMA_TRACE`` naming a file, trace every prompt eval there (a JSON line each).
    Otherwise: a weak model's runaway argument string takes half a minute, and a benchmark
    cannot tell the model's work from ours.
    """
    from llama_cpp import Llama

    trace_path = os.environ.get(TRACE_ENV)
    trace = open(trace_path, "a", encoding="utf-8") if trace_path else None  # noqa: SIM115

    def _trace_prompt(llama: Any, tokens: Any) -> None:
        """One line per prompt eval: where the cached prefix ended and what was evaluated."""
        assert trace is not None
        text = llama.detokenize(list(tokens)).decode("utf-8", "replace")
        trace.write(
            json.dumps(
                {
                    "n_past": llama.n_tokens,
                    "n_new": len(tokens),
                    "request": STATS["requests"],
                    "text": text,
                }
            )
            + "\n"
        )
        trace.flush()

    default_budget = int(os.environ.get(MAX_TOKENS_ENV, "") or DEFAULT_MAX_TOKENS)
    orig_chat, orig_completion = Llama.create_chat_completion, Llama.create_completion
    orig_generate, orig_eval, orig_sample = Llama.generate, Llama.eval, Llama.sample

    def create_chat_completion(self: Any, *args: Any, **kwargs: Any) -> Any:
        asked = kwargs.get("max_tokens")
        _local.budget = asked if isinstance(asked, int) and asked > 0 else default_budget
        STATS["requests"] += 1
        start = time.perf_counter()
        try:
            return orig_chat(self, *args, **kwargs)
        finally:
            _local.budget = None
            STATS["chat_seconds"] += time.perf_counter() - start

    def create_completion(self: Any, *args: Any, **kwargs: Any) -> Any:
        budget = getattr(_local, "budget", None)
        if budget is None or args:  # a plain completion request, or a positional call
            return orig_completion(self, *args, **kwargs)
        asked = kwargs.get("max_tokens")
        allowed = max(1, budget)
        kwargs["max_tokens"] = min(asked, allowed) if asked and asked > 0 else allowed
        result = orig_completion(self, *args, **kwargs)
        if isinstance(result, dict):  # not a stream
            made = int(result.get("usage", {}).get("completion_tokens", 0))
            _local.budget = budget - made
            finish = result["choices"][0].get("finish_reason")
            if finish == "length":
                STATS["cut_completions"] += 1
                STATS["cut_tokens"] += made
            key = f"{finish}<={1 << max(0, made - 1).bit_length()}"  # powers of two
            STATS["completion_lengths"][key] = STATS["completion_lengths"].get(key, 0) + 1
            if trace is not None:
                prompt = kwargs.get("prompt")
                trace.write(
                    json.dumps(
                        {
                            "completion": made,
                            "finish": finish,
                            "request": STATS["requests"],
                            "after": prompt[-60:] if isinstance(prompt, str) else None,
                            "grammar": kwargs.get("grammar") is not None,
                            "text": result["choices"][0].get("text"),
                        }
                    )
                    + "\n"
                )
                trace.flush()
        return result

    def generate(self: Any, *args: Any, **kwargs: Any) -> Any:
        _local.prompt = True  # the first eval of a generation is the (uncached) prompt
        yield from orig_generate(self, *args, **kwargs)

    def eval_(self: Any, tokens: Any) -> Any:
        start = time.perf_counter()
        if threading.get_ident() not in _COMPUTE_THREADS:
            _COMPUTE_THREADS.add(threading.get_ident())
            STATS["compute_threads"] = len(_COMPUTE_THREADS)
        if trace is not None and getattr(_local, "prompt", False):
            _trace_prompt(self, tokens)
        try:
            return orig_eval(self, tokens)
        finally:
            STATS["eval_seconds"] += time.perf_counter() - start
            if getattr(_local, "prompt", False):
                STATS["prompt_tokens"] += len(tokens)
                # llama.cpp decodes a prompt in batches of n_batch, with a fixed cost per batch
                STATS["prompt_evals"] += max(1, -(-len(tokens) // self.n_batch))
            else:
                STATS["generated_tokens"] += len(tokens)
            _local.prompt = False

    def sample(self: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return orig_sample(self, *args, **kwargs)
        finally:
            STATS["sample_seconds"] += time.perf_counter() - start

    Llama.create_chat_completion = create_chat_completion  # type: ignore[method-assign]
    Llama.create_completion = create_completion  # type: ignore[method-assign]
    Llama.generate = generate  # type: ignore[method-assign]
    Llama.eval = eval_  # type: ignore[method-assign]
    Llama.sample = sample  # type: ignore[method-assign]


def _plain_templates() -> None:
    """Render the chat handlers' prompts without HTML escaping (patches the handler's Jinja
    environment class).

    What llama-cpp-python does: the ``chatml-function-calling`` handler builds its Jinja
    environment with ``select_autoescape(["html", "xml"])``, which escapes templates given as
    strings: every ``"`` of a message reaches the model as ``&#34;`` (``'`` as ``&#39;``, ``<``
    as ``&lt;``). The other handlers render unescaped.
    What we change: this one renders unescaped too. ``TOOLEVAL_LLAMA_HTML_ESCAPE=1`` keeps
    llama-cpp-python's escaping.
    Otherwise: the model sees its own earlier calls as ``{&#34;city&#34;: ...}``, copies the
    entities into new arguments, pays three or four tokens for each quote, and the history no
    longer matches the tokens it generated, so llama.cpp re-evaluates every turn after the
    first quote.
    """
    import llama_cpp.llama_chat_format as chat_format

    base = chat_format.ImmutableSandboxedEnvironment

    class PlainEnvironment(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["autoescape"] = False
            super().__init__(*args, **kwargs)

    chat_format.ImmutableSandboxedEnvironment = PlainEnvironment  # type: ignore[misc]


#: how the ``chatml-function-calling`` handler words its two grammars for ``tool_choice="auto"``
_CHOICE_ROOT = 'root   ::= functions | "message:"\n'
_FOLLOW_UP_ROOT = 'root   ::= functions | "<|im_end|>"\n'
#: the handler's line that reads the follow-up's answer (the ``:`` stays in the name)
_FOLLOW_UP_READ = 'tool_name = response["choices"][0]["text"][len("functions.") :]'


def _alternatives(grammar: Any, root: str) -> list[str] | None:
    """The literal alternatives of one of the handler's two grammars (``functions.<name>:`` for
    every tool, then the other literal of its root), or None for any other grammar."""
    text = getattr(grammar, "_grammar", None)
    if not isinstance(text, str) or not text.startswith(root):
        return None
    lines = text.split("\n")
    if len(lines) < 2 or not lines[1].startswith("functions ::= "):
        return None
    try:
        names = [json.loads(part) for part in lines[1][len("functions ::= ") :].split(" | ")]
        other = json.loads(root.split(" | ", 1)[1].strip())
    except ValueError:
        return None
    if not all(isinstance(n, str) and n.startswith("functions.") for n in names):
        return None
    return [*names, other]


def _names_a_tool(follow_up: list[str]) -> bool:
    """Could one of the follow-up's answers, read as the handler reads it (``:`` kept), name a
    tool? Only when a tool's name ends in ``:`` and another's is that name without it."""
    names = {alt[len("functions.") : -1] for alt in follow_up[:-1]}
    return any(alt[len("functions.") :] in names for alt in follow_up[:-1])


def _handler_discards_follow_up() -> bool:
    """Does the installed handler read the follow-up's answer as described in the docstring?"""
    import inspect

    import llama_cpp.llama_chat_format as chat_format

    try:
        source = inspect.getsource(chat_format.chatml_function_calling)
    except (OSError, TypeError, AttributeError):
        return False
    return _FOLLOW_UP_READ in source and _FOLLOW_UP_ROOT.replace("\n", "\\n") in source


def _shortcuts() -> None:
    """Two completions of the ``chatml-function-calling`` handler (``tool_choice="auto"``) that
    need not decode token by token (patches ``Llama.create_completion`` and ``Llama.generate``).
    ``TOOLEVAL_LLAMA_SHORTCUTS=0`` turns both off.

    *The choice.* What llama-cpp-python does: it first generates ``functions.<name>:`` or
    ``message:`` under a grammar that allows nothing else, one token at a time. What we change:
    once the text generated so far is the start of one alternative only, the rest is forced:
    generation stops there and the completion answers that alternative (cut at its ``:``, as
    the handler's stop string cuts it). The handler then sends the same prompt text it would
    have sent, and llama.cpp evaluates the forced tokens in one batch with the next prompt, at a
    third of a decode step's cost each. Otherwise: each forced token costs a full decode step;
    the reply is the same.

    *The follow-up that is thrown away.* What llama-cpp-python does: after a call's arguments
    the handler asks the model whether another call follows (``functions.<name>:`` or
    ``<|im_end|>``). The completion stops only at ``<|im_end|>``, so the answer keeps its ``:``
    and names no tool (``"get_time:"``): the handler ends the loop either way, and its reply
    never holds more than one call. What we change: that completion (a prompt eval and about
    seven decode steps per call) is answered empty when its result provably cannot name a tool:
    the token budget left is longer than every alternative, no stop string can cut one short of
    its ``:``, and no tool's name ends in ``:``; and only when the handler's source still reads
    the answer that way (:func:`_handler_discards_follow_up`). The reply is the same but for the
    legacy ``function_call`` field, whose name the handler takes from that unread answer
    (``"get_time:"``, or empty); it is now empty, and we never read it. Otherwise: every call
    pays for a completion whose answer is discarded.
    """
    from llama_cpp import Llama, StoppingCriteriaList

    discards = _handler_discards_follow_up()
    inner_completion, inner_generate = Llama.create_completion, Llama.generate

    def create_completion(self: Any, *args: Any, **kwargs: Any) -> Any:
        grammar, stop = kwargs.get("grammar"), kwargs.get("stop")
        budget = getattr(_local, "budget", None)
        if args or budget is None or grammar is None or kwargs.get("stream"):
            return inner_completion(self, *args, **kwargs)
        stops = [stop] if isinstance(stop, str) else list(stop or [])
        choice = _alternatives(grammar, _CHOICE_ROOT)
        if choice is not None and stops == [":"]:
            _local.choice, _local.chosen = choice, None
            kwargs["stopping_criteria"] = StoppingCriteriaList(
                [lambda _ids, _logits: _local.chosen is not None]
            )
            try:
                result = inner_completion(self, *args, **kwargs)
            finally:
                chosen, _local.choice, _local.chosen = _local.chosen, None, None
            if chosen is not None and isinstance(result, dict):
                STATS["early_choices"] += 1
                result["choices"][0]["text"] = chosen[: chosen.index(":")]
            return result
        follow_up = _alternatives(grammar, _FOLLOW_UP_ROOT)
        prompt = kwargs.get("prompt")
        if (
            discards
            and follow_up is not None
            and isinstance(prompt, str)
            and not prompt.endswith("message:\n")
            and not kwargs.get("max_tokens")
            and budget > max(map(len, follow_up)) + 1
            and not any(s in alt for s in stops if s != "<|im_end|>" for alt in follow_up)
            and not _names_a_tool(follow_up)
        ):
            STATS["skipped_follow_ups"] += 1
            return {
                "id": "cmpl-tooleval-skipped",
                "object": "text_completion",
                "created": int(time.time()),
                "model": kwargs.get("model") or "",
                "choices": [{"text": "", "index": 0, "logprobs": None, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
        return inner_completion(self, *args, **kwargs)

    def generate(self: Any, *args: Any, **kwargs: Any) -> Any:
        choice = getattr(_local, "choice", None)
        tokens = inner_generate(self, *args, **kwargs)
        if choice is None:
            yield from tokens
            return
        prompt = list(args[0]) if args else list(kwargs.get("tokens") or [])
        made: list[int] = []
        sent = None
        while True:
            try:
                token = tokens.send(sent)
            except StopIteration:
                return
            sent = yield token
            made.append(token)
            text = self.detokenize(made, prev_tokens=prompt).decode("utf-8", "ignore")
            left = [alt for alt in choice if alt.startswith(text)]
            if len(left) == 1 and sent is None:  # the rest is forced: stop before evaluating
                _local.chosen = left[0]
                tokens.close()
                return

    Llama.create_completion = create_completion  # type: ignore[method-assign]
    Llama.generate = generate  # type: ignore[method-assign]


def _one_compute_thread() -> None:
    """Run every model call of the server on one thread of its own (patches the server app's
    ``run_in_threadpool`` and ``iterate_in_threadpool``).

    What llama-cpp-python does: its server hands each request to a worker thread of anyio's
    pool, a different one from request to request. llama.cpp (built with OpenMP) starts a team
    of compute threads for each thread that calls it, and once the process has more of them
    than CPUs, libgomp's idle threads stop spinning between parallel regions and sleep: every
    decode step then waits for its team to be woken.
    What we change: one executor thread makes every call. The server's model lock already
    serves one request at a time, so one thread costs no concurrency.
    ``TOOLEVAL_LLAMA_ONE_THREAD=0`` turns this off.
    Otherwise: decoding is about 2.5 times slower (2 cores, n_threads=2: 65-71 generated
    tokens/s on the thread that always calls, 24-28 on any other; the bundled suites took 247 s
    of wall time, 144 s with one thread; replies identical).
    """
    import asyncio
    import contextvars
    import functools
    from collections.abc import AsyncIterator, Callable, Iterator
    from concurrent.futures import ThreadPoolExecutor

    import llama_cpp.server.app as server_app

    compute = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama-compute")

    async def run_in_threadpool(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(compute, call)

    _done = object()

    def _next(iterator: Iterator[Any]) -> Any:
        return next(iterator, _done)

    async def iterate_in_threadpool(iterator: Any) -> AsyncIterator[Any]:
        as_iterator = iter(iterator)
        while (item := await run_in_threadpool(_next, as_iterator)) is not _done:
            yield item

    server_app.run_in_threadpool = run_in_threadpool  # type: ignore[assignment]
    server_app.iterate_in_threadpool = iterate_in_threadpool  # type: ignore[assignment]


def _serve_stats() -> None:
    """Add ``GET /tooleval/stats`` to the server's app (patches ``create_app``).

    What llama-cpp-python does: its server reports no timings or token counts of its own.
    What we change: one more route, answering :data:`STATS` (see the module docstring).
    Otherwise: :meth:`~tooleval_nb.models.EmbeddedServer.stats` and the benchmarks have
    nothing to read; the model's replies are the same.
    """
    import llama_cpp.server.app as server_app

    original = server_app.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        app = original(*args, **kwargs)
        app.get(STATS_PATH)(lambda: dict(STATS))
        return app

    server_app.create_app = create_app


def main() -> None:
    """Apply the patches (the table of the module docstring), then run llama-cpp-python's
    server module unchanged, with this process's arguments."""
    _exit_when_parent_dies()
    _bound_and_count()
    if os.environ.get(GREEDY_FIRST_ENV, "") != "0":
        _greedy_first()
    if os.environ.get(HTML_ESCAPE_ENV, "") != "1":
        _plain_templates()
    if os.environ.get(SHORTCUTS_ENV, "") != "0":
        _shortcuts()
    if os.environ.get(ONE_THREAD_ENV, "") != "0":
        _one_compute_thread()
    _serve_stats()
    configure_buffer_types()
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
