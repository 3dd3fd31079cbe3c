"""The SQLite response cache."""

from __future__ import annotations

import threading

import pytest

from tooleval_nb.models import ResponseCache
from tooleval_nb.models.cache import cache_dir, cache_key, default_cache


def test_put_get_clear(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite3")
    key = cache_key(model="m", messages=[{"role": "user", "content": "hi"}])
    assert cache.get(key) is None
    cache.put(key, "m", {"content": "hello"})
    assert cache.get(key) == {"content": "hello"}
    assert len(cache) == 1 and (cache.hits, cache.misses) == (1, 1)
    cache.put(cache_key(model="other"), "other", {"content": "x"})
    assert cache.clear("m") == 1 and len(cache) == 1
    assert cache.clear() == 1 and len(cache) == 0


def test_key_is_stable_and_sensitive():
    base = {"model": "m", "params": {"temperature": 0, "seed": 1}, "tools": None}
    assert cache_key(**base) == cache_key(**dict(reversed(list(base.items()))))
    assert cache_key(**base) != cache_key(**{**base, "params": {"temperature": 0, "seed": 2}})


def test_env_var_moves_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert cache_dir() == tmp_path / "elsewhere"
    assert default_cache().path == tmp_path / "elsewhere" / "responses.sqlite3"


@pytest.mark.parametrize("n_threads", [4, 8])
def test_threads_share_one_file(tmp_path, n_threads):
    """Threads that open a new cache file at the same moment (each its own connection) all
    write; none fails with "database is locked" while the file is switched to WAL."""
    cache = ResponseCache(tmp_path / "c.sqlite3")
    start = threading.Barrier(n_threads)
    failures: list[BaseException] = []

    def work(i: int) -> None:
        try:
            start.wait()
            for j in range(20):
                cache.put(cache_key(i=i, j=j), "m", {"i": i, "j": j})
        except BaseException as exc:  # reported below, not as a thread warning
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert len(cache) == 20 * n_threads
    assert ResponseCache(tmp_path / "c.sqlite3").get(cache_key(i=3, j=19)) == {"i": 3, "j": 19}
