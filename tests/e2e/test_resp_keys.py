"""RESP keyspace commands: existence, renames, SCAN iteration and KEYS."""

import pytest
import redis


def test_exists_del_type_dbsize(r):
    r.mset({"a": "1", "b": "2"})
    assert r.exists("a", "b", "a", "missing") == 3
    assert r.type("a") == b"string"
    assert r.type("missing") == b"none"
    assert r.dbsize() == 2
    assert r.delete("a", "missing") == 1
    assert r.unlink("b") == 1
    assert r.dbsize() == 0


def test_rename_and_renamenx(r):
    r.set("src", "v", ex=100)
    assert r.rename("src", "dst") is True
    assert r.get("dst") == b"v"
    assert r.exists("src") == 0
    assert 0 < r.ttl("dst") <= 100, "RENAME keeps the TTL"
    with pytest.raises(redis.ResponseError, match="(?i)no such key"):
        r.rename("missing", "x")
    r.set("other", "o")
    assert r.renamenx("dst", "other") is False
    assert r.renamenx("dst", "new") is True
    assert r.get("new") == b"v"


def test_scan_visits_every_key_once_the_iteration_ends(r):
    keys = {f"scan:{i}".encode() for i in range(1000)}
    pipe = r.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, "x")
    pipe.execute()
    assert set(r.scan_iter(count=100)) == keys
    assert set(r.scan_iter(match="scan:1*", count=50)) == {k for k in keys if k.startswith(b"scan:1")}
    cursor, batch = r.scan(0, count=10)
    assert cursor != 0 and len(batch) > 0


def test_keys_pattern_and_randomkey(r):
    assert r.randomkey() is None
    r.mset({"user:1": "a", "user:2": "b", "item:1": "c"})
    assert sorted(r.keys("user:*")) == [b"user:1", b"user:2"]
    assert sorted(r.keys("*")) == [b"item:1", b"user:1", b"user:2"]
    assert r.randomkey() in {b"user:1", b"user:2", b"item:1"}


def test_flushdb_empties_the_keyspace(r):
    r.mset({"a": "1", "b": "2"})
    assert r.flushdb() is True
    assert r.dbsize() == 0
