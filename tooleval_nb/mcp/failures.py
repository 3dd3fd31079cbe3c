"""Turning what went wrong with an MCP server into one sentence a person can act on.

The SDK runs on anyio task groups, so a failure arrives wrapped in (nested) exception groups;
these helpers find the real cause and say which server, which step, and what to try next.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .target import MCPTarget

__all__ = [
    "leaves",
    "single_leaf",
    "endpoint_hint",
    "describe_failure",
    "is_cancel",
    "brief",
    "stderr_tail",
]


def leaves(exc: BaseException) -> list[BaseException]:
    """Every exception inside ``exc``'s (nested) exception groups; ``[exc]`` for a plain one."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


def single_leaf(exc: BaseException) -> BaseException:
    """The only non-cancellation exception inside nested groups, else ``exc`` itself."""
    real = [e for e in leaves(exc) if not is_cancel(e)]
    return real[0] if len(real) == 1 else exc


def endpoint_hint(target: MCPTarget) -> str:
    if target.transport == "sse":
        return "SSE endpoint (usually ending in /sse)"
    if target.transport == "streamable_http":
        return "streamable-HTTP endpoint (usually ending in /mcp)"
    return "command (it must speak MCP on stdin/stdout)"


def describe_failure(target: MCPTarget, step: str, exc: BaseException) -> str:
    """One sentence naming the target, the step, the cause and the next thing to try."""
    import httpx2
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    real = [e for e in leaves(exc) if not is_cancel(e)] or [exc]

    def first(kind: type[BaseException] | tuple[type[BaseException], ...]) -> BaseException | None:
        return next((e for e in real if isinstance(e, kind)), None)

    where = f"MCP server {target.label} ({target.transport})"
    if (err := first(httpx2.HTTPStatusError)) is not None:
        status = err.response.status_code  # type: ignore[attr-defined]
        other = "sse" if target.transport == "streamable_http" else "streamable_http"
        if status in (401, 403):
            hint = "it wants credentials: pass headers={'Authorization': 'Bearer ...'}"
        elif status in (400, 404, 405, 406):
            hint = (
                f"is {target.label} the server's {endpoint_hint(target)}? If the server "
                f"speaks the other HTTP transport, pass transport={other!r}"
            )
        else:
            hint = "the server failed; check its logs"
        return f"{where} answered HTTP {status} while {step} it: {hint}."
    if (err := first(FileNotFoundError)) is not None and target.transport == "stdio":
        return (
            f"could not start {where}: command {target.command[0]!r} was not found "  # type: ignore[index]
            "(give the full path, or check PATH)."
        )
    if (err := first((httpx2.TransportError, OSError))) is not None:
        return (
            f"could not reach {where} while {step} it: {brief(err)}. Check that the server "
            f"is running and that this is its {endpoint_hint(target)}."
        )
    if (err := first(MCPError)) is not None:
        text = str(err).lower()
        if target.transport != "stdio" and (step == "connecting" or "not found" in text):
            other = "sse" if target.transport == "streamable_http" else "streamable_http"
            return (
                f"{where} rejected the MCP handshake ({brief(err)}): is {target.label} "
                f"the server's {endpoint_hint(target)}? If the server speaks the other "
                f"HTTP transport, pass transport={other!r}."
            )
        hint = (
            "the server process exited or closed the connection"
            if "closed" in text
            else "the server could not answer"
        )
        return f"{where} failed while {step} it: {hint} ({brief(err)})."
    if (err := first(ValidationError)) is not None:
        return f"{where} sent an answer that is not valid MCP while {step} it: {brief(err)}."
    err = real[0]
    return f"{where} failed while {step} it: {brief(err)}."


def is_cancel(exc: BaseException) -> bool:
    import anyio

    return isinstance(exc, anyio.get_cancelled_exc_class())


def brief(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def stderr_tail(errlog: IO[str] | None, lines: int = 8) -> str:
    if errlog is None:
        return ""
    try:
        errlog.flush()
        errlog.seek(0)
        tail = [ln.rstrip() for ln in errlog.read().splitlines() if ln.strip()][-lines:]
    except (OSError, ValueError):
        return ""
    return ("\nThe server's stderr ended with:\n  " + "\n  ".join(tail)) if tail else ""
