"""A damaged reply cache never fails a call (issue 46): it says which file and how to move it
aside, and the calls go uncached; the file is the user's alone."""

from __future__ import annotations

import logging
import os
import stat

import tooleval_nb as te
from tooleval_nb.models.cache import ResponseCache, cache_key

MESSAGES = [{"role": "user", "content": "hello there"}]


def _call(fake, cache):
    return te.call_model(
        "openai/fake", MESSAGES, api_base=fake.url, api_key="sk-cache-test", cache=cache
    )


def test_a_damaged_cache_file_leaves_calls_working(fake, tmp_path, caplog):
    path = tmp_path / "responses.sqlite3"
    first = _call(fake, ResponseCache(path))
    assert first.error is None and fake.requests == 1
    assert _call(fake, ResponseCache(path)).cached  # it works before the damage
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"responses.sqlite3{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"\x00garbage, not SQLite" * 500)
    cache = ResponseCache(path)
    with caplog.at_level(logging.WARNING, logger="tooleval_nb.models.cache"):
        for n in (2, 3):  # twice: every call still answers
            reply = _call(fake, cache)
            assert reply.error is None and not reply.cached and fake.requests == n
    warnings = [r.getMessage() for r in caplog.records if r.name == "tooleval_nb.models.cache"]
    assert len(warnings) == 1  # said once
    assert str(path) in warnings[0] and f"mv {path} {path}.damaged" in warnings[0]
    assert cache.problem == warnings[0]


def test_a_damaged_entry_is_a_miss(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite3")
    key = cache_key(model="m")
    cache.put(key, "m", {"content": "ok"})
    cache._conn().execute("UPDATE responses SET reply = '{not json'")
    for _ in range(2):
        assert cache.get(key) is None
    cache.put(key, "m", {"content": "again"})
    assert cache.get(key) == {"content": "again"}


def test_the_cache_file_is_the_users_alone(tmp_path):
    old = os.umask(0o002)
    try:
        cache = ResponseCache(tmp_path / "c.sqlite3")
        cache.put(cache_key(model="m"), "m", {"content": "ok"})
    finally:
        os.umask(old)
    for name in ("c.sqlite3", "c.sqlite3-wal", "c.sqlite3-shm"):
        mode = stat.S_IMODE((tmp_path / name).stat().st_mode)
        assert mode & 0o077 == 0, (name, oct(mode))
