"""Hashes, lists, sets, sorted sets (and streams, in the model) through redis-py: each type's
commands against Redis 7's answers, WRONGTYPE and error texts, the
blocking pops (arrival order, timeouts, wake-ups, inside MULTI), WATCH and
MULTI/EXEC with the new commands, and a random-operation model per type
with restarts in every placement (command log with kill -9, persistent
memory, the SSD tier). Runs against a real redis-server with
STRATA_E2E_PEERS=1 (except the restarts)."""

import random
import shutil
import tempfile
import threading
import time

import pytest
import redis

from conftest import StrataProcess


def test_hash_commands(r):
    assert r.hset("h", mapping={"a": "1", "b": "2"}) == 2
    assert r.hset("h", "a", "10") == 0
    assert r.hsetnx("h", "a", "x") == 0
    assert r.hsetnx("h", "c", "3") == 1
    assert r.hget("h", "a") == b"10"
    assert r.hget("h", "zz") is None
    assert r.hmget("h", ["a", "zz", "c"]) == [b"10", None, b"3"]
    assert r.hgetall("h") == {b"a": b"10", b"b": b"2", b"c": b"3"}
    assert r.hkeys("h") == [b"a", b"b", b"c"]
    assert r.hvals("h") == [b"10", b"2", b"3"]
    assert r.hlen("h") == 3
    assert r.hexists("h", "b") and not r.hexists("h", "q")
    assert r.hstrlen("h", "a") == 2
    assert r.hincrby("h", "a", 5) == 15
    assert r.hincrbyfloat("h", "f", 1.5) == 1.5
    with pytest.raises(redis.ResponseError, match="hash value is not an integer"):
        r.hincrby("h", "f", 1)
    assert r.hdel("h", "a", "b", "nope") == 2
    assert set(r.hrandfield("h", 5)) == {b"c", b"f"}
    assert len(r.hrandfield("h", -5)) == 5
    assert r.hscan("h") == (0, {b"c": b"3", b"f": b"1.5"})
    assert r.hdel("h", "c", "f") == 2
    assert r.exists("h") == 0, "a hash goes with its last field"
    assert r.hgetall("h") == {}
    with pytest.raises(redis.ResponseError, match="wrong number of arguments"):
        r.execute_command("HSET", "h", "a")


def test_list_commands(r):
    assert r.rpush("l", "a", "b", "c") == 3
    assert r.lpush("l", "x", "y") == 5
    assert r.lrange("l", 0, -1) == [b"y", b"x", b"a", b"b", b"c"]
    assert r.lpushx("nolist", "a") == 0 and r.exists("nolist") == 0
    assert r.lpop("l") == b"y"
    assert r.rpop("l", 2) == [b"c", b"b"]
    assert r.lpop("missing", 2) is None
    assert r.llen("l") == 2
    assert r.linsert("l", "AFTER", "x", "q") == 3
    assert r.linsert("l", "BEFORE", "nope", "q") == -1
    assert r.lindex("l", -1) == b"a" and r.lindex("l", 9) is None
    assert r.lset("l", 1, "Q") is True
    with pytest.raises(redis.ResponseError, match="index out of range"):
        r.lset("l", 10, "z")
    with pytest.raises(redis.ResponseError, match="no such key"):
        r.lset("nolist", 0, "z")
    r.rpush("l", "a", "a")
    assert r.lpos("l", "a") == 2
    assert r.lpos("l", "a", rank=-1) == 4
    assert r.lpos("l", "a", count=0) == [2, 3, 4]
    assert r.lrem("l", -2, "a") == 2
    assert r.lrange("l", 0, -1) == [b"x", b"Q", b"a"]
    assert r.ltrim("l", 1, -1) is True
    assert r.lmove("l", "l2", "LEFT", "RIGHT") == b"Q"
    assert r.rpoplpush("l", "l2") == b"a"
    assert r.exists("l") == 0
    assert r.lrange("l2", 0, -1) == [b"a", b"Q"]
    assert r.rpoplpush("l2", "l2") == b"Q", "a rotation of one list"
    assert r.lrange("l2", 0, -1) == [b"Q", b"a"]


def test_set_commands(r):
    assert r.sadd("s", "a", "b", "c", "a") == 3
    assert r.sadd("t", "b", "c", "d") == 3
    assert r.sismember("s", "a") and not r.sismember("s", "z")
    assert r.smismember("s", ["a", "z"]) == [1, 0]
    assert r.scard("s") == 3
    assert r.sinter("s", "t") == {b"b", b"c"}
    assert r.sunion("s", "t") == {b"a", b"b", b"c", b"d"}
    assert r.sdiff("s", "t") == {b"a"}
    assert r.sinterstore("st", "s", "t") == 2 and r.smembers("st") == {b"b", b"c"}
    assert r.sdiffstore("st", "t", "s") == 1 and r.smembers("st") == {b"d"}
    assert r.sunionstore("st", "s", "t") == 4
    assert r.sintercard(2, ["s", "t"]) == 2
    assert r.sintercard(2, ["s", "t"], limit=1) == 1
    assert r.smove("s", "t", "a") is True and r.smove("s", "t", "zz") is False
    assert r.srem("t", "a", "q") == 1
    assert r.srandmember("t") in {b"b", b"c", b"d"}
    assert len(r.srandmember("t", -7)) == 7
    popped = r.spop("s", 10)
    assert set(popped) == {b"b", b"c"} and r.exists("s") == 0
    assert r.sscan("t")[0] == 0


def test_sorted_set_commands(r):
    assert r.zadd("z", {"a": 1, "b": 2, "c": 3, "x": 1.5}) == 4
    assert r.zrange("z", 0, -1, withscores=True) == [
        (b"a", 1.0), (b"x", 1.5), (b"b", 2.0), (b"c", 3.0)]
    assert r.zadd("z", {"a": 5}, xx=True, ch=True) == 1
    assert r.zadd("z", {"b": 1}, gt=True) == 0
    assert r.zadd("z", {"b": 1}, incr=True) == 3.0
    assert r.zscore("z", "a") == 5.0 and r.zscore("z", "nope") is None
    assert r.zmscore("z", ["a", "nope"]) == [5.0, None]
    assert r.zincrby("z", 2, "c") == 5.0
    assert r.zcard("z") == 4
    assert r.zcount("z", "(1.5", "+inf") == 3
    assert r.zrank("z", "x") == 0 and r.zrevrank("z", "x") == 3
    assert r.zrange("z", "(1.5", 5, byscore=True, offset=1, num=5) == [b"a", b"c"]
    assert r.zrevrange("z", 0, 1) == [b"c", b"a"]
    assert r.zrangebyscore("z", 3, 5) == [b"b", b"a", b"c"]
    assert r.zrevrangebyscore("z", 5, 3, start=0, num=2) == [b"c", b"a"]
    r.zadd("lex", {m: 0 for m in "abcde"})
    assert r.zrangebylex("lex", "[b", "(d") == [b"b", b"c"]
    assert r.zrevrangebylex("lex", "+", "[d") == [b"e", b"d"]
    assert r.zlexcount("lex", "-", "+") == 5
    assert r.zremrangebylex("lex", "[a", "[b") == 2
    assert r.zremrangebyrank("lex", -1, -1) == 1
    assert r.zremrangebyscore("z", "-inf", 1.5) == 1
    assert r.zpopmin("z") == [(b"b", 3.0)]
    assert r.zpopmax("z", 5) == [(b"c", 5.0), (b"a", 5.0)]
    assert r.exists("z") == 0
    r.zadd("z1", {"a": 1, "b": 2})
    r.zadd("z2", {"b": 3, "c": 4})
    assert r.zunionstore("u", {"z1": 2, "z2": 1}) == 3
    assert r.zrange("u", 0, -1, withscores=True) == [(b"a", 2.0), (b"c", 4.0), (b"b", 7.0)]
    assert r.zinterstore("i", ["z1", "z2"], aggregate="MAX") == 1
    assert r.zrange("i", 0, -1, withscores=True) == [(b"b", 3.0)]
    assert r.zdiffstore("d", ["z1", "z2"]) == 1
    assert r.zrangestore("rs", "u", 0, 1) == 2
    assert r.zrange("rs", 0, -1) == [b"a", b"c"]
    assert r.zrandmember("u") in {b"a", b"b", b"c"}
    assert r.zscan("u") == (0, [(b"a", 2.0), (b"c", 4.0), (b"b", 7.0)])
    with pytest.raises(redis.ResponseError, match="XX and NX"):
        r.execute_command("ZADD", "z", "NX", "XX", 1, "a")
    with pytest.raises(redis.ResponseError, match="min or max is not a float"):
        r.zcount("u", "x", 1)
    with pytest.raises(redis.ResponseError, match="not valid string range"):
        r.zrangebylex("u", "a", "b")


def test_types_and_wrongtype(r):
    r.set("str", "v")
    r.hset("hash", "f", "v")
    r.rpush("list", "v")
    r.sadd("set", "v")
    r.zadd("zset", {"v": 1})
    for key, kind in [("str", b"string"), ("hash", b"hash"), ("list", b"list"),
                      ("set", b"set"), ("zset", b"zset")]:
        assert r.type(key) == kind
    assert r.type("none") == b"none"
    wrong = [
        lambda: r.get("hash"), lambda: r.append("list", "x"), lambda: r.incr("set"),
        lambda: r.hget("str", "f"), lambda: r.lpush("hash", "x"), lambda: r.sadd("zset", "x"),
        lambda: r.zadd("list", {"x": 1}), lambda: r.lrange("set", 0, -1),
        lambda: r.blpop(["str"], 1), lambda: r.smove("set", "str", "v"),
        lambda: r.lmove("list", "hash"), lambda: r.getdel("hash"), lambda: r.strlen("zset"),
    ]
    for call in wrong:
        with pytest.raises(redis.ResponseError, match="^WRONGTYPE"):
            call()
    assert r.mget("str", "hash") == [b"v", None]
    assert r.lrange("list", 0, -1) == [b"v"], "a refused LMOVE popped nothing"
    assert sorted(r.scan(0, _type="hash", count=1000)[1]) == [b"hash"]
    assert set(r.scan_iter(_type="zset")) == {b"zset"}
    r.set("hash", "now a string")
    assert r.type("hash") == b"string"
    assert r.expire("list", 100) and 0 < r.ttl("list") <= 100
    assert r.rename("zset", "zset2") and r.zscore("zset2", "v") == 1.0
    assert r.copy("set", "set2") is True
    assert r.copy("set", "set2") is False
    assert r.copy("hash", "set2", replace=True) is True and r.get("set2") == b"now a string"
    r.sadd("set", "w")
    assert r.copy("set", "set3") and r.smembers("set3") == {b"v", b"w"}
    assert r.delete("list", "set", "zset2") == 3


def test_expiry_keeps_across_changes(r):
    r.rpush("l", "a")
    r.pexpire("l", 200)
    r.rpush("l", "b")
    r.hset("h", "a", "1")
    r.expire("h", 100)
    r.hset("h", "b", "2")
    assert 0 < r.ttl("h") <= 100
    time.sleep(0.3)
    assert r.exists("l") == 0


def test_blpop_serves_waiters_in_arrival_order(server, r):
    clients = [redis.Redis(port=server.resp_port, socket_timeout=10) for _ in range(3)]
    got = [None] * 3
    threads = []
    for i, c in enumerate(clients):
        t = threading.Thread(target=lambda i=i, c=c: got.__setitem__(i, c.blpop(["q1", "q2"], 5)))
        t.start()
        threads.append(t)
        time.sleep(0.15)  # arrival order
    r.rpush("q2", "first", "second", "third")
    for t in threads:
        t.join(10)
    assert got == [(b"q2", b"first"), (b"q2", b"second"), (b"q2", b"third")]
    for c in clients:
        c.close()


def test_blocking_timeouts_and_moves(server, r, r2):
    started = time.monotonic()
    assert r.blpop(["empty"], 0.2) is None
    assert r.brpop(["empty"], 0.2) is None
    assert r.bzpopmin(["empty"], 0.2) is None
    assert r.brpoplpush("empty", "dst", 0.2) is None
    assert 0.7 < time.monotonic() - started < 5
    with pytest.raises(redis.ResponseError, match="timeout is negative"):
        r.blpop(["q"], -1)

    def later(fn):
        threading.Timer(0.2, fn).start()

    later(lambda: r2.lpush("src", "v"))
    assert r.blmove("src", "dst", 5, "RIGHT", "LEFT") == b"v"
    later(lambda: r2.zadd("zq", {"m": 3, "n": 1}))
    assert r.bzpopmax(["zq"], 5) == (b"zq", b"m", 3.0)
    later(lambda: r2.rpush("bq", "x"))
    assert r.brpop(["bq"], 0) == (b"bq", b"x"), "timeout 0 waits until a push"
    # Inside MULTI a blocking pop answers at once, as timed out.
    p = r.pipeline(transaction=True)
    p.blpop(["nothing"], 10)
    p.rpush("bq", "y")
    p.blpop(["bq"], 10)
    assert p.execute() == [None, 1, (b"bq", b"y")]


def test_blocked_client_that_disconnects_takes_nothing(server, r):
    c = redis.Redis(port=server.resp_port, socket_timeout=0.3)
    with pytest.raises(redis.TimeoutError):
        c.blpop(["gone"], 5)
    c.close()
    time.sleep(0.1)
    r.rpush("gone", "kept")
    time.sleep(0.2)
    assert r.lrange("gone", 0, -1) == [b"kept"]


def test_watch_and_multi_with_collections(r, r2):
    r.hset("acct", mapping={"balance": "10"})
    with r.pipeline() as p:
        p.watch("acct")
        balance = int(p.hget("acct", "balance"))
        r2.hincrby("acct", "balance", 1)  # another client changes it
        p.multi()
        p.hset("acct", "balance", balance - 5)
        with pytest.raises(redis.WatchError):
            p.execute()
    assert r.hget("acct", "balance") == b"11"
    p = r.pipeline(transaction=True)
    p.lpush("jobs", "a", "b").sadd("seen", "a").zadd("rank", {"a": 1}).hincrby("acct", "n", 2)
    p.lrange("jobs", 0, -1).zrange("rank", 0, -1, withscores=True)
    assert p.execute() == [2, 1, 1, 2, [b"b", b"a"], [(b"a", 1.0)]]


def test_command_table_lists_the_types(r):
    info = r.command()
    for name, arity in [("hset", -4), ("blpop", -3), ("zadd", -4), ("sintercard", -3),
                        ("lmove", 5), ("zrangestore", -5), ("copy", -3)]:
        assert info[name]["arity"] == arity, name
    assert "blocking" in info["blpop"]["flags"]
    assert info["zadd"]["first_key_pos"] == 1


# --- a random-operation model per type, with restarts in each placement ---

def stream_step(rng, r, key, model):
    """A burst of XADDs, an XDEL of a held entry or an exact XTRIM on a
    stream (a model of (id, value) pairs; streams are kept when empty)."""
    entries = model.setdefault(key, [])
    op = rng.random()
    if op < 0.8:
        for _ in range(rng.randrange(1, 9)):
            value = str(rng.randrange(1000))
            entries.append((r.xadd(key, {"n": value}).decode(), value))
    elif op < 0.95 and entries:
        at = rng.randrange(len(entries))
        assert r.xdel(key, entries[at][0]) == 1
        del entries[at]
    elif entries:
        keep = rng.randrange(len(entries) // 2, len(entries) + 1)
        assert r.xtrim(key, maxlen=keep, approximate=False) == len(entries) - keep
        del entries[:len(entries) - keep]


def model_step(rng, r, model):
    """One random operation on one of a few keys of each type, checked."""
    kind = rng.choice(["hash", "list", "set", "zset", "stream"])
    key = f"{kind}:{rng.randrange(4 if kind != 'stream' else 2)}"
    member = f"m{rng.randrange(12)}"
    if kind == "stream":
        stream_step(rng, r, key, model)
        return
    if kind == "hash":
        h = model.setdefault(key, {})
        if rng.random() < 0.7:
            value = str(rng.randrange(1000))
            assert r.hset(key, member, value) == (member not in h)
            h[member] = value
        else:
            assert r.hdel(key, member) == int(h.pop(member, None) is not None)
    elif kind == "list":
        lst = model.setdefault(key, [])
        op = rng.random()
        if op < 0.4:
            assert r.rpush(key, member) == len(lst) + 1
            lst.append(member)
        elif op < 0.6:
            assert r.lpush(key, member) == len(lst) + 1
            lst.insert(0, member)
        elif op < 0.8:
            assert r.lpop(key) == (lst.pop(0).encode() if lst else None)
        else:
            assert r.rpop(key) == (lst.pop().encode() if lst else None)
    elif kind == "set":
        s = model.setdefault(key, set())
        if rng.random() < 0.6:
            assert r.sadd(key, member) == int(member not in s)
            s.add(member)
        else:
            assert r.srem(key, member) == int(member in s)
            s.discard(member)
    else:
        z = model.setdefault(key, {})
        if rng.random() < 0.6:
            score = rng.randrange(-5, 5) / 2
            assert r.zadd(key, {member: score}) == int(member not in z)
            z[member] = score
        elif rng.random() < 0.5:
            assert r.zrem(key, member) == int(z.pop(member, None) is not None)
        else:
            popped = r.zpopmin(key)
            want = sorted(z.items(), key=lambda e: (e[1], e[0]))[:1]
            assert popped == [(m.encode(), s) for m, s in want]
            for m, _ in want:
                del z[m]
    if not model[key]:
        del model[key]


def check_model(r, model):
    for key in [f"{k}:{i}" for k in ["hash", "list", "set", "zset", "stream"] for i in range(4)]:
        want = model.get(key)
        kind = key.split(":")[0]
        if kind == "stream":
            if want is None:
                assert r.exists(key) == 0, key
                continue
            got = [(i.decode(), f[b"n"].decode()) for i, f in r.xrange(key)]
            assert got == want, key
            assert r.xlen(key) == len(want)
            assert r.type(key) == b"stream"
            continue
        if want is None:
            assert r.exists(key) == 0, key
        elif kind == "hash":
            assert r.hgetall(key) == {k.encode(): v.encode() for k, v in want.items()}, key
        elif kind == "list":
            assert r.lrange(key, 0, -1) == [m.encode() for m in want], key
        elif kind == "set":
            assert r.smembers(key) == {m.encode() for m in want}, key
        else:
            ordered = sorted(want.items(), key=lambda e: (e[1], e[0]))
            assert r.zrange(key, 0, -1, withscores=True) == [(m.encode(), s) for m, s in ordered]
        if want is not None:
            assert r.type(key) == kind.encode()


@pytest.fixture
def dirs():
    disk = tempfile.mkdtemp(prefix="strata-e2e-coll-", dir="/var/tmp")
    shm = tempfile.mkdtemp(prefix="strata-e2e-coll-pmem-", dir="/dev/shm")
    yield disk, shm
    shutil.rmtree(disk, ignore_errors=True)
    shutil.rmtree(shm, ignore_errors=True)


PLACEMENTS = {
    # The command log, killed with SIGKILL: every acknowledged change is back.
    "log-sync": lambda disk, shm: ["--persistence", "sync"],
    # Records in persistent memory (emulated on tmpfs), no log.
    "pmem": lambda disk, shm: ["--index", "pmem", "--data", "pmem",
                               "--pmem-path", f"{shm}/arena.pmem", "--pmem-size", "64mb"],
    # Records on the SSD tier (stopped cleanly: the tier flushes on its interval).
    "ssd": lambda disk, shm: ["--data", "ssd", "--ssd-path", f"{disk}/ssd", "--ssd-size", "64mb",
                              "--ssd-block-size", "64kb", "--ssd-io", "buffered",
                              "--dram-cache-size", "262144", "--ssd-flush-interval", "20ms"],
}


@pytest.mark.strata_only
@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
def test_model_with_restarts(dirs, placement):
    disk, shm = dirs
    args = PLACEMENTS[placement](disk, shm) + ["--data-dir", disk]
    rng = random.Random(f"collections-{placement}")
    model = {}
    for cycle in range(3):
        srv = StrataProcess(*args)
        try:
            r = redis.Redis(port=srv.resp_port, socket_timeout=10)
            check_model(r, model)
            # Hashes cross into the large encoding (chunk records) and
            # back out by deletion, streams past 100 entries into theirs:
            # both are carried across the restarts.
            r.config_set("hash-max-listpack-entries", 4)
            r.config_set("set-max-listpack-entries", 4)
            for _ in range(300):
                model_step(rng, r, model)
            check_model(r, model)
            if placement == "log-sync" and cycle == 1:
                assert r.bgsave()
                time.sleep(0.5)  # a checkpoint, then more log after it
                for _ in range(100):
                    model_step(rng, r, model)
            r.close()
        finally:
            if placement in ("log-sync", "pmem"):
                srv.kill()  # SIGKILL: what was acknowledged must come back
            code = srv.stop()
            assert placement != "ssd" or code == 0, srv.log()
    # Some stream grew past one node (100 entries): its chunks came back.
    assert max(len(model.get(f"stream:{i}", [])) for i in range(2)) > 100
    srv = StrataProcess(*args)
    try:
        check_model(redis.Redis(port=srv.resp_port, socket_timeout=10), model)
    finally:
        srv.stop()


@pytest.mark.strata_only
def test_collections_count_in_used_memory_and_are_evicted_whole(strata_factory):
    """Cache mode at a small limit: collections count in used_memory, the
    limit holds, and eviction takes a whole collection, never part of one;
    store mode refuses a growing collection with Redis's OOM error."""
    srv = strata_factory("--memory-limit", "4mb", "--eviction", "on")
    r = redis.Redis(port=srv.resp_port, socket_timeout=10)
    before = r.info("memory")["used_memory"]
    fields = {f"field{i}": "v" * 40 for i in range(10)}
    for i in range(50):
        r.hset(f"small:{i}", mapping=fields)
    grown = r.info("memory")["used_memory"] - before
    assert grown > 50 * 10 * 40, "the hashes' bytes are counted"
    n = 16000  # about 500 bytes each: twice the limit
    for i in range(n):
        r.hset(f"h:{i}", mapping=fields)
    info = r.info()
    assert info["used_memory"] <= 4 * 1024 * 1024 * 1.1
    assert info["evicted_keys"] > 0
    kept = 0
    for i in range(n):
        h = r.hgetall(f"h:{i}")
        if h:
            kept += 1
            assert len(h) == 10, "a hash is evicted whole or not at all"
    assert 0 < kept < n

    store = strata_factory("--memory-limit", "2mb", "--eviction", "off")
    s = redis.Redis(port=store.resp_port, socket_timeout=10)
    with pytest.raises(redis.exceptions.OutOfMemoryError, match="used memory"):
        for i in range(100_000):
            s.hset(f"big:{i % 4000}", f"f{i}", "x" * 100)
    assert s.ping()


@pytest.mark.strata_only
def test_huge_counts_and_ranges_are_bounded(r):
    r.hset("h", "f", "v")
    r.sadd("s", "m")
    r.zadd("z", {"m": 1})
    r.rpush("l", "a", "b")
    with pytest.raises(redis.ResponseError, match="out of range"):
        r.hrandfield("h", -(1 << 40))
    with pytest.raises(redis.ResponseError, match="out of range"):
        r.srandmember("s", -(1 << 40))
    assert r.hrandfield("h", 1 << 40) == [b"f"]
    assert r.spop("s", 1 << 40) == [b"m"]
    assert r.lrange("l", -(1 << 62), 1 << 62) == [b"a", b"b"]
    assert r.lpos("l", "b", count=1 << 40, maxlen=1 << 40) == [1]
    assert r.zrange("z", 0, -1, byscore=False) == [b"m"]
    assert r.zrangebyscore("z", "-inf", "+inf", start=1 << 40, num=1 << 40) == []
    assert r.ltrim("l", 1 << 62, -(1 << 62)) and r.exists("l") == 0
    with pytest.raises(redis.ResponseError, match="not an integer"):
        r.execute_command("LRANGE", "l", "0", "99999999999999999999999")


@pytest.mark.strata_only
def test_object_encoding(r):
    r.set("i", 12)
    r.set("s", "short")
    r.set("long", "x" * 100)
    r.hset("h", "f", "v")
    r.zadd("z", {"m": 1})
    assert [r.object("encoding", k) for k in ["i", "s", "long", "h", "z"]] == [
        b"int", b"embstr", b"raw", b"listpack", b"listpack"]
    assert r.object("encoding", "missing") is None
    r.config_set("hash-max-listpack-entries", 2)
    try:
        r.hset("big", mapping={"a": 1, "b": 2, "c": 3})
        r.hset("wide", "f", "v" * 65)
        assert r.object("encoding", "big") == b"hashtable"
        assert r.object("encoding", "wide") == b"hashtable"
        assert r.hgetall("big") == {b"a": b"1", b"b": b"2", b"c": b"3"}
        r.hdel("big", "a", "b")
        assert r.object("encoding", "big") == b"hashtable", "stays until deleted"
    finally:
        r.config_set("hash-max-listpack-entries", 128)
    r.sadd("ints", 1, 2, 3)
    r.sadd("words", "a", 2)
    assert r.object("encoding", "ints") == b"intset"
    assert r.object("encoding", "words") == b"listpack"
    r.config_set("set-max-intset-entries", 3)
    r.config_set("set-max-listpack-entries", 2)
    try:
        r.sadd("ints", 4)
        r.sadd("words", "c")
        assert r.object("encoding", "ints") == b"hashtable"
        assert r.object("encoding", "words") == b"hashtable"
        assert r.smembers("ints") == {b"1", b"2", b"3", b"4"}
        cursor, seen = 0, set()
        while True:
            cursor, part = r.sscan("words", cursor, count=1)
            seen.update(part)
            if cursor == 0:
                break
        assert seen == {b"a", b"2", b"c"}
        assert r.spop("words", 3) and r.exists("words") == 0
    finally:
        r.config_set("set-max-intset-entries", 512)
        r.config_set("set-max-listpack-entries", 128)
    assert r.object("refcount", "h") == 1
    with pytest.raises(redis.ResponseError, match="LFU"):
        r.object("freq", "h")
