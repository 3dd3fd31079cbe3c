"""The response cache: successful replies stored in SQLite under the user cache directory.

Keyed by a hash of model, api_base, mode, the messages and tools actually sent, tool_choice and
every sampling parameter, so a changed prompt or parameter never hits a stale entry. No
credential goes into a key (the parameters are hashed with their credentials redacted: see
:mod:`tooleval_nb.credentials`) nor into a stored reply (the model's key and headers are masked). By default the
cache is used for deterministic calls only (temperature 0); ``cache=False`` bypasses it for one
call or one run. Location: ``$TOOLEVAL_CACHE_DIR`` or
``platformdirs.user_cache_dir("tooleval_nb")``, file ``responses.sqlite3``. Errors are never cached.

:func:`cached` wraps a call (an :class:`~.exchange.Exchange` in, a :class:`~.reply.ModelReply`
out): a hit answers without calling (so the embedded server is not even started), flagged
``cached`` with ``tries=0``; :func:`store_for` says which store, if any, a call uses.

The cache only saves time, so it never fails a call: a damaged file (or one that is no
database, or a full disk) makes the calls go uncached, with one warning naming the file and how
to move it aside (:attr:`ResponseCache.problem`); an entry that cannot be read is a miss. The
file is created readable by its owner only (``0600``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ..credentials import mask, redact
from .exchange import Exchange
from .reply import ModelReply

log = logging.getLogger(__name__)

__all__ = [
    "CacheOption",
    "Call",
    "ResponseCache",
    "cache_dir",
    "cache_key",
    "cached",
    "default_cache",
    "exchange_key",
    "store_for",
]

#: one model call: the exchange in, the reply out (errors included, never raised)
Call = Callable[[Exchange], Awaitable[ModelReply]]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    created REAL NOT NULL,
    reply TEXT NOT NULL
)
"""


def cache_dir() -> Path:
    """``$TOOLEVAL_CACHE_DIR`` or the platform's user cache dir for tooleval_nb."""
    env = os.environ.get("TOOLEVAL_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("tooleval_nb"))


def cache_key(**parts: Any) -> str:
    """A stable hash of the request parts (JSON with sorted keys)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


#: one thread at a time opens a cache file (see ResponseCache._conn)
_SETUP_LOCK = threading.Lock()


class ResponseCache:
    """A small key → reply store in one SQLite file (WAL; safe across threads and processes)."""

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else cache_dir() / "responses.sqlite3"
        self._local = threading.local()
        self.hits = 0
        self.misses = 0
        #: why the cache is not used (a damaged file, a full disk), None while it works
        self.problem: str | None = None

    def _unusable(self, exc: BaseException) -> None:
        """Stop using the file after ``exc``, saying once which file and what to do."""
        if self.problem is None:
            self.problem = (
                f"the response cache {self.path} cannot be used ({exc}): model calls go "
                f"uncached. Move it aside (mv {self.path} {self.path}.damaged, with its -wal "
                "and -shm files) or delete it: a new cache is made in the next session"
            )
            log.warning(self.problem)

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:  # the file is the user's alone, whatever the umask
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                pass
            conn = sqlite3.connect(
                self.path, timeout=10, isolation_level=None, check_same_thread=False
            )
            # Switching a new file to WAL takes an exclusive lock that SQLite's busy timeout does
            # not wait for: threads opening one cache at once got "database is locked". They
            # take turns here; another process doing the same is waited for a bounded while.
            with _SETUP_LOCK:
                for attempt in range(50):
                    try:
                        conn.execute("PRAGMA journal_mode=WAL")
                        conn.execute("PRAGMA synchronous=NORMAL")
                        conn.execute(_SCHEMA)
                        break
                    except sqlite3.OperationalError as exc:
                        if "locked" not in str(exc) or attempt == 49:
                            conn.close()
                            raise
                        time.sleep(0.02 * (attempt + 1))  # another process is setting it up
            self._local.conn = conn
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored reply for ``key`` (a dict), or None (also when the file or the entry
        cannot be read: see the module docstring)."""
        row = None
        if self.problem is None:
            try:
                row = (
                    self._conn()
                    .execute("SELECT reply FROM responses WHERE key = ?", (key,))
                    .fetchone()
                )
            except sqlite3.DatabaseError as exc:
                self._unusable(exc)
        try:
            found = json.loads(row[0]) if row is not None else None
        except (ValueError, TypeError):
            found = None  # a damaged entry: a miss, replaced by the next reply
        if not isinstance(found, dict):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(
        self, key: str, model: str, reply: dict[str, Any], secrets: tuple[str, ...] = ()
    ) -> None:
        """Store ``reply`` under ``key``, with each of ``secrets`` masked wherever it appears
        (nothing when the cache cannot be used)."""
        if self.problem is not None:
            return
        text = json.dumps(reply, ensure_ascii=False)
        try:
            self._conn().execute(
                "INSERT OR REPLACE INTO responses (key, model, created, reply) VALUES (?, ?, ?, ?)",
                (key, model, time.time(), mask(text, secrets) if secrets else text),
            )
        except sqlite3.DatabaseError as exc:
            self._unusable(exc)

    def clear(self, model: str | None = None) -> int:
        """Delete every entry (or one model's); returns how many were deleted."""
        conn = self._conn()
        if model is None:
            cur = conn.execute("DELETE FROM responses")
        else:
            cur = conn.execute("DELETE FROM responses WHERE model = ?", (model,))
        return cur.rowcount

    def __len__(self) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r}, hits={self.hits}, misses={self.misses})"


_DEFAULTS: dict[Path, ResponseCache] = {}
_LOCK = threading.Lock()


def default_cache() -> ResponseCache:
    """The shared cache at the current default location."""
    path = cache_dir() / "responses.sqlite3"
    with _LOCK:
        cache = _DEFAULTS.get(path)
        if cache is None:
            cache = _DEFAULTS[path] = ResponseCache(path)
    return cache


#: ``None``/``True``: the default cache, for temperature 0 only; ``False``: bypass;
#: ``"always"``: also at temperature > 0; ``"refresh"``: do not read, do write;
#: a :class:`ResponseCache`: that store (temperature 0 only).
CacheOption = bool | None | Literal["always", "refresh"] | ResponseCache


def store_for(option: CacheOption, params: dict[str, Any]) -> tuple[ResponseCache | None, bool]:
    """(store, read it?) for a call with these sampling ``params``."""
    if option is False:
        return None, False
    deterministic = float(params.get("temperature") or 0.0) == 0.0 and (
        params.get("n") in (None, 1)
    )
    if isinstance(option, ResponseCache):
        return (option, True) if deterministic else (None, False)
    if option == "always":
        return default_cache(), True
    if option == "refresh":
        return default_cache(), False
    return (default_cache(), True) if deterministic else (None, False)


def exchange_key(exchange: Exchange) -> str:
    """The cache key of an exchange: the spec's model, endpoint and mode, and what is sent."""
    spec, request = exchange.spec, exchange.request
    return cache_key(
        model=spec.model,
        api_base=spec.api_base,
        mode=spec.mode,
        messages=request.messages,
        tools=request.tools,
        tool_choice=request.tool_choice,
        params=redact(request.params),
    )


def cached(call: Call, store: ResponseCache, *, read: bool = True) -> Call:
    """``call`` answered from ``store`` when it holds the exchange's key (unless ``read`` is
    False), its successful replies stored."""

    async def calling(exchange: Exchange) -> ModelReply:
        key = exchange_key(exchange)
        hit = store.get(key) if read else None
        if hit is not None:
            hit.update(
                cached=True, tries=0, fallback=exchange.fell_back or bool(hit.get("fallback"))
            )
            try:
                return ModelReply.model_validate(hit)
            except ValidationError:
                pass  # an entry of another shape: a miss, replaced below
        reply = await call(exchange)
        if reply.error is None:
            store.put(
                key,
                exchange.spec.model,
                reply.model_dump(mode="json", exclude={"cached"}),
                exchange.spec.secrets(),
            )
        return reply

    return calling
