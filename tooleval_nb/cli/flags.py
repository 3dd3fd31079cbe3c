"""The options several ``tooleval-nb`` commands share, each defined once.

``run``, ``report``, ``bfcl``, ``history`` and ``export`` take some of the same options
(``--store``, ``--temperature``, ``--no-cache``, ``--param`` ...). Each is defined here, with
one spelling, one destination and one help text; a command adds the ones it takes with
:func:`add_flags`. Defaults are None, so that the library's own default applies (see
:mod:`.options`).

No option takes a credential: a key on the command line stays in the shell history and the
process list, and ``--param`` values are stored with the run. :func:`credential_problem` says
what is refused (``--param api_key=...``, ``--param extra_headers='{"Authorization": ...}'``,
``bfcl --api-key``) and the safe way: the provider's environment variable, or ``--api-key-env
NAME``. The parser calls it after parsing, so every command exits 2 before anything runs.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..credentials import credential_paths, is_credential_key, key_variable, refusal

__all__ = [
    "FLAGS",
    "add_flags",
    "add_model_flags",
    "credential_problem",
    "key_value",
    "models_from_flags",
]


def key_value(text: str) -> tuple[str, Any]:
    """``--param KEY=VALUE``: VALUE as JSON when it parses, else as text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. top_p=0.9)")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value  # plain text
    return key.strip(), parsed


#: name -> (flags, ``add_argument`` keywords)
FLAGS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "keep-formulas": (
        ("--keep-formulas",),
        {
            "action": "store_true",
            "help": "write CSV cells that start with = + - @ as they are (default: with a ' "
            "in front, so that a spreadsheet shows them instead of running them)",
        },
    ),
    "store": (
        ("--store",),
        {
            "default": None,
            "metavar": "PATH",
            "help": "the SQLite run store (default: TOOLEVAL_STORE or the user data directory)",
        },
    ),
    "temperature": (
        ("--temperature",),
        {"type": float, "default": None, "help": "sampling temperature (default 0.0)"},
    ),
    "no-cache": (
        ("--no-cache",),
        {
            "dest": "cache",
            "action": "store_false",
            "default": None,
            "help": "always call the models (default: reuse cached replies at temperature 0)",
        },
    ),
    "max-concurrency": (
        ("--max-concurrency",),
        {
            "type": int,
            "default": None,
            "metavar": "N",
            "help": "concurrent cases per provider (default 8)",
        },
    ),
    "request-timeout": (
        ("--request-timeout",),
        {
            "type": float,
            "default": None,
            "metavar": "SECONDS",
            "help": "time limit per model request",
        },
    ),
    "param": (
        ("--param",),
        {
            "dest": "sampling_params",
            "action": "append",
            "type": key_value,
            "default": None,
            "metavar": "KEY=VALUE",
            "help": "an extra sampling parameter for every model, VALUE as JSON or text (e.g. "
            "top_p=0.9, max_tokens=256); repeatable",
        },
    ),
    "api-key-env": (
        ("--api-key-env",),
        {
            "default": None,
            "metavar": "NAME",
            "help": "the name of an environment variable holding the API key of the models (all "
            "but the embedded one); read when they are called, only the name is stored "
            "(default: the provider's own variable, e.g. OPENAI_API_KEY)",
        },
    ),
    "name": (("--name",), {"default": None, "help": "a label for the runs in the history"}),
    "no-resume": (
        ("--no-resume",),
        {
            "dest": "resume",
            "action": "store_false",
            "default": None,
            "help": "start afresh even when an interrupted identical run is in the store",
        },
    ),
    "progress": (
        ("--progress",),
        {
            "choices": ("auto", "text", "none"),
            "default": "auto",
            "help": "progress on stderr while the models run: bars on a terminal, a line per "
            "suite and model every few seconds in a log (default auto: text)",
        },
    ),
}


def add_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *names: str) -> None:
    """Add the shared options ``names`` (keys of :data:`FLAGS`) to a parser or group."""
    for name in names:
        flags, keywords = FLAGS[name]
        parser.add_argument(*flags, **keywords)


def credential_problem(args: argparse.Namespace) -> str | None:
    """Why the parsed options hold a credential, and the safe way to pass it; None when they
    hold none."""
    models = [m for m in (getattr(args, "models", None) or getattr(args, "model", None) or []) if m]
    if getattr(args, "api_key", None):
        variables = list(dict.fromkeys(v for v in map(key_variable, models) if v))
        env = " or ".join(variables) or "the provider's API key variable (e.g. OPENAI_API_KEY)"
        return (
            "--api-key is refused: a key on the command line stays in the shell history "
            f"and the process list. Set it in the environment as {env}, or put it in "
            "another variable and give that variable's name with --api-key-env NAME"
        )
    found = [
        f"--param {key}=..."
        for key, value in getattr(args, "sampling_params", None) or ()
        if is_credential_key(key) or credential_paths(value)
    ]
    if found:
        return refusal(found, "--param values", models, cli=True)
    return None


def add_model_flags(parser: argparse.ArgumentParser, model_help: str) -> None:
    """A benchmark command's models (read back by :func:`models_from_flags`): ``--model``
    (repeatable; ``model_help`` says what it is), ``--api-base``, ``--api-key-env``, and a hidden
    ``--api-key`` that :func:`credential_problem` refuses with the safe way (a key given as a
    flag value stays in the shell history and the process list)."""
    parser.add_argument("--model", action="append", default=None, metavar="MODEL", help=model_help)
    parser.add_argument(
        "--api-base", default=None, metavar="URL", help="an OpenAI-compatible endpoint for --model"
    )
    add_flags(parser, "api-key-env")
    parser.add_argument("--api-key", default=None, help=argparse.SUPPRESS)


def models_from_flags(args: argparse.Namespace) -> Any:
    """The models of a benchmark command (``tooleval-nb bfcl``, ``tooleval-nb tau2``) from its
    ``--model`` (repeatable), ``--api-base`` and ``--api-key-env``: the names as given, or one
    spec dict each when an endpoint or key variable is given (None: the embedded model)."""
    names = args.model or [None]
    if args.api_base is None and args.api_key_env is None:
        return [n for n in names if n is not None] or None
    return [
        {
            k: v
            for k, v in {
                "model": n,
                "api_base": args.api_base,
                "api_key_env": args.api_key_env,
            }.items()
            if v is not None
        }
        for n in names
    ]
