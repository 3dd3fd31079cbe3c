"""The SQLite response cache, and the wrapper that puts it around a call."""

from __future__ import annotations

import threading

import pytest

from tooleval_nb.models import ResponseCache, RetryPolicy
from tooleval_nb.models.cache import (
    cache_dir,
    cache_key,
    cached,
    default_cache,
    exchange_key,
    store_for,
)
from tooleval_nb.models.call import route_for


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


def _answering(fake, tools, prompt="get_time tz UTC", **params):
    """A real call (route → transport → fake server) and a fresh exchange for it."""
    route = route_for("openai/fake", api_base=fake.url)
    policy = RetryPolicy(max_tries=1)

    async def call(exchange):
        return await route.answer(exchange, policy)

    def exchange():
        return route.exchange([{"role": "user", "content": prompt}], tools, "auto", params, None)

    return call, exchange


async def test_cached_answers_from_the_store_without_calling(fake, tools, tmp_path):
    store = ResponseCache(tmp_path / "c.sqlite3")
    call, exchange = _answering(fake, tools)
    first = await cached(call, store)(exchange())
    again = await cached(call, store)(exchange())
    assert (first.cached, again.cached, fake.requests, len(store)) == (False, True, 1, 1)
    assert again.tries == 0 and first.tries == 1
    assert again.tool_calls == first.tool_calls and again.latency_ms == first.latency_ms
    refreshed = await cached(call, store, read=False)(exchange())
    assert not refreshed.cached and fake.requests == 2


async def test_cached_keeps_errors_out(fake, tools, tmp_path):
    store = ResponseCache(tmp_path / "c.sqlite3")
    call, exchange = _answering(fake, tools, "[fault:401] get_time tz UTC")
    failed = await cached(call, store)(exchange())
    assert failed.error_type == "ModelAuthError" and len(store) == 0


async def test_a_hit_keeps_the_fallback_flag(fake, tools, tmp_path):
    store = ResponseCache(tmp_path / "c.sqlite3")
    call, exchange = _answering(fake, tools)
    await cached(call, store)(exchange())
    fallen = exchange()
    fallen.fell_back = True
    assert (await cached(call, store)(fallen)).fallback


def test_the_key_follows_what_is_sent(fake, tools):
    _, exchange = _answering(fake, tools)
    _, seeded = _answering(fake, tools, seed=1)
    _, other = _answering(fake, tools, "get_time tz CET")
    assert exchange_key(exchange()) == exchange_key(exchange())
    assert len({exchange_key(exchange()), exchange_key(seeded()), exchange_key(other())}) == 3


@pytest.mark.parametrize(
    ("option", "params", "expected"),
    [
        (None, {"temperature": 0.0}, ("default", True)),
        (True, {"temperature": 0.0, "n": 1}, ("default", True)),
        (None, {"temperature": 0.7}, (None, False)),
        (None, {"temperature": 0.0, "n": 3}, (None, False)),
        (False, {"temperature": 0.0}, (None, False)),
        ("always", {"temperature": 0.7}, ("default", True)),
        ("refresh", {"temperature": 0.0}, ("default", False)),
        ("mine", {"temperature": 0.0}, ("mine", True)),
        ("mine", {"temperature": 0.5}, (None, False)),
    ],
    ids=["default", "true", "warm", "n3", "off", "always", "refresh", "store", "store-warm"],
)
def test_store_for(tmp_path, option, params, expected):
    mine = ResponseCache(tmp_path / "mine.sqlite3")
    store, read = store_for(mine if option == "mine" else option, params)
    named = {None: None, id(default_cache()): "default", id(mine): "mine"}[
        None if store is None else id(store)
    ]
    assert (named, read) == expected
