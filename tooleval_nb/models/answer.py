"""An HTTP answer as both of the direct path's clients give it: :class:`Response`, the errors
they raise, and the reading of an answer's head and ``Content-Encoding``.

:mod:`.http` (the fast path) and :mod:`.client` (httpx2) raise the same classes for the same
failure, so :mod:`.direct` maps them to the model errors once: :class:`ConnectError` (and its
:class:`CertificateError`), :class:`ConnectionLost`, :class:`ResponseTooLarge` and
:class:`BadEncoding`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

__all__ = [
    "ACCEPT_ENCODING",
    "MAX_HEAD",
    "USER_AGENT",
    "BadEncoding",
    "CertificateError",
    "ConnectError",
    "ConnectionLost",
    "Response",
    "ResponseTooLarge",
    "content_length",
    "decode",
    "parse_head",
]

#: the request headers both clients send
USER_AGENT = "tooleval_nb"
ACCEPT_ENCODING = "gzip, deflate"
#: the longest answer head (status line and headers) read
MAX_HEAD = 65536


class ConnectError(OSError):
    """No connection could be made (refused, unknown host, proxy refused, TLS failed)."""


class CertificateError(ConnectError):
    """The endpoint's TLS certificate could not be verified."""


class ConnectionLost(OSError):
    """The connection closed or broke before the whole answer arrived, or the answer is not
    HTTP/1.x."""


class ResponseTooLarge(Exception):
    """The answer is larger than the limit; it was not read further."""

    def __init__(self, limit: int, size: int | None = None):
        self.limit, self.size = limit, size
        said = f"of {size} bytes " if size is not None else ""
        super().__init__(
            f"the answer {said}is larger than max_response_bytes={limit} (reading stopped)"
        )


class BadEncoding(Exception):
    """The answer's body is not valid for its ``Content-Encoding``."""


@dataclass(slots=True)
class Response:
    """An answer: the status, the headers (names in lower case; repeated ones joined by ``, ``)
    and the whole body, decoded."""

    status: int
    headers: dict[str, str]
    body: bytes


def parse_head(head: str) -> tuple[int, bool, dict[str, str]]:
    """(status, HTTP/1.0?, headers) of an answer's head; folded lines joined to the previous
    header; repeated headers joined by ``, ``."""
    lines = head.split("\r\n")
    status_line = lines[0]
    if not status_line.startswith("HTTP/1.") or len(status_line) < 12:
        raise ConnectionLost(f"not an HTTP/1.x answer: {status_line[:80]!r}")
    try:
        status = int(status_line[9:12])
    except ValueError:
        raise ConnectionLost(f"not an HTTP status line: {status_line[:80]!r}") from None
    headers: dict[str, str] = {}
    key = ""
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and key:  # obs-fold: a continuation of the last header
            headers[key] = f"{headers[key]} {line.strip()}"
            continue
        name, sep, value = line.partition(":")
        if not sep:
            continue
        key = name.strip().lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return status, status_line.startswith("HTTP/1.0"), headers


def content_length(text: str) -> int:
    """The length of a ``Content-Length`` header, repeated identical values allowed."""
    values = {v.strip() for v in text.split(",")}
    if len(values) != 1 or not next(iter(values)).isdigit():
        raise ConnectionLost(f"a Content-Length that is not one number: {text[:80]!r}")
    return int(values.pop())


def decode(body: bytes, encoding: str, limit: int) -> bytes:
    """``body`` decoded from its ``Content-Encoding`` (gzip, deflate), at most ``limit`` bytes."""
    for coding in reversed([c.strip().lower() for c in encoding.split(",") if c.strip()]):
        if coding == "identity":
            continue
        if coding in ("gzip", "x-gzip"):
            decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif coding == "deflate":
            decoder = zlib.decompressobj()
            if body[:1] and (body[0] & 0x0F) != 8:  # raw deflate, without the zlib header
                decoder = zlib.decompressobj(-zlib.MAX_WBITS)
        else:  # httpx2 leaves an encoding it does not know as it came
            continue
        try:
            out = decoder.decompress(body, limit + 1)
        except zlib.error as exc:
            raise BadEncoding(f"the answer's {coding} body is corrupt: {exc}") from None
        if len(out) > limit:
            raise ResponseTooLarge(limit)
        body = out
    return body
