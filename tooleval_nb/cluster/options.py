"""What a :class:`~.executor.RayExecutor` asks of Ray: the replicas, their resources, the
cluster's address (validated; no Ray import). The replica pool (:mod:`.backend`) holds a copy of
these options, never the executor that owns it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..credentials import url_refusal

__all__ = ["RayOptions"]


class RayOptions(BaseModel):
    """The options of a Ray executor (see :class:`~.executor.RayExecutor`).

    Attributes:
        address: ``None`` (the Ray this process is already connected to, or that
            ``RAY_ADDRESS`` names, else a new local cluster), ``"auto"`` (a cluster running on
            this machine), ``"ray://host:10001"`` (Ray Client) or ``"host:6379"`` (the head's
            GCS address).
        replicas: replicas per model (default: the cluster's CPUs divided by
            ``num_cpus_per_replica``; for a model in ``endpoints``, one per endpoint).
        num_cpus_per_replica, num_gpus_per_replica: what Ray reserves for each replica (and
            the threads of the llama.cpp server it starts).
        max_concurrency_per_replica: cells in flight per replica (default: the run's
            ``max_concurrency``); a server answering one request at a time gets 1
            (``ModelSpec.request_slots``).
        endpoints: per model (its label or model string), the ``api_base`` of each replica.
        gguf: per model (its label or model string), a GGUF file each replica serves with its
            own llama.cpp server (the path must exist on every node).
        max_restarts: how often Ray restarts a replica that died (its cells in flight run
            again on another replica meanwhile); past that the replica is given up.
        num_cpus: the CPUs of a local cluster started by this executor (default: all).
        log_to_driver: show Ray's own output in this process (its start-up notices, the
            workers' logs); by default it stays out of the notebook.
    """

    model_config = ConfigDict(extra="forbid")

    address: str | None = None
    replicas: int | None = Field(default=None, ge=1)
    num_cpus_per_replica: float = Field(default=1.0, ge=0)
    num_gpus_per_replica: float = Field(default=0.0, ge=0)
    max_concurrency_per_replica: int | None = Field(default=None, ge=1)
    endpoints: dict[str, list[str]] = Field(default_factory=dict)
    gguf: dict[str, str] = Field(default_factory=dict)
    max_restarts: int = Field(default=1, ge=0)
    num_cpus: int | None = Field(default=None, ge=1)
    log_to_driver: bool = False

    @field_validator("address")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        if value is None or value == "auto":
            return value
        rest = value.removeprefix("ray://")
        host, sep, port = rest.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(
                f"address={value!r} is not a Ray address; give None, 'auto', "
                "'ray://host:10001' (Ray Client) or 'host:6379' (the head node)"
            )
        return value

    @field_validator("endpoints")
    @classmethod
    def _endpoints(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for model, urls in value.items():
            if not urls:
                raise ValueError(f"endpoints[{model!r}] is empty; give one api_base per replica")
            for i, url in enumerate(urls):
                refused = url_refusal(url, f"endpoints[{model!r}][{i}]")
                if refused:
                    raise ValueError(refused)
        return {model: [u.rstrip("/") for u in urls] for model, urls in value.items()}
