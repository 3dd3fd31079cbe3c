"""Screening of ``tools/list`` answers on the wire, so one bad tool cannot sink a whole listing.

The MCP SDK validates a ``tools/list`` result as one piece: a single tool whose ``inputSchema``
is not an object schema makes the whole listing fail with a pydantic ``ValidationError``, and
every later ``call_tool`` (which re-lists to validate output) fails with it. :class:`ScreenedTransport`
wraps any SDK transport and, in each ``tools/list`` answer, drops the tools that would fail the
SDK's checks, remembering why in :attr:`ToolScreen.rejected`. The importer turns those into
per-tool warnings.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any

from pydantic import ValidationError

__all__ = ["ToolScreen", "ScreenedTransport", "wire_problem"]

#: protocol versions whose wire types a listed tool must satisfy (one per schema era)
_ERA_VERSIONS = ("2025-11-25", "2026-07-28")


def wire_problem(tool: Any) -> str | None:
    """Why the SDK would reject this raw ``tools/list`` entry, or None when it is acceptable."""
    if not isinstance(tool, dict):
        return f"the entry is a {type(tool).__name__}, not an object"
    name = tool.get("name")
    if not isinstance(name, str) or not name:
        return "the tool has no name"
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return "inputSchema is missing or not an object"
    if schema.get("type") != "object":
        return (
            f"inputSchema must describe an object (type 'object'), got type {schema.get('type')!r}"
        )
    from mcp_types import methods

    for version in _ERA_VERSIONS:
        try:
            methods.validate_server_result("tools/list", version, {"tools": [tool]})
        except ValidationError as exc:
            # only errors inside the tool count (the probe result lacks other required fields)
            for err in exc.errors():
                if tuple(err["loc"][:2]) == ("tools", 0):
                    where = ".".join(str(p) for p in err["loc"][2:]) or "(tool)"
                    return f"{where}: {err['msg']} (MCP {version} wire schema)"
        except (KeyError, ValueError):
            continue  # a version this SDK does not know: nothing to check against
    return None


class ToolScreen:
    """Drops unacceptable tools from ``tools/list`` results and records why."""

    def __init__(self) -> None:
        #: tool name (or ``#index``) -> reason it was dropped
        self.rejected: dict[str, str] = {}

    def screen(self, item: Any) -> Any:
        message = getattr(item, "message", None)
        result = getattr(message, "result", None)
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return item
        kept = []
        for i, tool in enumerate(result["tools"]):
            problem = wire_problem(tool)
            if problem is None:
                kept.append(tool)
                continue
            name = tool.get("name") if isinstance(tool, dict) else None
            label = name if isinstance(name, str) and name else f"#{i}"
            self.rejected[label] = problem
        result["tools"] = kept
        return item


class _ScreenedReadStream:
    """A read stream that passes every item through :meth:`ToolScreen.screen`."""

    def __init__(self, inner: Any, screen: ToolScreen) -> None:
        self._inner = inner
        self._screen = screen

    def __getattr__(self, name: str) -> Any:  # last_context and anything else the SDK reads
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        return self._screen.screen(await self._inner.receive())

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _ScreenedReadStream:
        return self

    async def __anext__(self) -> Any:
        return self._screen.screen(await self._inner.__anext__())

    async def __aenter__(self) -> _ScreenedReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


class ScreenedTransport:
    """An SDK ``Transport`` (async context manager of a stream pair) with a tool screen."""

    def __init__(self, inner: AbstractAsyncContextManager[Any], screen: ToolScreen) -> None:
        self._inner = inner
        self.screen = screen

    async def __aenter__(self) -> tuple[Any, Any]:
        read_stream, write_stream = await self._inner.__aenter__()
        return _ScreenedReadStream(read_stream, self.screen), write_stream

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)
