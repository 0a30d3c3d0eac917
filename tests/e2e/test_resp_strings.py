"""RESP string commands and key expiry through redis-py."""

import time

import pytest
import redis


def test_ping_and_echo(r):
    assert r.ping() is True
    assert r.echo("hello") == b"hello"


def test_set_get_and_binary_values(r):
    assert r.set("greeting", "hello") is True
    assert r.get("greeting") == b"hello"
    assert r.get("missing") is None
    value = bytes(range(256)) * 4 + b"\r\nEND\r\n"
    r.set(b"bin\x00key", value)
    assert r.get(b"bin\x00key") == value
    r.set("empty", "")
    assert r.get("empty") == b""
    assert r.strlen("empty") == 0


def test_set_conditions_and_get_option(r):
    assert r.set("k", "1", nx=True) is True
    assert r.set("k", "2", nx=True) is None
    assert r.get("k") == b"1"
    assert r.set("k", "3", xx=True) is True
    assert r.set("other", "x", xx=True) is None
    assert r.exists("other") == 0
    assert r.set("k", "4", get=True) == b"3"
    assert r.get("k") == b"4"
    assert r.setnx("k", "5") is False
    assert r.setnx("fresh", "5") is True


def test_counters(r):
    assert r.incr("n") == 1
    assert r.incrby("n", 41) == 42
    assert r.decr("n") == 41
    assert r.decrby("n", 50) == -9
    assert r.get("n") == b"-9"
    assert r.incrbyfloat("f", 1.5) == pytest.approx(1.5)
    assert r.incrbyfloat("f", 0.25) == pytest.approx(1.75)
    r.set("text", "abc")
    with pytest.raises(redis.ResponseError, match="not an integer"):
        r.incr("text")
    r.set("big", str(2**63 - 1))
    with pytest.raises(redis.ResponseError):
        r.incr("big")
    assert r.get("big") == str(2**63 - 1).encode()


def test_append_strlen_and_ranges(r):
    assert r.append("s", "Hello") == 5
    assert r.append("s", " World") == 11
    assert r.strlen("s") == 11
    assert r.getrange("s", 0, 4) == b"Hello"
    assert r.getrange("s", -5, -1) == b"World"
    assert r.setrange("s", 6, "Redis") == 11
    assert r.get("s") == b"Hello Redis"
    assert r.setrange("pad", 3, "x") == 4
    assert r.get("pad") == b"\x00\x00\x00x"


def test_mset_mget_msetnx(r):
    assert r.mset({"a": "1", "b": "2", "c": "3"}) is True
    assert r.mget(["a", "b", "missing", "c"]) == [b"1", b"2", None, b"3"]
    assert r.msetnx({"c": "x", "d": "4"}) is False
    assert r.exists("d") == 0
    assert r.msetnx({"d": "4", "e": "5"}) is True
    assert r.mget("d", "e") == [b"4", b"5"]


def test_getset_getdel_getex(r):
    r.set("k", "old")
    assert r.getset("k", "new") == b"old"
    assert r.getdel("k") == b"new"
    assert r.exists("k") == 0
    r.set("t", "v")
    assert r.getex("t", ex=100) == b"v"
    assert 0 < r.ttl("t") <= 100
    assert r.getex("t", persist=True) == b"v"
    assert r.ttl("t") == -1


def test_expiry_bookkeeping_without_waiting(r):
    r.set("k", "v")
    assert r.ttl("k") == -1
    assert r.ttl("missing") == -2
    assert r.expire("k", 100) is True
    assert 99 <= r.ttl("k") <= 100
    assert 0 < r.pttl("k") <= 100_000
    assert r.persist("k") is True
    assert r.ttl("k") == -1
    assert r.expire("missing", 100) is False
    r.set("px", "v", px=50_000)
    assert 0 < r.pttl("px") <= 50_000
    r.set("ex", "v", ex=30)
    r.set("ex", "w", keepttl=True)
    assert 0 < r.ttl("ex") <= 30
    r.set("ex", "x")
    assert r.ttl("ex") == -1, "a plain SET clears the TTL"


def test_expiry_in_the_past_deletes_at_once(r):
    r.set("k", "v")
    assert r.expireat("k", int(time.time()) - 10) is True
    assert r.get("k") is None
    assert r.exists("k") == 0
    r.set("k2", "v")
    r.pexpire("k2", -1)
    assert r.get("k2") is None


def test_expiry_elapses(r):
    # The one deliberate wait of the suite: real time must expire keys.
    r.set("short", "v", px=100)
    r.set("long", "v", ex=100)
    time.sleep(0.3)
    assert r.get("short") is None
    assert r.get("long") == b"v"


def test_errors_are_error_replies(r):
    with pytest.raises(redis.ResponseError, match="(?i)unknown command"):
        r.execute_command("NOSUCHCOMMAND", "x")
    with pytest.raises(redis.ResponseError, match="(?i)wrong number of arguments"):
        r.execute_command("GET")
    with pytest.raises(redis.ResponseError, match="(?i)syntax"):
        r.execute_command("SET", "k", "v", "BOGUS")
    assert r.ping() is True, "the connection survives errors"


def test_object_encoding_of_edited_strings(r):
    """A string edited in place is `raw` whatever its length, until it is
    written whole again; one written whole is named by its content."""
    r.set("n", 12)
    r.append("n", "3")
    r.set("s", "ab")
    r.setrange("s", 1, "z")
    r.setbit("b", 3, 1)
    r.set("f", "x")
    r.execute_command("BITFIELD", "f", "SET", "u8", "0", "65")
    r.execute_command("BITFIELD", "ro", "GET", "u8", "0")
    r.set("src", "ab")
    r.bitop("NOT", "dest", "src")
    r.append("fresh", "7")
    r.append("fresh2", "hello")
    edited = ["n", "s", "b", "f", "dest"]
    assert [r.object("encoding", k) for k in edited] == [b"raw"] * 5
    assert r.object("encoding", "fresh") == b"int"
    assert r.object("encoding", "fresh2") == b"embstr"
    assert r.get("n") == b"123" and r.get("f") == b"A"
    r.rename("n", "n2")
    r.copy("s", "s2")
    assert r.object("encoding", "n2") == b"raw"
    assert r.object("encoding", "s2") == b"raw"
    r.incr("n2")
    r.set("s", "az")
    r.expire("b", 100)
    assert r.object("encoding", "n2") == b"int"
    assert r.object("encoding", "s") == b"embstr"
    assert r.object("encoding", "b") == b"raw"


def test_object_encoding_of_incrbyfloat_results(r):
    """INCRBYFLOAT stores its result as text: `embstr` even when it reads
    as an integer, until the key is written again (INCR makes it `int`)."""
    r.set("c", 5)
    assert r.incrbyfloat("c", 1) == 6.0
    assert r.incrbyfloat("fresh", 3) == 3.0
    assert r.incrbyfloat("frac", "1.5") == 1.5
    for key in ["c", "fresh", "frac"]:
        assert r.object("encoding", key) == b"embstr", key
    r.rename("c", "c2")
    assert r.object("encoding", "c2") == b"embstr"
    assert r.incr("c2") == 7
    assert r.object("encoding", "c2") == b"int"
    r.set("fresh", "3")
    assert r.object("encoding", "fresh") == b"int"
