"""The run store's SQLite file: connections, transactions, migrations and the checkpoint thread.

* Where: ``TOOLEVAL_STORE`` (:data:`ENV_VAR`), else :func:`default_store_path` (``runs.db``
  under the user's data directory); :func:`~.store.resolve_store` shares one store per path.
* Concurrency: WAL mode, ``busy_timeout``, one connection per thread (and per process), and every
  write in one ``BEGIN IMMEDIATE`` transaction, so two notebooks may share a store.
* Checkpoints: no connection of ours copies the write-ahead log back into the database as part
  of a commit (SQLite's automatic checkpoint is off). A thread of the database's own does it
  (:class:`Checkpointer`, a ``PASSIVE`` checkpoint at most every :data:`CHECKPOINT_EVERY_S`
  while writes go on), so that a commit on the event loop never waits for the log's copy and
  its ``fsync`` calls: about 20 ms each, three or four times per 1,000 stored cases.
* Schema changes are migrations (:mod:`.schema`) numbered in the ``schema_version`` table: the
  runner's tables and the experiment layer's, one numbering for the file.
* Ids: :func:`new_id`, for every table's rows; JSON text: :func:`dumps` (:mod:`tooleval_nb.jsontext`).

The tables' rows are read and written by :mod:`.slots` (jobs) and :mod:`.results` (runs,
results, events); :class:`~.store.Store` is the one object holding all three.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..jsontext import dumps  # the compact JSON text the store keeps
from .schema import MIGRATIONS, REQUIRED_TABLES

__all__ = [
    "Database",
    "Checkpointer",
    "default_store_path",
    "dumps",
    "new_id",
    "ENV_VAR",
    "CHECKPOINT_EVERY_S",
    "CHECKPOINT_IDLE_S",
    "StoreConnection",
    "store_error",
]

ENV_VAR = "TOOLEVAL_STORE"

#: how often (seconds) the checkpoint thread copies the write-ahead log into the database at
#: most, while commits go on (SQLite's automatic checkpoint, off on our connections, would run
#: one inside a commit after every 1,000 pages written)
CHECKPOINT_EVERY_S = 0.5

#: after how long (seconds) without a commit the checkpoint thread ends (a commit starts it)
CHECKPOINT_IDLE_S = 30.0

log = logging.getLogger(__name__)


def new_id(prefix: str) -> str:
    """A sortable unique id for a row of the store (a job, a run, an experiment, a sweep ...):
    ``prefix_YYYYmmddHHMMSS_<8 hex>``."""
    return f"{prefix}_{time.strftime('%Y%m%d%H%M%S', time.gmtime())}_{secrets.token_hex(4)}"


def default_store_path() -> Path:
    """``runs.db`` under the user's data directory (platformdirs)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("tooleval_nb", appauthor=False)) / "runs.db"


#: SQLite's result codes (the low byte of ``sqlite_errorcode``) that say what is wrong with the
#: file or its disk rather than with a statement
_CORRUPT, _FULL, _NOTADB = 11, 13, 26


def store_error(path: Path, exc: sqlite3.Error, doing: str = "use") -> StoreError | None:
    """A :class:`StoreError` naming the file and what to do for a store whose disk is full or
    whose file is damaged; None for other SQLite errors (the caller's own handling applies)."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    if code == _FULL or "database or disk is full" in text:
        return StoreError(
            f"cannot {doing} the run store {path}: the database or disk is full ({text}); free "
            f"space on its disk, or put the store elsewhere (store=... or {ENV_VAR}); the cases "
            "not stored are run again by te.resume"
        )
    if code in (_CORRUPT, _NOTADB) or "malformed" in text or "not a database" in text:
        return StoreError(
            f"cannot {doing} the run store {path}: it is damaged ({text}); move it aside (mv {path} "
            f"{path}.damaged, with its -wal and -shm files) and run again: a new store is made. "
            f"`sqlite3 {path}.damaged .recover` may save the runs it holds"
        )
    return None


class StoreConnection(sqlite3.Connection):
    """A connection whose statements raise :class:`StoreError` (naming the file and what to do)
    for a full disk or a damaged file, instead of a bare :class:`sqlite3.DatabaseError`."""

    store_path: Path = Path()
    #: what the connection is doing, for the message: ``open`` until it is set up
    doing: str = "open"

    def _translate(self, exc: sqlite3.Error) -> None:
        error = store_error(self.store_path, exc, self.doing)
        if error is not None:
            raise error from exc

    def execute(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:  # type: ignore[override]
        try:
            return super().execute(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            self._translate(exc)
            raise

    def executemany(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:  # type: ignore[override]
        try:
            return super().executemany(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            self._translate(exc)
            raise


def _create_private(path: Path) -> None:
    """Create the store file readable by its owner only (``0600``; SQLite gives its ``-wal`` and
    ``-shm`` files the database file's mode), when it does not exist."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.close(fd)


class Database:
    """One SQLite file, migrated to this version's schema on opening.

    Args:
        path: the database file (created with its folder when missing).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().resolve()
        self._local = threading.local()
        self._checkpointer = Checkpointer(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder of the run store {self.path}: {exc}; "
                f"pass store='some/writable/runs.db' or set {ENV_VAR}"
            ) from exc
        self._migrate()

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (a new one after a fork)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            return conn  # type: ignore[no-any-return]
        try:
            _create_private(self.path)
            conn = sqlite3.connect(
                self.path,
                timeout=30.0,
                isolation_level=None,
                check_same_thread=True,
                factory=StoreConnection,
            )
            conn.store_path = self.path
            conn.execute("PRAGMA busy_timeout = 30000")
            mode = _wal_mode(conn)
            if str(mode).lower() != "wal":
                raise StoreError(
                    f"the run store {self.path} cannot use WAL mode (got {mode}); "
                    "put it on a local disk"
                )
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA wal_autocheckpoint = 0")  # the checkpoint thread's work
        except OSError as exc:
            raise StoreError(
                f"cannot create the run store {self.path}: {exc}; pass another "
                f"store= path or set {ENV_VAR}"
            ) from exc
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc, "open") or StoreError(
                f"cannot open the run store {self.path}: {exc}; pass another "
                f"store= path or set {ENV_VAR}"
            ) from exc
        conn.doing = "use"
        conn.row_factory = sqlite3.Row
        self._local.conn = conn
        self._local.pid = os.getpid()
        return conn

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on error.

        The error that stopped it is the one raised: SQLite may have rolled back already (a full
        disk does), and ROLLBACK's own "no transaction is active" would hide it. A COMMIT that
        fails is rolled back too, so that the connection does not keep the write lock.

        Raises:
            StoreError: the disk is full or the file is damaged (naming the file, what to do).
        """
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            _rollback(conn)
            raise
        try:
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise
        self._checkpointer.poke()

    def _migrate(self) -> None:
        conn = self.connection()
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        with self.transaction() as c:
            row = c.execute("SELECT MAX(version) FROM schema_version").fetchone()
            version = row[0] or 0
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"the run store {self.path} has schema version {version}, newer "
                    f"than this tooleval_nb knows ({len(MIGRATIONS)}); upgrade "
                    "tooleval_nb or use another store"
                )
            for number in range(version + 1, len(MIGRATIONS) + 1):
                for statement in MIGRATIONS[number - 1].split(";"):
                    if statement.strip():
                        c.execute(statement)
                c.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            missing = sorted(REQUIRED_TABLES - tables)
            if missing:
                raise StoreError(
                    f"the run store {self.path} says schema version {version} but "
                    f"has no table {', '.join(missing)} (written by a pre-release "
                    "tooleval_nb?); move the file aside or use another store "
                    "(store=... or TOOLEVAL_STORE)"
                )

    @property
    def schema_version(self) -> int:
        """The newest migration applied."""
        return int(
            self.connection().execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        )


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is open on ``conn``, if anything is (an error here would hide the one
    that made us roll back: it is logged instead)."""
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        log.warning("rollback failed: %s", exc)


class Checkpointer:
    """Copies a database's write-ahead log into it on a daemon thread of its own.

    Every commit pokes it (a flag set: no wait). It then waits :data:`CHECKPOINT_EVERY_S`, so
    that one checkpoint covers the commits of that time, and runs ``PRAGMA
    wal_checkpoint(PASSIVE)`` on a connection of its own, closed again after. A passive
    checkpoint never blocks a writer nor waits for a reader, and SQLite releases the GIL while
    it copies and syncs, so the thread that committed, usually the one running the event loop,
    goes on at once. What a checkpoint leaves (pages a reader still needs) is taken by a later
    one; SQLite itself checkpoints when the last connection to the database closes. A crash
    mid-checkpoint loses nothing: the log stays valid until it is copied. The thread ends after
    :data:`CHECKPOINT_IDLE_S` without a commit (the next one starts it again), so an idle store
    holds no thread and no file open for it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._lock = threading.Lock()
        #: checkpoints run so far (for tests and diagnostics)
        self.runs = 0

    def poke(self) -> None:
        """Ask for a checkpoint soon (starts the thread when none runs, as after a fork)."""
        self._wake.set()
        if not self._running():
            with self._lock:
                if not self._running():
                    self._wake = threading.Event()
                    self._wake.set()
                    self._thread = threading.Thread(
                        target=self._run,
                        args=(self._wake,),
                        daemon=True,
                        name=f"tooleval-checkpoint-{self.path.name}",
                    )
                    self._pid = os.getpid()
                    self._thread.start()

    def _running(self) -> bool:
        """Whether this process's thread is alive (a forked child has none)."""
        thread = self._thread
        return thread is not None and self._pid == os.getpid() and thread.is_alive()

    def _run(self, wake: threading.Event) -> None:
        while wake.wait(CHECKPOINT_IDLE_S):
            time.sleep(CHECKPOINT_EVERY_S)
            wake.clear()
            try:
                conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                finally:
                    conn.close()
                self.runs += 1
            except sqlite3.Error as exc:  # busy or gone: the next commit pokes again
                log.debug("run store %s: checkpoint failed: %s", self.path, exc)


def _wal_mode(conn: sqlite3.Connection, attempts: int = 50) -> str:
    """Switch ``conn``'s file to WAL and return the journal mode it has.

    Switching a new file to WAL takes an exclusive lock that SQLite's busy timeout does not wait
    for: two processes opening a new store at once (two kernels, two CI jobs) got "database is
    locked" from the loser. It waits here a bounded while (about 25 s) for the other's switch,
    as the reply cache does (``models/cache.py``).
    """
    for attempt in range(1, attempts):
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
            time.sleep(0.02 * attempt)  # another process is setting the file up
    return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])  # the last attempt
