"""The suite: tools, cases and a system prompt, with cross-checks and DataFrame views."""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..display import mimebundle
from ..errors import SuiteError
from .case import EvalCase
from .checks import SuiteWarning, case_problems, case_warnings
from .code import suite_code
from .tool import Tool

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Suite", "SuiteText", "fingerprint_of", "suite_warnings", "warn_suite"]

#: what a suite's fingerprint leaves out: its labels, not its content
_UNHASHED = ("name", "description")


def fingerprint_of(dumped: dict[str, Any]) -> str:
    """:meth:`Suite.fingerprint` of a suite's ``model_dump(mode="json")`` (for a caller that
    has the dump already; one that also stores the suite's text uses :class:`SuiteText`)."""
    return SuiteText(dumped).fingerprint()


class SuiteText:
    """A suite's ``model_dump(mode="json")`` as canonical JSON: ``json.dumps`` with sorted keys
    and its default separators, the form the fingerprint hashes.

    Each top-level field is encoded once; the fingerprint's text (without the labels) and the
    whole suite's (stored with a job to resume it) join the same encodings, so a large suite is
    encoded once for both. ``text()`` equals ``json.dumps(dumped, sort_keys=True,
    ensure_ascii=False, default=str)`` character for character: an object's items joined by
    ``", "``, each ``key: value``, in key order.
    """

    def __init__(self, dumped: Mapping[str, Any]) -> None:
        self._parts = sorted(
            (
                name,
                json.dumps(name, ensure_ascii=False),
                # a model dump has no cycles: none to look for in every list and dict
                json.dumps(
                    value, sort_keys=True, ensure_ascii=False, default=str, check_circular=False
                ),
            )
            for name, value in dumped.items()
        )

    def text(self, leave_out: Collection[str] = ()) -> str:
        """The canonical JSON of the fields not in ``leave_out``."""
        return (
            "{"
            + ", ".join(
                f"{key}: {value}" for name, key, value in self._parts if name not in leave_out
            )
            + "}"
        )

    def fingerprint(self) -> str:
        """A stable hash of everything but the labels (see :meth:`Suite.fingerprint`)."""
        return hashlib.sha256(self.text(_UNHASHED).encode()).hexdigest()[:16]


class Suite(BaseModel):
    """A tool suite: tools, cases and an optional system prompt.

    Building one gives every case an ``id`` (its id, else its name, else ``case_<index>``) and
    runs the cross-checks (:meth:`problems`): any problem raises one
    :class:`~tooleval_nb.errors.SuiteError` that lists them all. Two suites are equal when their
    name, description, system prompt, tools and cases are; ``source`` does not count. Files are
    read by :func:`tooleval_nb.formats.load_suite` and written by :meth:`save`.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    tools: list[Tool] = Field(default_factory=list)
    cases: list[EvalCase] = Field(default_factory=list)
    system_prompt: str | None = None
    #: where the suite was loaded from (used in messages); not part of its identity
    source: str | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _ids_and_checks(self) -> Suite:
        seen: set[str] = set()
        fixed = []
        for i, case in enumerate(self.cases):
            cid = case.id or case.name or f"case_{i}"
            if cid in seen:
                cid = f"{cid}_{i}"
            seen.add(cid)
            fixed.append(case if case.id == cid else case.model_copy(update={"id": cid}))
        self.cases = fixed
        problems = self.problems()
        if problems:
            raise SuiteError(
                f"suite {self.name!r}{_where(self.source)} has {len(problems)} problem(s):\n  - "
                + "\n  - ".join(problems),
                problems=problems,
                path=self.source,
            )
        return self

    def __eq__(self, other: object) -> bool:
        # ``source`` (where it was loaded from) is not part of a suite's identity
        if not isinstance(other, Suite):
            return NotImplemented
        return (self.name, self.description, self.system_prompt, self.tools, self.cases) == (
            other.name,
            other.description,
            other.system_prompt,
            other.tools,
            other.cases,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like every pydantic model

    # -- lookups ---------------------------------------------------------------------------
    def tool(self, name: str) -> Tool:
        for t in self.tools:
            if t.name == name:
                return t
        raise KeyError(name)

    def case(self, case_id: str) -> EvalCase:
        for c in self.cases:
            if c.id == case_id:
                return c
        raise KeyError(case_id)

    def tools_for(self, case: EvalCase) -> list[Tool]:
        """The tools offered for ``case``: its own when it has them, else the suite's."""
        return case.tools if case.tools is not None else self.tools

    def __len__(self) -> int:
        return len(self.cases)

    # -- checks ----------------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Every cross-check problem, each a sentence naming the file, the case and the field.

        Checks: expected tools are offered, expected parameters are in the tool's schema, enum
        values are allowed ones (see :func:`case_problems`), and case names are unique. A case
        may acknowledge problems of its own data in ``metadata["bfcl_problems"]`` (BFCL's data
        has a few; :mod:`tooleval_nb.formats.bfcl` records them there): those are not raised.
        """
        prefix = f"{self.source}: " if self.source else ""
        out: list[str] = []
        first_by_name: dict[str, int] = {}
        for i, case in enumerate(self.cases):
            where = f"{prefix}case {i} ({case.label!r})"
            if case.name is not None:
                j = first_by_name.setdefault(case.name, i)
                if j != i:
                    out.append(
                        f"{where}: field name: {case.name!r} is already the name of case "
                        f"{j}; give every case a unique name"
                    )
            known = case.metadata.get("bfcl_problems") or ()
            out += [
                f"{where}: {p}" for p in case_problems(case, self.tools_for(case)) if p not in known
            ]
        return out

    # -- views -----------------------------------------------------------------------------
    def cases_df(self) -> pd.DataFrame:
        """One row per case.

        Columns: ``case_id, name, prompt, expected_tool, expected_params, n_expected_calls,
        param_scoring, multi_turn, max_rounds, optimal_hops, category, tags, has_expectations,
        n_graders, draft``. ``prompt`` is the user's text (the last user message for cases that
        carry a conversation); ``expected_tool`` lists the expected call names when the case
        gives ``expected_calls``.
        """
        import pandas as pd

        rows = []
        for c in self.cases:
            tool: Any = c.expected_tool
            if tool is None and c.expected_calls:
                names = [e.name for e in c.expected_calls]
                tool = names[0] if len(names) == 1 else names
            rows.append(
                {
                    "case_id": c.id,
                    "name": c.name,
                    "prompt": c.prompt_text,
                    "expected_tool": tool,
                    "expected_params": c.expected_params,
                    "n_expected_calls": len(c.expected_call_list()),
                    "param_scoring": c.param_scoring,
                    "multi_turn": c.multi_turn,
                    "max_rounds": c.max_rounds,
                    "optimal_hops": c.optimal_hops,
                    "category": c.category,
                    "tags": list(c.tags),
                    "has_expectations": c.expected is not None,
                    "n_graders": len(c.graders),
                    "draft": c.draft,
                }
            )
        return pd.DataFrame(rows, columns=list(_CASE_COLUMNS))

    def tools_df(self) -> pd.DataFrame:
        """One row per distinct tool: the suite's, then those cases bring of their own.

        Columns: ``name, description, parameters, required, n_params, scope, n_cases``; ``scope``
        is ``"suite"`` or ``"case"``, ``n_cases`` how many cases are offered the tool.
        """
        import pandas as pd

        rows: dict[str, dict[str, Any]] = {}
        n_suite = sum(c.tools is None for c in self.cases)
        for t in self.tools:
            rows.setdefault(_tool_key(t), _tool_row(t, "suite", n_suite))
        for c in self.cases:
            for t in c.tools or []:
                row = rows.setdefault(_tool_key(t), _tool_row(t, "case", 0))
                if row["scope"] == "case":
                    row["n_cases"] += 1
        return pd.DataFrame(
            list(rows.values()),
            columns=[
                "name",
                "description",
                "parameters",
                "required",
                "n_params",
                "scope",
                "n_cases",
            ],
        )

    def filter(
        self,
        tags: Iterable[str] | None = None,
        ids: Iterable[str] | None = None,
        category: str | None = None,
    ) -> Suite:
        """A suite with only the cases having any of ``tags`` (and/or listed ``ids``)."""
        wanted = {t.lower() for t in tags} if tags is not None else None
        id_set = set(ids) if ids is not None else None
        kept = [
            c
            for c in self.cases
            if (wanted is None or wanted & {t.lower() for t in c.tags})
            and (id_set is None or c.id in id_set)
            and (category is None or c.category == category)
        ]
        return self.model_copy(update={"cases": kept})

    def fingerprint(self) -> str:
        """A stable hash of tools, cases and system prompt (identity of a suite version)."""
        return fingerprint_of(self.model_dump(mode="json"))

    # -- display ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (
            f"Suite(name={self.name!r}, tools={len(self.tools)}, cases={len(self.cases)}, "
            f"fingerprint={self.fingerprint()!r})"
        )

    __str__ = __repr__

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        def page() -> str:
            import html

            import pandas as pd

            head = (
                f"<b>{html.escape(self.name)}</b> — {len(self.tools)} tools, "
                f"{len(self.cases)} cases<br><i>{html.escape(self.description)}</i>"
            )
            with pd.option_context("display.max_colwidth", 60):
                body = self.cases_df().head(20).to_html(index=False)
            more = f"<i>… and {len(self.cases) - 20} more cases</i>" if len(self.cases) > 20 else ""
            code = suite_code(self)
            runs = (
                f"<br><b>Code this suite runs</b> ({len(code)} code grader(s)):<ul>"
                + "".join(f"<li>{html.escape(c.line())}</li>" for c in code)
                + "</ul>"
                if code
                else ""
            )
            return head + str(body) + more + runs

        return mimebundle(repr(self), page)


_CASE_COLUMNS = (
    "case_id",
    "name",
    "prompt",
    "expected_tool",
    "expected_params",
    "n_expected_calls",
    "param_scoring",
    "multi_turn",
    "max_rounds",
    "optimal_hops",
    "category",
    "tags",
    "has_expectations",
    "n_graders",
    "draft",
)


def _tool_key(tool: Tool) -> str:
    return json.dumps(tool.model_dump(mode="json"), sort_keys=True)


def _tool_row(tool: Tool, scope: str, n_cases: int) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.function.description,
        "parameters": list(tool.properties),
        "required": tool.required,
        "n_params": len(tool.properties),
        "scope": scope,
        "n_cases": n_cases,
    }


def _where(source: str | None) -> str:
    return f" in {source}" if source else ""


def suite_warnings(suite: Suite) -> list[str]:
    """:func:`case_warnings` of every case of ``suite``, each naming the file and the case."""
    prefix = f"{suite.source}: " if suite.source else f"suite {suite.name!r}: "
    return [
        f"{prefix}case {i} ({case.label!r}): {w}"
        for i, case in enumerate(suite.cases)
        for w in case_warnings(case, suite.tools_for(case))
    ]


def warn_suite(suite: Suite, stacklevel: int = 2) -> list[str]:
    """Issue :func:`suite_warnings` as :class:`SuiteWarning`; returns them."""
    found = suite_warnings(suite)
    for message in found:
        warnings.warn(message, SuiteWarning, stacklevel=stacklevel + 1)
    return found
