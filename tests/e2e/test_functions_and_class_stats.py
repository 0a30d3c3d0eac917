"""Redis functions through redis-py (function_load, fcall, fcall_ro, list,
dump/restore, delete, flush), OBJECT IDLETIME, and memcached's per-class
stats (pymemcache's stats items/slabs, raw `stats cachedump`) and `mg`'s
h/l flags. Also passes against real redis-server 7 and memcached 1.6
(STRATA_E2E_PEERS=1)."""

import time

import pytest
import redis

LIB = """#!lua name=e2elib
redis.register_function('e2e_set', function(keys, args)
  return redis.call('SET', keys[1], args[1])
end)
redis.register_function{
  function_name = 'e2e_get',
  callback = function(keys) return redis.call('GET', keys[1]) end,
  flags = {'no-writes'},
}
"""


def test_functions_with_redis_py(r):
    r.function_flush()
    assert r.function_load(LIB) in (b"e2elib", "e2elib")
    assert r.fcall("e2e_set", 1, "fk", "v1") in (b"OK", True)
    assert r.fcall("e2e_get", 1, "fk") == b"v1"
    assert r.fcall_ro("e2e_get", 1, "fk") == b"v1"
    with pytest.raises(redis.ResponseError, match="write flag"):
        r.fcall_ro("e2e_set", 1, "fk", "v2")
    with pytest.raises(redis.ResponseError, match="already exists"):
        r.function_load(LIB)
    r.function_load(LIB, replace=True)
    listed = r.function_list(withcode=True)
    assert len(listed) == 1
    lib = listed[0]
    as_dict = dict(zip(lib[::2], lib[1::2]))
    assert as_dict[b"library_name"] == b"e2elib"
    assert as_dict[b"library_code"] == LIB.encode()
    names = sorted(dict(zip(f[::2], f[1::2]))[b"name"] for f in as_dict[b"functions"])
    assert names == [b"e2e_get", b"e2e_set"]
    # A dump restores elsewhere after a flush.
    payload = r.function_dump()
    r.function_flush()
    with pytest.raises(redis.ResponseError, match="Function not found"):
        r.fcall("e2e_get", 1, "fk")
    r.function_restore(payload)
    assert r.fcall("e2e_get", 1, "fk") == b"v1"
    # Pipelines and transactions carry FCALL like any command.
    pipe = r.pipeline(transaction=True)
    pipe.fcall("e2e_set", 1, "fk", "v3")
    pipe.fcall("e2e_get", 1, "fk")
    assert pipe.execute()[1] == b"v3"
    assert r.function_delete("e2elib") in (b"OK", True)
    with pytest.raises(redis.ResponseError, match="Library not found"):
        r.function_delete("e2elib")


def test_object_idletime(r):
    r.set("idle", "v")
    time.sleep(2.2)
    assert r.object("idletime", "idle") >= 2
    r.get("idle")
    assert r.object("idletime", "idle") <= 1
    assert r.object("idletime", "missing") is None


def test_mg_hit_before_and_last_access(raw_mc):
    assert raw_mc.request(b"set hl 0 0 1\r\nx\r\n") == b"STORED\r\n"
    assert raw_mc.request(b"mg hl h\r\n") == b"HD h0\r\n"
    assert raw_mc.request(b"mg hl h\r\n") == b"HD h1\r\n"
    time.sleep(2.2)
    line = raw_mc.request(b"mg hl l h\r\n").split()
    assert line[0] == b"HD" and line[2] == b"h1"
    assert int(line[1][1:]) >= 2
    line = raw_mc.request(b"mg hl l\r\n").split()
    assert int(line[1][1:]) <= 1


def test_stats_items_slabs_and_cachedump(mc, raw_mc):
    value = b"v" * 1000
    for i in range(30):
        mc.set(f"cd{i}", value)
    mc.set("cdsmall", b"x")
    items = mc.stats("items")
    numbers = {k.decode().split(":")[1]: int(v) for k, v in items.items()
               if k.decode().endswith(":number")}
    assert sum(numbers.values()) == 31
    slabs = mc.stats("slabs")
    assert int(slabs[b"active_slabs"]) == len(numbers)
    for cls in numbers:
        assert int(slabs[f"{cls}:chunk_size".encode()]) > 0
    seen = set()
    for cls in numbers:
        dump = raw_mc.request(b"stats cachedump %s 0\r\n" % cls.encode(), b"END\r\n")
        for line in dump.split(b"\r\n"):
            if line.startswith(b"ITEM "):
                seen.add(line.split()[1])
    assert {f"cd{i}".encode() for i in range(30)} <= seen
    assert raw_mc.request(b"stats cachedump 1 1 \r\n", b"END\r\n").count(b"ITEM ") <= 1
    assert raw_mc.request(b"stats cachedump 1\r\n") == b"CLIENT_ERROR bad command line\r\n"
