"""The SSD data tier (`--data ssd`) with real clients: redis-py and
pymemcache store ten times the DRAM record cache, every value reads back
exactly (pipelined and one by one, through both ports), read-modify-write
commands (APPEND, INCR, GETSET, memcached append/incr/cas/touch) work on
values that are only on the SSD, deletes stay deleted across a SIGTERM
restart and a SIGKILL restart (after the flush interval), and INFO tiers
reports the tier. Each test runs with the index in DRAM (rebuilt by
scanning the SSD at start) and in persistent memory (a file here, adopted
at start)."""

import shutil
import tempfile
import time

import pymemcache.client.base
import pytest
import redis

from conftest import StrataProcess

pytestmark = pytest.mark.strata_only

CACHE = 256 * 1024


@pytest.fixture(params=["dram", "pmem"])
def data_dir(request):
    """A directory for the SSD file, one on tmpfs for the arena (persistent
    memory is emulated on tmpfs: on a disk filesystem every persist waits
    for the disk), and the index tier."""
    path = tempfile.mkdtemp(prefix="strata-e2e-ssd-", dir="/var/tmp")
    pmem = tempfile.mkdtemp(prefix="strata-e2e-pmem-", dir="/dev/shm")
    yield path, request.param, pmem
    shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(pmem, ignore_errors=True)


def start(data_dir):
    path, index, pmem = data_dir
    placed = ["--index", index]
    if index == "pmem":
        placed += ["--pmem-path", f"{pmem}/index.pmem", "--pmem-size", "64mb"]
    return StrataProcess(
        "--data", "ssd", "--ssd-path", f"{path}/ssd", "--ssd-size", "64mb",
        "--ssd-block-size", "64kb", "--ssd-io", "buffered",
        "--dram-cache-size", str(CACHE), "--ssd-flush-interval", "20ms",
        "--data-dir", path, *placed,
    )


def clients(srv):
    r = redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=10)
    mc = pymemcache.client.base.Client(("127.0.0.1", srv.memcache_port), timeout=10)
    return r, mc


def value(i):
    return (f"v{i}:" * 200)[: 700 + i % 300].encode()


def test_data_ten_times_the_cache_and_read_modify_write(data_dir):
    srv = start(data_dir)
    try:
        r, mc = clients(srv)
        n = 4000  # ~3.4 MB of values: 13x the record cache
        r.set("counter", 41)  # written first: out of DRAM after the load
        pipe = r.pipeline(transaction=False)
        for i in range(n):
            pipe.set(f"k{i}", value(i))
        pipe.execute()
        # Pipelined reads: many values fetched from the SSD at once.
        got = r.mget([f"k{i}" for i in range(n)])
        assert got == [value(i) for i in range(n)]
        for i in range(0, n, 97):
            assert r.get(f"k{i}") == value(i)
            assert mc.get(f"k{i}") == value(i)
        info = r.info("tiers")
        assert info["tier_data"] == "ssd"
        assert info["tier_index"] == data_dir[1]
        assert info["tier_ssd_items"] == n + 1  # and the counter
        assert info["tier_ssd_device_reads"] > 0
        assert info["tier_ssd_cache_bytes"] <= CACHE
        # Read-modify-write on values only the SSD holds.
        assert r.append("k1", b"+tail") == len(value(1)) + 5
        assert r.get("k1") == value(1) + b"+tail"
        assert r.incr("counter") == 42
        # A record larger than an SSD block can hold is refused as too large.
        with pytest.raises(redis.exceptions.ResponseError, match="exceeds maximum allowed size"):
            r.set("huge", b"x" * 200_000)
        assert r.getset("k2", "new") == value(2)
        assert r.get("k2") == b"new"
        assert mc.append("k3", b"!", noreply=False) is True
        assert mc.get("k3") == value(3) + b"!"
        val, cas = mc.gets("k4")
        assert val == value(4)
        assert mc.cas("k4", b"swapped", cas) is True
        assert mc.get("k4") == b"swapped"
        assert mc.touch("k5", 1000, noreply=False) is True
        assert r.ttl("k5") > 900
        assert r.get("k5") == value(5)
        # memcached meta append on a value only the SSD has: the deferred
        # first attempt must change nothing (no delete), the retry appends.
        # It counts as one set in `stats`, not one per attempt.
        import socket
        sets = int(mc.stats()[b"cmd_set"])
        with socket.create_connection(("127.0.0.1", srv.memcache_port), timeout=10) as raw:
            raw.sendall(b"ms k6 1 MA\r\n!\r\nmn\r\n")
            reply = b""
            while not reply.endswith(b"MN\r\n"):
                reply += raw.recv(100)
            assert reply == b"HD\r\nMN\r\n"
        assert int(mc.stats()[b"cmd_set"]) == sets + 1
        assert r.get("k6") == value(6) + b"!"
        # A plain SET of a cold key reads nothing.
        reads = r.info("tiers")["tier_ssd_device_reads"]
        r.set("k7", b"blind")
        assert r.info("tiers")["tier_ssd_device_reads"] == reads
        # EXISTS, TYPE and TTL answer from DRAM (no value is read).
        reads = r.info("tiers")["tier_ssd_device_reads"]
        assert r.exists(*[f"k{i}" for i in range(100, 600)]) == 500
        assert r.type("k700") == b"string"
        assert r.ttl("k800") == -1
        assert r.info("tiers")["tier_ssd_device_reads"] == reads
        # SCAN and KEYS see every key without reading values.
        assert len(r.keys("k*")) == n
        assert sum(1 for _ in r.scan_iter(match="k1*", count=500)) == sum(
            1 for i in range(n) if str(i).startswith("1"))
        r.close()
        mc.close()
    finally:
        assert srv.stop() == 0, srv.log()


def test_deletes_stay_deleted_across_restarts(data_dir):
    srv = start(data_dir)
    try:
        r, mc = clients(srv)
        for i in range(2000):
            r.set(f"k{i}", value(i))
        r.delete(*[f"k{i}" for i in range(0, 2000, 2)])
        assert mc.delete("k1", noreply=False) is True
        r.set("k3", b"rewritten")
        r.expire("k5", 1000)
        r.close()
        mc.close()
    finally:
        assert srv.stop() == 0, srv.log()  # SIGTERM: flushed on the way out

    srv = start(data_dir)
    try:
        r, mc = clients(srv)
        info = r.info("tiers")
        assert info["tier_ssd_rebuild_items"] == 999
        assert info["tier_ssd_start"] == ("adopted" if data_dir[1] == "pmem" else "rebuilt")
        for i in range(2000):
            want = None if i % 2 == 0 or i == 1 else value(i)
            if i == 3:
                want = b"rewritten"
            assert r.get(f"k{i}") == want, i
        assert r.ttl("k5") > 900
        r.flushall()
        r.set("after-flush", "yes")
        time.sleep(0.5)  # several flush intervals
        r.close()
        mc.close()
    finally:
        srv.kill()  # SIGKILL: only what the periodic flush wrote survives
        shutil.rmtree(srv.data_dir, ignore_errors=True)

    srv = start(data_dir)
    try:
        r, _ = clients(srv)
        assert r.dbsize() == 1
        assert r.get("after-flush") == b"yes"
        r.close()
    finally:
        assert srv.stop() == 0, srv.log()
