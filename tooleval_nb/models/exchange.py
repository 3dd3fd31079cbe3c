"""One call in flight: :class:`Exchange`, what the parts of a call share.

The wire format (:mod:`.wire`) fills it (the request's messages, tools and tool_choice, and the
tools to read the reply against); the fallback (:mod:`.fallback`) may swap the request's
``tool_choice``; every request sent counts a try; the cache (:mod:`.cache`) keys on it; the
reply (:mod:`.call`) reports from it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .spec import ModelSpec
from .transport import ChatRequest, ChatResult

if TYPE_CHECKING:  # pragma: no cover
    from ..suite import Tool

__all__ = ["Exchange", "Send"]


@dataclass(slots=True)
class Exchange:
    """One model call's state, from the prepared request to the reply."""

    spec: ModelSpec
    #: the request as it is (or was last) sent
    request: ChatRequest
    #: the tools offered, under the suite's names (a raw-text parser reads against them)
    tools: list[Tool] = field(default_factory=list)
    #: the provider-safe name sent for a tool → the suite's name (native calls are mapped back)
    names: dict[str, str] = field(default_factory=dict)
    #: requests sent so far
    tries: int = 0
    #: ``tool_choice="required"`` was replaced by ``"auto"``
    fell_back: bool = False


#: one step that sends an exchange's request and gives the result (or raises a ModelError): a
#: transport's ``send`` counted as a try, and the wrappers around it (:mod:`.fallback`)
Send = Callable[[Exchange], Awaitable[ChatResult]]
