"""The runner's name for :mod:`tooleval_nb.aio`, the package's one sync ↔ async bridge."""

from __future__ import annotations

from ..aio import in_notebook, run_sync, running_loop, spawn

__all__ = ["running_loop", "spawn", "run_sync", "in_notebook"]
