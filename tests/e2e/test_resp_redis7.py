"""Redis 7 commands through redis-py's own methods: the multi-key pops
(LMPOP, BLMPOP, ZMPOP, BZMPOP), ZUNION/ZINTER/ZDIFF/ZINTERCARD, DUMP and
RESTORE, CLIENT UNBLOCK/PAUSE/UNPAUSE/REPLY, ROLE and the CLUSTER answer
of a standalone server (the suite also runs against a real redis-server
with STRATA_E2E_PEERS=1)."""

import threading
import time

import pytest
import redis


def test_multi_key_pops(r):
    r.rpush("l1", "a", "b", "c")
    assert r.lmpop(2, "missing", "l1", direction="LEFT", count=2) == [b"l1", [b"a", b"b"]]
    assert r.lmpop(1, "missing", direction="RIGHT") is None
    r.zadd("z", {"x": 1, "y": 2, "w": 3})
    # redis-py 5 leaves these scores as RESP2 sent them.
    assert r.zmpop(1, ["z"], max=True, count=2) == [b"z", [[b"w", b"3"], [b"y", b"2"]]]
    assert r.bzmpop(1, 1, ["z"], min=True) == [b"z", [[b"x", b"1"]]]
    assert r.blmpop(0.1, 1, "empty", direction="LEFT") is None
    with pytest.raises(redis.ResponseError, match="numkeys should be greater than 0"):
        r.execute_command("LMPOP", 0, "l1", "LEFT")


def test_blmpop_is_served_by_a_later_push(r, r2):
    got = {}

    def wait():
        got["reply"] = r2.blmpop(5, 2, "q1", "q2", direction="RIGHT", count=5)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.2)
    r.rpush("q2", "a", "b")
    t.join(10)
    assert got["reply"] == [b"q2", [b"b", b"a"]]


def test_sorted_set_algebra_without_a_destination(r):
    r.zadd("a", {"x": 1, "y": 2})
    r.zadd("b", {"x": 3, "z": 4})
    assert r.zunion(["a", "b"], withscores=True) == [(b"y", 2.0), (b"x", 4.0), (b"z", 4.0)]
    assert r.zinter(["a", "b"], aggregate="MAX", withscores=True) == [(b"x", 3.0)]
    assert r.zdiff(["a", "b"]) == [b"y"]
    assert r.zintercard(2, ["a", "b"]) == 1
    assert r.zintercard(2, ["a", "b"], limit=1) == 1


def test_dump_and_restore_every_type(r):
    r.set("s", "text")
    r.rpush("l", *[str(i) for i in range(300)])
    r.sadd("st", "a", "b", 7)
    r.zadd("zs", {"m": 1.5, "n": -2})
    r.hset("h", mapping={"f": "v", "g": "w"})
    r.xadd("x", {"k": "v"}, id="1-1")
    reads = {
        "s": lambda k: r.get(k),
        "l": lambda k: r.lrange(k, 0, -1),
        "st": lambda k: sorted(r.smembers(k)),
        "zs": lambda k: r.zrange(k, 0, -1, withscores=True),
        "h": lambda k: r.hgetall(k),
        "x": lambda k: r.xrange(k),
    }
    for key, read in reads.items():
        payload = r.dump(key)
        assert payload
        r.restore(key + ":copy", 0, payload)
        assert read(key + ":copy") == read(key), key
        with pytest.raises(redis.ResponseError, match="BUSYKEY"):
            r.restore(key + ":copy", 0, payload)
        r.restore(key + ":copy", 5000, payload, replace=True)
        assert 0 < r.pttl(key + ":copy") <= 5000
    with pytest.raises(redis.ResponseError, match="payload version or checksum"):
        r.restore("bad", 0, r.dump("s")[:-1] + b"\x00")
    assert r.dump("missing") is None


def test_client_unblock_and_pause(r, r2):
    blocked_id = r2.client_id()
    got = {}

    def wait():
        got["reply"] = r2.blpop(["never"], 10)

    t = threading.Thread(target=wait)
    t.start()
    deadline = time.monotonic() + 5
    unblocked = False
    while not unblocked and time.monotonic() < deadline:
        time.sleep(0.05)
        unblocked = r.client_unblock(blocked_id)
    t.join(10)
    assert unblocked and got["reply"] is None
    assert r.client_unblock(blocked_id) is False
    # A write waits for a WRITE pause to end; UNPAUSE ends it early.
    r.set("k", "v")
    assert r.client_pause(5000, all=False)
    started = time.monotonic()
    assert r2.get("k") == b"v"
    threading.Timer(0.3, r.client_unpause).start()
    assert r2.set("k", "w")
    assert 0.2 < time.monotonic() - started < 4


def test_client_reply_skip_and_off(raw_resp):
    raw_resp.send(b"CLIENT REPLY SKIP\r\nSET k 1\r\nGET k\r\nCLIENT REPLY OFF\r\nGET k\r\nCLIENT REPLY ON\r\n")
    assert raw_resp.read_until(b"+OK\r\n") == b"$1\r\n1\r\n+OK\r\n"


def test_standalone_role_and_cluster(r):
    assert r.execute_command("ROLE") == [b"master", 0, []]
    with pytest.raises(redis.ResponseError, match="cluster support disabled"):
        r.execute_command("CLUSTER", "INFO")
    with pytest.raises(redis.ResponseError, match="cluster support disabled"):
        r.execute_command("READONLY")
