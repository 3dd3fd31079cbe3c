"""What a run will do: its targets (models), its settings, and the configuration stored to resume it.

A run's configuration (the suite, the targets without their API keys, the settings) is saved with
its job, so :func:`tooleval_nb.resume` can rebuild the plan after the kernel died. Its hash
(``config_key``) lets ``run_eval`` find an interrupted job with the same configuration and finish it
instead of starting again.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ModelConfigError, StoreError
from ..extras import require_extra
from ..models import DEFAULT_MODEL, ModelSpec
from ..models.spec import Mode
from ..parsers.protocol import Compat
from ..suite import EvalCase, Suite, SuiteText
from .settings import RunSettings
from .trust import job_origin

__all__ = [
    "Mode",
    "RunSettings",
    "Target",
    "Plan",
    "make_targets",
    "provider_group",
    "callable_path",
    "import_callable",
]


@dataclass(slots=True)
class Target:
    """One model to evaluate: a :class:`~tooleval_nb.models.ModelSpec` and its unique label."""

    label: str
    spec: Any  # tooleval_nb.models.ModelSpec (imported lazily: it is an I/O module)
    index: int = 0

    @property
    def model(self) -> str:
        return str(self.spec.model)

    @property
    def mode(self) -> Mode:
        return self.spec.mode  # type: ignore[no-any-return]

    @property
    def api_base(self) -> str | None:
        return self.spec.api_base  # type: ignore[no-any-return]

    @property
    def provider(self) -> str:
        return provider_group(self.model, self.api_base)

    def to_config(self) -> dict[str, Any]:
        """The target as stored (``ModelSpec`` never dumps its API key)."""
        return {
            "label": self.label,
            "spec": self.spec.model_dump(mode="json"),
            "has_api_key": self.spec.api_key is not None,
        }


def provider_group(model: str, api_base: str | None = None) -> str:
    """The provider group of a model: its endpoint when it has one, else litellm's prefix."""
    if api_base:
        return api_base.rstrip("/")
    if "/" in model:
        return model.split("/", 1)[0]
    lowered = model.lower()
    for prefix, provider in (
        ("gpt-", "openai"),
        ("o1", "openai"),
        ("o3", "openai"),
        ("o4", "openai"),
        ("claude", "anthropic"),
        ("gemini", "gemini"),
        ("command", "cohere"),
        ("mistral", "mistral"),
    ):
        if lowered.startswith(prefix):
            return provider
    return model


def _refuse_misspelt_fields(index: int, extra: Mapping[str, Any]) -> None:
    """A model dict's key that is not a field but nearly spells one (``api_bse``) would be sent
    as a sampling parameter, and the endpoint or key it meant silently lost: refused."""
    fields = [f for f in ModelSpec.model_fields if f != "params"]
    for key in extra:
        close = difflib.get_close_matches(str(key), fields, n=1, cutoff=0.8)
        if close:
            raise ModelConfigError(
                f"models[{index}]: key {key!r} is not a model field; did you mean {close[0]!r}? "
                "(keys that are not fields are sent as sampling parameters: to send this one, "
                f"put it under 'params')"
            )


def make_targets(
    models: Any, mode: Mode | None = None, parser_compat: Compat | None = None
) -> list[Target]:
    """Targets from litellm strings, dicts or :class:`~tooleval_nb.models.ModelSpec` objects.

    Dict keys that are not ModelSpec fields are taken as sampling parameters (``params``), unless
    they nearly spell a field (``api_bse``: ModelConfigError). ``mode`` and ``parser_compat``
    override every model's own. Labels are made unique (``#2`` ...).
    """
    if models is None:
        models = [DEFAULT_MODEL]
    if isinstance(models, (str, Mapping, ModelSpec)):
        models = [models]
    targets: list[Target] = []
    for i, item in enumerate(models):
        if isinstance(item, Mapping):
            data = dict(item)
            if "name" in data and "label" not in data:
                data["label"] = data.pop("name")
            extra = {k: data.pop(k) for k in list(data) if k not in ModelSpec.model_fields}
            _refuse_misspelt_fields(i, extra)
            if extra:
                data["params"] = {**(data.get("params") or {}), **extra}
            item = data
        elif not isinstance(item, (str, ModelSpec)):
            raise TypeError(
                f"models[{i}]: {item!r:.80} is not a model; give a litellm model "
                "string, a dict with 'model', or a te.ModelSpec"
            )
        spec = ModelSpec.of(item)
        if mode is not None:
            spec = spec.with_mode(mode)
        if parser_compat is not None and parser_compat != spec.parser_compat:
            spec = spec.model_copy(update={"parser_compat": parser_compat})
        if spec.embedded:  # refused before the run starts, naming the extra to install
            require_extra("embedded", ModelConfigError, part=f"{spec.model} (the embedded model)")
        targets.append(Target(label=spec.name, spec=spec, index=i))
    if not targets:
        raise ValueError("models is empty; give at least one model (e.g. te.DEFAULT_MODEL)")
    counts: dict[str, int] = {}
    for t in targets:
        n = counts[t.label] = counts.get(t.label, 0) + 1
        if n > 1:
            t.label = f"{t.label} #{n}"
    return targets


#: settings added after the first release: left out of ``config_key`` while at their default,
#: so that ``run_eval`` still finds (and finishes) a job interrupted before they existed
_LATER_SETTINGS = {
    "live_tools": None,
    "live_tool_timeout": None,
    "include_drafts": False,
    "code_graders": True,
}


@dataclass
class Plan:
    """A run's suite, targets and settings, and the cases it selects.

    ``live_tools`` is the live tool executor object given to ``run_eval`` / ``resume`` (the
    settings hold only its description). ``executor`` says where the cells run: ``"local"`` (this
    process's event loop), ``"ray"`` or a ``te.RayExecutor``. It is not part of the stored
    configuration: a run started on Ray resumes locally and the other way round.
    """

    suite: Suite
    targets: list[Target]
    settings: RunSettings
    name: str | None = None
    agent: Any = None
    live_tools: Any = None
    executor: Any = "local"
    _selection: tuple[list[tuple[int, EvalCase]], int] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def _select(self) -> tuple[list[tuple[int, EvalCase]], int]:
        if self._selection is None:
            wanted_tags = {t.lower() for t in self.settings.tags} if self.settings.tags else None
            wanted_ids = set(self.settings.ids) if self.settings.ids else None
            out, drafts = [], 0
            for i, case in enumerate(self.suite.cases):
                if wanted_tags is not None and not wanted_tags & {t.lower() for t in case.tags}:
                    continue
                if wanted_ids is not None and case.id not in wanted_ids:
                    continue
                if case.draft and not self.settings.include_drafts:
                    drafts += 1
                    continue
                out.append((i, case))
            self._selection = (out, drafts)
        return self._selection

    @property
    def cases(self) -> list[tuple[int, EvalCase]]:
        """``(index in the suite, case)`` for every case the run evaluates (computed once; draft
        cases only with ``include_drafts``)."""
        return self._select()[0]

    @property
    def n_drafts_skipped(self) -> int:
        """Draft cases the tag / id filters selected but the run skips (0 with
        ``include_drafts``)."""
        return self._select()[1]

    @property
    def n_total(self) -> int:
        return len(self.targets) * len(self.cases) * self.settings.repeats

    @functools.cached_property
    def suite_json(self) -> dict[str, Any]:
        """The suite as JSON data (dumped once: the fingerprint and the stored config share it)."""
        return self.suite.model_dump(mode="json")

    @functools.cached_property
    def suite_text(self) -> SuiteText:
        """The suite as canonical JSON (encoded once: the fingerprint and the stored config
        share it)."""
        return SuiteText(self.suite_json)

    @functools.cached_property
    def fingerprint(self) -> str:
        """The suite's fingerprint (computed once: it hashes every case)."""
        return self.suite_text.fingerprint()

    def config(self) -> dict[str, Any]:
        """What is stored with the job to resume it."""
        return {"suite": self.suite_json, **self._config_rest()}

    def config_json(self) -> str:
        """:meth:`config` as JSON text, with the suite's text taken from :attr:`suite_text`
        (not encoded a second time)."""
        rest = json.dumps(
            self._config_rest(), ensure_ascii=False, default=str, separators=(",", ":")
        )
        return '{"suite":' + self.suite_text.text() + "," + rest[1:]

    def _config_rest(self) -> dict[str, Any]:
        rest: dict[str, Any] = {
            "suite_name": self.suite.name,
            "targets": [t.to_config() for t in self.targets],
            "settings": self.settings.model_dump(mode="json"),
            "name": self.name,
        }
        # who recorded the job, signed: resuming a job that is not one's own asks first
        rest["origin"] = job_origin(self.suite_text.text(), rest)
        return rest

    def config_key(self) -> str:
        settings = self.settings.model_dump(mode="json")
        for name, default in _LATER_SETTINGS.items():
            if settings.get(name) == default:
                settings.pop(name, None)
        data = {
            "suite": self.fingerprint,
            "suite_name": self.suite.name,
            "targets": [t.to_config() for t in self.targets],
            "settings": settings,
        }
        blob = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:24]

    @classmethod
    def from_config(
        cls,
        config: dict[str, Any],
        *,
        models: Any = None,
        agent: Any = None,
        api_keys: Mapping[str, str] | None = None,
        live_tools: Any = None,
    ) -> Plan:
        """Rebuild a stored plan; API keys come from ``models``/``api_keys`` or the environment."""
        suite = Suite.model_validate(config["suite"])
        settings = RunSettings.model_validate(config["settings"])
        targets = [
            Target(label=t["label"], spec=ModelSpec.model_validate(t["spec"]), index=i)
            for i, t in enumerate(config["targets"])
        ]
        keys: dict[str, str] = dict(api_keys or {})
        if models is not None:
            for given in make_targets(models):
                if given.spec.api_key:
                    keys.setdefault(given.model, given.spec.api_key)
                    keys.setdefault(given.label, given.spec.api_key)
        for t in targets:
            key = keys.get(t.label) or keys.get(t.model)
            if key:
                t.spec = t.spec.model_copy(update={"api_key": key})
        if agent is None and settings.agent:
            agent = import_callable(settings.agent)
        if live_tools is None and str(settings.live_tools or "").startswith("object:"):
            raise StoreError(
                f"the run used live tools from an object "
                f"({str(settings.live_tools)[7:]}) that is not stored; give it "
                "again: te.resume(job_id, live_tools=my_executor)"
            )
        return cls(
            suite=suite,
            targets=targets,
            settings=settings,
            name=config.get("name"),
            agent=agent,
            live_tools=live_tools,
        )


def callable_path(func: Any) -> str:
    """``"module:qualname"`` of a callable (importable again unless defined in a notebook)."""
    module = getattr(func, "__module__", None) or "?"
    qualname = getattr(func, "__qualname__", None) or type(func).__qualname__
    return f"{module}:{qualname}"


def import_callable(path: str) -> Any:
    """The callable at ``"module:qualname"``; StoreError when it cannot be imported again."""
    module, _, qualname = path.partition(":")
    try:
        if module in ("?", "__main__") or "<" in qualname:
            raise ImportError(f"{path} was defined interactively")
        obj: Any = pkgutil.resolve_name(path)
    except (ImportError, AttributeError, ValueError) as exc:
        raise StoreError(
            f"the run's agent callable {path} cannot be imported again ({exc}); "
            "pass it: te.resume(job_id, agent=my_agent)"
        ) from exc
    return obj
