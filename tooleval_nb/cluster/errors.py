"""The Ray executor's error: :class:`tooleval_nb.errors.ClusterError`, defined in the one
exception tree and named here for the cluster's modules."""

from __future__ import annotations

from ..errors import ClusterError

__all__ = ["ClusterError"]
