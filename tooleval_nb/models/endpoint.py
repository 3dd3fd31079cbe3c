"""An endpoint's network settings and the checks made before any request: :class:`Network`.

A model entry may carry ``ssl_verify`` (``True``, ``False``, or the path of a CA bundle file or
folder, as litellm and httpx take it), ``ssl_cert`` (a client certificate: one PEM file holding
the certificate and its key, or a ``(certificate, key)`` pair of paths) and
``max_response_bytes`` (the largest answer read, :data:`DEFAULT_MAX_RESPONSE_BYTES` by default).
Left unset, ``ssl_verify`` follows the environment as litellm does: ``SSL_VERIFY`` (``false`` or a
bundle path), then ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``, then the system's certificates.

:func:`check_api_base` and :func:`check_headers` refuse, before anything is sent, what would
otherwise reach the wire malformed: an ``api_base`` with spaces or control characters, a header
that is not a token, holds a line break or is not ASCII, or one that sets the request's framing
(``Host``, ``Content-Length``, ``Transfer-Encoding``, ...): the client writes those itself.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import re
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import ModelConfigError

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "FRAMING_HEADERS",
    "Network",
    "check_api_base",
    "check_headers",
    "is_loopback",
    "proxy_environment",
    "ssl_context",
    "tls_environment",
]

#: the largest answer read by default: 64 MiB, far above any chat completion
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
#: request headers the HTTP client writes itself; a model's headers may not set them
FRAMING_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "upgrade",
    }
)
#: the proxy variables (either case) that route an http(s) request through a proxy
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
#: an HTTP header name: a token (RFC 9110 §5.6.2)
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: what may not appear in a URL as given: whitespace and control characters
_BAD_URL_CHARS = re.compile(r"[\x00-\x20\x7f]")
_FALSE_WORDS = frozenset({"false", "0", "no", "off"})
_TRUE_WORDS = frozenset({"true", "1", "yes", "on"})


@dataclass(frozen=True, slots=True)
class Network:
    """How requests reach one model's endpoint (hashable: clients are kept per value)."""

    #: ``True`` (verify with the default CAs), ``False`` (no verification), a CA bundle path,
    #: or None: the environment decides (``SSL_VERIFY``, ``SSL_CERT_FILE``, ``SSL_CERT_DIR``)
    ssl_verify: bool | str | None = None
    #: a client certificate: one PEM file (certificate and key), or ``(certificate, key)``
    ssl_cert: str | tuple[str, str] | None = None
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    def verify(self) -> bool | str:
        """The verification in force: this setting, else ``SSL_VERIFY``'s, else True."""
        if self.ssl_verify is not None:
            return self.ssl_verify
        env = os.environ.get("SSL_VERIFY", "").strip()
        if not env:
            return True
        if env.lower() in _FALSE_WORDS:
            return False
        if env.lower() in _TRUE_WORDS:
            return True
        return env  # a bundle path, as litellm reads it

    @property
    def default_tls(self) -> bool:
        """Whether TLS is left entirely to the environment (no setting of this model's)."""
        return self.ssl_verify is None and self.ssl_cert is None


#: the network settings of a model that sets none
DEFAULT_NETWORK = Network()


def proxy_environment() -> tuple[tuple[str, str], ...]:
    """The proxy variables set now (names in lower case), for the clients' keys."""
    found = []
    for name in _PROXY_VARIABLES:
        value = os.environ.get(name) or os.environ.get(name.upper())
        if value:
            found.append((name, value))
    return tuple(found)


def tls_environment() -> tuple[str, str, str]:
    """``SSL_VERIFY``, ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` now (empty when unset)."""
    return (
        os.environ.get("SSL_VERIFY", ""),
        os.environ.get("SSL_CERT_FILE", ""),
        os.environ.get("SSL_CERT_DIR", ""),
    )


def ssl_context(network: Network) -> ssl.SSLContext:
    """The TLS context for ``network`` (made once per setting and environment).

    Raises:
        ModelConfigError: a CA bundle or client certificate that cannot be loaded.
    """
    return _ssl_context(network.verify(), network.ssl_cert, tls_environment())


@functools.lru_cache(maxsize=64)
def _ssl_context(
    verify: bool | str, cert: str | tuple[str, str] | None, env: tuple[str, str, str]
) -> ssl.SSLContext:
    _, cert_file, cert_dir = env
    try:
        if verify is False:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        elif isinstance(verify, str):
            where = os.path.expanduser(verify)
            if os.path.isdir(where):
                ctx = ssl.create_default_context(capath=where)
            elif os.path.isfile(where):
                ctx = ssl.create_default_context(cafile=where)
            else:
                raise ModelConfigError(
                    f"ssl_verify names {verify!r}, which is neither a CA bundle file nor a "
                    "folder; give the path of your endpoint's CA bundle (PEM), True or False"
                )
        elif cert_file and os.path.isfile(cert_file):
            ctx = ssl.create_default_context(cafile=cert_file)
        elif cert_dir and os.path.isdir(cert_dir):
            ctx = ssl.create_default_context(capath=cert_dir)
        else:
            ctx = ssl.create_default_context()
        if cert is not None:
            certfile, keyfile = (cert, None) if isinstance(cert, str) else cert
            ctx.load_cert_chain(
                os.path.expanduser(certfile), keyfile and os.path.expanduser(keyfile)
            )
    except (OSError, ssl.SSLError) as exc:  # a file missing or not PEM
        what = "ssl_cert (the client certificate)" if cert is not None else "ssl_verify"
        raise ModelConfigError(f"cannot load the TLS files of {what}: {exc}") from exc
    return ctx


def check_api_base(url: str, *, what: str = "api_base") -> str:
    """``url`` if it is an http(s) URL with a host and no whitespace or control character.

    Raises:
        ModelConfigError: naming ``what`` and the fault.
    """
    bad = _BAD_URL_CHARS.search(url)
    if bad:
        raise ModelConfigError(
            f"{what} {url!r} holds {'a space' if bad.group() == ' ' else 'a control character'} "
            f"at position {bad.start()}; give the endpoint's URL alone, e.g. "
            "'http://localhost:8000/v1'"
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        raise ModelConfigError(f"{what} {url!r} is not a URL: {exc}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ModelConfigError(
            f"{what} {url!r} is not an http(s) URL with a host; give e.g. "
            "'http://localhost:8000/v1'"
        )
    return url


def check_headers(headers: dict[str, str], *, model: str = "") -> None:
    """Refuse headers that would corrupt the request: a name that is not a token, a value with
    a line break or outside ASCII (httpx2 refuses it, our fast path would send it), a framing
    header.

    Raises:
        ModelConfigError: naming the header (never its value: it may be a credential).
    """
    who = f"model {model!r}: " if model else ""
    for name, value in headers.items():
        if not _TOKEN.fullmatch(name):
            raise ModelConfigError(
                f"{who}the header name {name!r} in extra_headers is not a valid HTTP header "
                "name (letters, digits and !#$%&'*+-.^_`|~ only)"
            )
        if name.lower() in FRAMING_HEADERS:
            raise ModelConfigError(
                f"{who}extra_headers sets {name}, which the HTTP client writes itself (it "
                "frames the request); remove it from extra_headers"
            )
        if any(c in value for c in "\r\n\x00"):
            raise ModelConfigError(
                f"{who}the value of header {name} in extra_headers holds a line break or NUL"
            )
        if not value.isascii():
            raise ModelConfigError(
                f"{who}the value of header {name} in extra_headers holds characters outside "
                "ASCII, which HTTP clients do not send alike; encode it (e.g. percent-encoding "
                "or base64)"
            )


@functools.lru_cache(maxsize=256)
def is_loopback(host: str) -> bool:
    """Whether ``host`` (as in a URL, without brackets) is this machine: ``localhost`` or a
    loopback address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
