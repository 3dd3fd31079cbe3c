"""The parser conformance corpus: cases of model outputs with the expected calls, and loading.

``load_corpus("hermes")`` reads ``hermes.yaml`` from the first folder of :func:`corpus_dirs` that
has it: a folder given with ``path=``, ``$TOOLEVAL_PARSER_CORPUS``, or the corpus shipped inside
the package (``tooleval_nb/data/parsers``, read with :mod:`importlib.resources`: in the repository
a link to ``data/parsers``, in an installed wheel the files themselves). Each file holds the
seed's ten standard patterns for one format plus real outputs of the embedded model
(``source: smollm2-135m``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import ParserError
from ..extras import package_data
from .registry import PARSERS

__all__ = [
    "CORPUS_DIR",
    "CORPUS_ENV",
    "ExpectedParsedCall",
    "VllmExpectation",
    "ParserCase",
    "ParserCorpus",
    "corpus_dirs",
    "load_corpus",
]

#: the corpus shipped inside the package (``data/parsers`` of the repository)
CORPUS_DIR = package_data("parsers")
#: an environment variable naming a folder of ``<format>.yaml`` corpus files (searched first)
CORPUS_ENV = "TOOLEVAL_PARSER_CORPUS"


def corpus_dirs() -> list[Path]:
    """The folders :func:`load_corpus` searches for ``<format>.yaml``, in order:
    ``$TOOLEVAL_PARSER_CORPUS`` when it is set, then the corpus shipped in the package."""
    found: list[Path] = []
    if os.environ.get(CORPUS_ENV):
        found.append(Path(os.environ[CORPUS_ENV]))
    found.append(CORPUS_DIR)
    return list(dict.fromkeys(found))


class ExpectedParsedCall(BaseModel):
    """An expected call: a name and its arguments (an object, or a JSON string)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: dict[str, Any] | str = Field(default_factory=dict)

    def value(self) -> Any:
        if isinstance(self.arguments, str):
            return json.loads(self.arguments) if self.arguments.strip() else {}
        return self.arguments


class VllmExpectation(BaseModel):
    """What vLLM's parser of the corpus's format serves for a case, where it differs from our
    reading (``check_parser(..., compat="vllm")`` checks it instead of the ``expected_*``)."""

    model_config = ConfigDict(extra="forbid")

    tools_called: bool
    tool_calls: list[ExpectedParsedCall] = Field(default_factory=list)
    content: str | None = None
    notes: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> VllmExpectation:
        if self.tools_called != bool(self.tool_calls):
            raise ValueError("vllm.tools_called must be true exactly when vllm.tool_calls is set")
        return self


class ParserCase(BaseModel):
    """One corpus case (the seed's TestCase; the mode is chosen by ``check_parser``)."""

    model_config = ConfigDict(extra="forbid")

    scenario_name: str = Field(min_length=1)
    pattern: int = Field(ge=1, le=10, description="the seed's standard pattern number")
    model_output: str
    expected_tools_called: bool
    expected_tool_calls: list[ExpectedParsedCall] = Field(default_factory=list)
    expected_content: str | None = None
    expected_reasoning: str | None = None
    expect_problem: bool | None = None
    chunks: list[str] | None = None
    parser_name: str = ""
    source: str = "handwritten"
    notes: str = ""
    #: what vLLM serves, when it differs from the expectations above (None: the same)
    vllm: VllmExpectation | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ParserCase:
        if self.expected_tools_called != bool(self.expected_tool_calls):
            raise ValueError(
                "expected_tools_called must be true exactly when expected_tool_calls is not empty"
            )
        if self.chunks is not None and "".join(self.chunks) != self.model_output:
            raise ValueError("chunks must join to model_output exactly")
        return self


class ParserCorpus(BaseModel):
    """The cases of one format, with the id rule of that format."""

    format: str
    description: str = ""
    id_pattern: str = r"^.{16,}$"
    cases: list[ParserCase]
    path: str | None = None

    def __len__(self) -> int:
        return len(self.cases)


def load_corpus(path_or_format: str | Path, *, path: str | Path | None = None) -> ParserCorpus:
    """Load a corpus: a format name or a YAML / JSON file.

    Args:
        path_or_format: a format name (``"hermes"``: ``<format>.yaml`` searched in the folders of
            :func:`corpus_dirs`) or the path of a corpus file.
        path: for a format name, the folder holding ``<format>.yaml`` (or the file itself);
            only there is searched then.

    Raises:
        ParserError: no such file (the message lists every place searched), or an invalid corpus.
    """
    import yaml

    text = str(path_or_format)
    file = Path(path_or_format)
    if text in PARSERS or (not file.suffix and not file.exists()):
        if path is not None:
            given = Path(path)
            places = [given] if given.is_file() else [given / f"{text}.yaml"]
        else:
            places = [folder / f"{text}.yaml" for folder in corpus_dirs()]
        file = next((p for p in places if p.is_file()), places[0])
        if not file.is_file():
            raise ParserError(
                f"parser corpus {text}.yaml not found; searched: "
                + ", ".join(str(p) for p in places)
                + f". Give its folder with load_corpus({text!r}, path=...) or set "
                f"${CORPUS_ENV}; the corpus ships in the package (tooleval_nb/data/parsers, "
                f"the repository's data/parsers)"
            )
    elif not file.exists():
        raise ParserError(
            f"parser corpus {file} not found; pass a format name "
            f"({', '.join(PARSERS)}) or the path of a corpus file"
        )
    path = file
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ParserError(f"{path}: not valid YAML ({exc}); fix the file") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("cases"), list):
        raise ParserError(f"{path}: a corpus is a mapping with 'format' and a 'cases' list")
    fmt = str(raw.get("format") or path.stem)
    problems = []
    cases = []
    for k, item in enumerate(raw["cases"]):
        try:
            case = ParserCase.model_validate({"parser_name": fmt, **item})
        except Exception as exc:  # pydantic ValidationError, or a non-mapping item
            name = item.get("scenario_name", "?") if isinstance(item, dict) else "?"
            problems.append(f"{path}: case {k} ({name}): {exc}")
            continue
        cases.append(case)
    if problems:
        raise ParserError(
            f"{path}: {len(problems)} invalid case(s); fix them:\n" + "\n".join(problems)
        )
    default_ids = r"^[A-Za-z0-9]{9}$" if fmt == "mistral" else r"^.{16,}$"
    return ParserCorpus(
        format=fmt,
        description=str(raw.get("description") or ""),
        id_pattern=raw.get("id_pattern") or default_ids,
        cases=cases,
        path=str(path),
    )
