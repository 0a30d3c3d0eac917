"""memcached text protocol through pymemcache: storage, CAS, counters,
touch, delete, stats and flush_all."""

import pytest
from pymemcache.exceptions import MemcacheClientError, MemcacheServerError


def test_set_get_and_get_many(mc):
    assert mc.set("k", "v") is True
    assert mc.get("k") == b"v"
    assert mc.get("missing") is None
    mc.set_many({"a": "1", "b": "2"})
    assert mc.get_many(["a", "b", "missing"]) == {"a": b"1", "b": b"2"}


def test_flags_round_trip(raw_mc):
    assert raw_mc.request(b"set f 4294967295 0 3\r\nabc\r\n") == b"STORED\r\n"
    assert raw_mc.request(b"get f\r\n", b"END\r\n") == b"VALUE f 4294967295 3\r\nabc\r\nEND\r\n"


def test_add_replace_append_prepend(mc):
    assert mc.add("k", "1", noreply=False) is True
    assert mc.add("k", "2", noreply=False) is False
    assert mc.replace("k", "3", noreply=False) is True
    assert mc.replace("missing", "x", noreply=False) is False
    assert mc.append("k", "4", noreply=False) is True
    assert mc.prepend("k", "2", noreply=False) is True
    assert mc.get("k") == b"234"
    assert mc.append("missing", "x", noreply=False) is False


def test_gets_and_cas(mc):
    mc.set("k", "v1")
    value, token = mc.gets("k")
    assert value == b"v1"
    assert mc.cas("k", "v2", token, noreply=False) is True
    assert mc.cas("k", "v3", token, noreply=False) is False, "stale token"
    assert mc.get("k") == b"v2"
    assert mc.cas("missing", "x", token, noreply=False) is None
    _, token2 = mc.gets("k")
    assert token2 != token


def test_incr_and_decr(mc):
    mc.set("n", "10")
    assert mc.incr("n", 5) == 15
    assert mc.decr("n", 20) == 0, "decr stops at zero"
    assert mc.incr("missing", 1) is None
    mc.set("max", str(2**64 - 1))
    assert mc.incr("max", 1) == 0, "incr wraps at 2^64"
    mc.set("text", "abc")
    with pytest.raises(MemcacheClientError):
        mc.incr("text", 1)


def test_touch_and_delete(mc, raw_mc):
    mc.set("k", "v")
    assert mc.touch("k", 100, noreply=False) is True
    assert mc.touch("missing", 100, noreply=False) is False
    ttl_line = raw_mc.request(b"mg k t\r\n")
    assert ttl_line.startswith(b"HD t"), ttl_line
    assert 0 < int(ttl_line.split()[1][1:]) <= 100
    assert mc.delete("k", noreply=False) is True
    assert mc.delete("k", noreply=False) is False


def test_negative_exptime_expires_at_once(raw_mc):
    assert raw_mc.request(b"set gone 0 -1 1\r\nx\r\n") == b"STORED\r\n"
    assert raw_mc.request(b"get gone\r\n", b"END\r\n") == b"END\r\n"


def test_stats(mc):
    mc.set("a", "1")
    mc.get("a")
    mc.get("missing")
    stats = mc.stats()
    for key in (b"pid", b"uptime", b"version", b"curr_items", b"get_hits", b"get_misses",
                b"curr_connections", b"limit_maxbytes"):
        assert key in stats, key
    assert stats[b"curr_items"] >= 1
    assert stats[b"get_hits"] >= 1
    assert stats[b"get_misses"] >= 1
    assert stats[b"limit_maxbytes"] == 64 * 1024 * 1024


def test_flush_all_and_version(mc):
    mc.set("a", "1")
    assert mc.flush_all(noreply=False) is True
    assert mc.get("a") is None
    assert mc.version()


def test_too_large_values_are_refused(mc):
    with pytest.raises(MemcacheServerError):
        mc.set("huge", b"x" * (2 * 1024 * 1024), noreply=False)
    assert mc.get("huge") is None
    assert mc.set("after", "ok", noreply=False) is True, "the connection stays usable"


def test_noreply_and_errors(raw_mc):
    raw_mc.send(b"set k 0 0 1 noreply\r\nv\r\n")
    assert raw_mc.request(b"get k\r\n", b"END\r\n") == b"VALUE k 0 1\r\nv\r\nEND\r\n"
    assert raw_mc.request(b"bogus command\r\n") == b"ERROR\r\n"
    assert raw_mc.request(b"set k 0 0 notanumber\r\n").startswith(b"CLIENT_ERROR")


def test_raw_cas_replies(raw_mc):
    raw_mc.request(b"set k 0 0 1\r\na\r\n")
    reply = raw_mc.request(b"gets k\r\n", b"END\r\n")
    cas = int(reply.split(b"\r\n")[0].split()[4])
    assert raw_mc.request(b"cas k 0 0 1 %d\r\nb\r\n" % (cas + 1000)) == b"EXISTS\r\n"
    assert raw_mc.request(b"cas k 0 0 1 %d\r\nb\r\n" % cas) == b"STORED\r\n"
    assert raw_mc.request(b"cas nokey 0 0 1 1\r\nb\r\n") == b"NOT_FOUND\r\n"
