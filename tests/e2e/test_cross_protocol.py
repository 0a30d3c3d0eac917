"""One keyspace behind both front ends: what one protocol writes, the other sees."""

import pytest

pytestmark = pytest.mark.strata_only


def test_memcached_writes_are_visible_over_resp(mc, r):
    mc.set("shared", "from-memcached")
    assert r.get("shared") == b"from-memcached"
    mc.set("ttl", "v", expire=100)
    assert 0 < r.ttl("ttl") <= 100
    mc.delete("shared")
    assert r.exists("shared") == 0


def test_resp_writes_are_visible_over_memcached(mc, r):
    r.set("shared", "from-resp")
    assert mc.get("shared") == b"from-resp"
    r.set("n", 41)
    assert mc.incr("n", 1) == 42
    assert r.incr("n") == 43
    r.delete("shared")
    assert mc.get("shared") is None


def test_memcached_cas_sees_resp_writes(mc, r):
    mc.set("k", "v1")
    _, token = mc.gets("k")
    r.set("k", "v2")
    assert mc.cas("k", "v3", token, noreply=False) is False
    assert r.get("k") == b"v2"


def test_watch_sees_memcached_writes(mc, r):
    import redis

    r.set("k", "1")
    with r.pipeline() as pipe:
        pipe.watch("k")
        mc.set("k", "2")
        pipe.multi()
        pipe.set("k", "3")
        with pytest.raises(redis.WatchError):
            pipe.execute()
    assert r.get("k") == b"2"


def test_counts_agree(mc, r):
    r.mset({"a": "1", "b": "2", "c": "3"})
    assert mc.stats()[b"curr_items"] == 3
    assert r.dbsize() == 3
    mc.flush_all()
    assert r.dbsize() == 0
