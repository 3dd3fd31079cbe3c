"""The options several ``tooleval-nb`` commands share, each defined once.

``run``, ``report``, ``bfcl``, ``history`` and ``export`` take some of the same options
(``--store``, ``--temperature``, ``--no-cache``, ``--param`` ...). Each is defined here, with
one spelling, one destination and one help text; a command adds the ones it takes with
:func:`add_flags`. Defaults are None, so that the library's own default applies (see
:mod:`.options`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["FLAGS", "add_flags", "key_value"]


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
    "store": (("--store",), {
        "default": None, "metavar": "PATH",
        "help": "the SQLite run store (default: TOOLEVAL_STORE or the user data directory)"}),
    "temperature": (("--temperature",), {
        "type": float, "default": None, "help": "sampling temperature (default 0.0)"}),
    "no-cache": (("--no-cache",), {
        "dest": "cache", "action": "store_false", "default": None,
        "help": "always call the models (default: reuse cached replies at temperature 0)"}),
    "max-concurrency": (("--max-concurrency",), {
        "type": int, "default": None, "metavar": "N",
        "help": "concurrent cases per provider (default 8)"}),
    "request-timeout": (("--request-timeout",), {
        "type": float, "default": None, "metavar": "SECONDS",
        "help": "time limit per model request"}),
    "param": (("--param",), {
        "dest": "sampling_params", "action": "append", "type": key_value, "default": None,
        "metavar": "KEY=VALUE",
        "help": "an extra sampling parameter for every model, VALUE as JSON or text (e.g. "
                "top_p=0.9, max_tokens=256); repeatable"}),
    "name": (("--name",), {"default": None, "help": "a label for the runs in the history"}),
    "no-resume": (("--no-resume",), {
        "dest": "resume", "action": "store_false", "default": None,
        "help": "start afresh even when an interrupted identical run is in the store"}),
    "progress": (("--progress",), {
        "choices": ("auto", "text", "none"), "default": "auto",
        "help": "progress on stderr while the models run: bars on a terminal, a line per "
                "suite and model every few seconds in a log (default auto: text)"}),
}


def add_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *names: str) -> None:
    """Add the shared options ``names`` (keys of :data:`FLAGS`) to a parser or group."""
    for name in names:
        flags, keywords = FLAGS[name]
        parser.add_argument(*flags, **keywords)
