"""The seed-002 YAML format (``agent-test-cases.md``): one case per document.

A file holds one or more YAML documents separated by ``---``. A document is

* a **case**: a mapping with ``name`` and ``input`` (plus ``expected``, ``graders``,
  ``description``, ``timeout``, ``retries``, ``tags``, ``metadata``, ``reference_output``,
  ``reference_tools``, or any seed-001 case field such as ``expected_tool``); or
* a list of such cases; or
* a **suite header**, only as the first document: a mapping with ``kind: suite`` and any of
  ``name``, ``description``, ``system_prompt``, ``tools`` (OpenAI tools), ``tools_file`` (a
  JSON or YAML file, relative to this one, holding a list of tools or a suite whose tools are
  used) and ``cases`` (more cases).

Without a header the suite is named after the file and has no tools: agent cases whose tools
live in the agent load as they are, and their tool names are not cross-checked. Dates are kept as
text (``created_date: 2024-01-15`` stays ``"2024-01-15"``), so that files round-trip. Saving
writes a header (``kind: suite``, name, description, system prompt, tools), then one document per
case with ``name`` and ``input`` first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from ..errors import SuiteError
from ..suite import Suite
from .build import SUITE_KEYS, build_suite, raise_problems
from .seed_json import case_to_dict, read_text, tool_to_dict

__all__ = ["load", "loads", "save", "dumps", "HEADER_KEYS"]

#: the keys of a ``kind: suite`` header document
HEADER_KEYS = ("kind", "name", "description", "system_prompt", "tools", "tools_file", "cases")

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc,valid-type]
    """Safe loading, with dates kept as text."""


_Loader.yaml_implicit_resolvers = {
    first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load(path: str | os.PathLike[str]) -> Suite:
    """Load a seed-002 YAML file (single or multi-document)."""
    return loads(
        read_text(path), source=str(path), default_name=Path(path).stem, base_dir=Path(path).parent
    )


def loads(
    text: str,
    source: str = "<string>",
    default_name: str = "suite",
    base_dir: str | os.PathLike[str] | None = None,
) -> Suite:
    """Load seed-002 YAML text; ``source`` names it in messages, ``base_dir`` for ``tools_file``."""
    docs = _documents(text, source)
    problems: list[str] = []
    header: dict[str, Any] = {}
    cases: list[Any] = []
    lines: list[int | None] = []
    for n, (line, node, data) in enumerate(docs):
        where = f"{source}: document {n + 1} (line {line})"
        if isinstance(data, dict) and "kind" in data:
            if data["kind"] != "suite":
                problems.append(
                    f"{where}: field kind: {data['kind']!r} is not a known kind; "
                    "use 'kind: suite' for the header, or leave kind out of cases"
                )
            elif n != 0:
                problems.append(
                    f"{where}: field kind: the 'kind: suite' header must be the "
                    "first document; move it to the top"
                )
            else:
                header = _header(data, where, problems, base_dir)
                items = data.get("cases") or []
                if not isinstance(items, list):
                    problems.append(f"{where}: field cases: must be a list of cases")
                    items = []
                cases += items
                lines += _item_lines(_value_node(node, "cases"), len(items))
        elif isinstance(data, list):
            cases += data
            lines += _item_lines(node, len(data))
        elif isinstance(data, dict) and _headerless(data):
            problems.append(
                f"{where}: field kind: missing; a document with "
                f"{' and '.join(k for k in ('tools', 'cases') if k in data)} is a "
                "suite header: add 'kind: suite' to it (a case is a mapping with "
                "name and input)"
            )
        elif isinstance(data, dict):
            cases.append(data)
            lines.append(line)
        else:
            problems.append(
                f"{where}: must be a case (a mapping with name and input), a list of "
                f"cases or a 'kind: suite' header, got {type(data).__name__}"
            )
    for i, case in enumerate(cases):
        if isinstance(case, dict) and not (case.get("name") or case.get("id")):
            problems.append(
                f"{source}: case {i} ('?', line {lines[i]}): field name: required "
                "but missing; seed-002 cases need a unique name"
            )
    raise_problems(problems, source)
    raw = {**header, "test_cases": cases}
    return build_suite(raw, source, default_name=default_name, case_lines=lines)


def _headerless(data: dict[str, Any]) -> bool:
    """A suite header written without ``kind: suite``: it lists cases or tools, which no case
    field does (a case's own tools are under ``tools`` too, but a case has an ``input``)."""
    return isinstance(data.get("cases"), list) or (
        isinstance(data.get("tools"), list)
        and not any(k in data for k in ("input", "prompt", "messages"))
    )


def _documents(text: str, source: str) -> list[tuple[int, Any, Any]]:
    """``(first line, node, data)`` of every non-empty document; syntax errors name the line."""
    loader = _Loader(text)
    out = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            data = loader.construct_document(node)
            if data is not None:
                out.append((node.start_mark.line + 1, node, data))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise SuiteError(
            f"{source}: {where}invalid YAML: {exc.problem or exc}; fix the syntax "
            "(a file with an error loads nothing)",
            path=source,
        ) from None
    except yaml.YAMLError as exc:
        raise SuiteError(f"{source}: invalid YAML: {exc}; fix the syntax", path=source) from None
    finally:
        loader.dispose()
    return out


def _value_node(node: Any, key: str) -> Any:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if getattr(k, "value", None) == key:
                return v
    return None


def _item_lines(node: Any, n: int) -> list[int | None]:
    if isinstance(node, yaml.SequenceNode) and len(node.value) == n:
        return [item.start_mark.line + 1 for item in node.value]
    return [None] * n


def _header(
    data: dict[str, Any], where: str, problems: list[str], base_dir: str | os.PathLike[str] | None
) -> dict[str, Any]:
    for key in data:
        if key not in HEADER_KEYS:
            problems.append(
                f"{where}: field {key}: unknown header field; the header fields are "
                f"{', '.join(HEADER_KEYS)}"
            )
    header = {k: data[k] for k in ("name", "description", "system_prompt", "tools") if k in data}
    tools_file = data.get("tools_file")
    if tools_file is not None:
        if "tools" in data:
            problems.append(f"{where}: field tools_file: give tools or tools_file, not both")
        elif not isinstance(tools_file, str):
            problems.append(f"{where}: field tools_file: must be a path (text)")
        else:
            header["tools"] = _read_tools(Path(base_dir or ".") / tools_file, where, problems)
    return {k: v for k, v in header.items() if k in SUITE_KEYS}


def _read_tools(path: Path, where: str, problems: list[str]) -> Any:
    try:
        text = read_text(path)
        data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_Loader)
    except SuiteError as exc:
        problems.append(f"{where}: field tools_file: {exc}")
        return []
    except (ValueError, yaml.YAMLError) as exc:
        problems.append(f"{where}: field tools_file: {path} is not valid JSON/YAML ({exc})")
        return []
    if isinstance(data, dict) and "tools" in data:
        data = data["tools"]
    if not isinstance(data, list):
        problems.append(
            f"{where}: field tools_file: {path} must hold a list of tools or a suite with tools"
        )
        return []
    return data


class _Dumper(yaml.SafeDumper):
    """Block style, multi-line text as ``|`` blocks, keys in the order given."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not value.endswith((" ", "\t")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dumps(suite: Suite) -> str:
    """The suite as seed-002 YAML: a ``kind: suite`` header, then one document per case."""
    header: dict[str, Any] = {"kind": "suite", "name": suite.name}
    if suite.description:
        header["description"] = suite.description
    if suite.system_prompt is not None:
        header["system_prompt"] = suite.system_prompt
    if suite.tools:
        header["tools"] = [tool_to_dict(t) for t in suite.tools]
    docs: list[dict[str, Any]] = [header]
    for case in suite.cases:
        data = case_to_dict(case)  # keeps the id of unnamed cases: seed-002 cases need one
        first: dict[str, Any] = {}
        for key in ("name", "id"):
            if key in data:
                first[key] = data.pop(key)
        if "prompt" in data:
            first["input"] = data.pop("prompt")
        docs.append({**first, **data})
    return yaml.dump_all(
        docs,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        explicit_start=False,
        width=100,
    )


def save(suite: Suite, path: str | os.PathLike[str]) -> None:
    """Write ``suite`` to ``path`` as seed-002 YAML (parent folders are created)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dumps(suite), encoding="utf-8")
