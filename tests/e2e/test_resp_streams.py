"""Redis streams through redis-py: entries, trimming, blocking reads,
consumer groups (delivery, acknowledgement, pending lists, claiming),
XINFO, and streams kept across a checkpoint and a kill -9 (the suite also
runs against a real redis-server with STRATA_E2E_PEERS=1)."""

import shutil
import tempfile
import threading
import time

import pytest
import redis

from conftest import StrataProcess


def test_entries_ranges_and_trims(r):
    ids = [r.xadd("s", {"n": i}, id=f"{i}-1") for i in range(1, 6)]
    assert ids == [b"1-1", b"2-1", b"3-1", b"4-1", b"5-1"]
    assert r.xlen("s") == 5
    assert r.xrange("s", min="2", max="3") == [(b"2-1", {b"n": b"2"}), (b"3-1", {b"n": b"3"})]
    assert [e[0] for e in r.xrevrange("s", count=2)] == [b"5-1", b"4-1"]
    assert r.xrange("s", min="(4-1") == [(b"5-1", {b"n": b"5"})]
    assert r.xdel("s", "2-1", "9-9") == 1
    assert r.xtrim("s", maxlen=2) == 0  # redis-py trims with ~: one node stays whole
    assert r.xtrim("s", maxlen=2, approximate=False) == 2
    assert [e[0] for e in r.xrange("s")] == [b"4-1", b"5-1"]
    assert r.xtrim("s", minid="5", approximate=False) == 1
    r.xadd("s", {"n": 6}, id="6-*")
    assert r.xrange("s", min="6") == [(b"6-0", {b"n": b"6"})]
    with pytest.raises(redis.ResponseError, match="equal or smaller"):
        r.xadd("s", {"n": 0}, id="1-1")
    # An approximate cap keeps whole nodes of 100 entries.
    for i in range(250):
        r.xadd("capped", {"i": i}, maxlen=120, approximate=True)
    assert r.xlen("capped") == 150
    assert r.xadd("none", {"a": 1}, nomkstream=True) is None
    assert r.type("s") == b"stream"


def test_xread_blocks_until_an_entry_comes(r, r2):
    r.xadd("events", {"old": 1}, id="1-0")
    got = {}

    def reader():
        got["reply"] = r2.xread({"events": "$"}, block=5000)

    t = threading.Thread(target=reader)
    t.start()
    time.sleep(0.3)
    r.xadd("events", {"new": 2}, id="2-0")
    t.join(10)
    assert got["reply"] == [[b"events", [(b"2-0", {b"new": b"2"})]]]
    assert r.xread({"events": "2-0"}, block=100) == []


def test_consumer_groups_deliver_ack_and_claim(r):
    for i in range(1, 5):
        r.xadd("jobs", {"job": i}, id=f"{i}-0")
    assert r.xgroup_create("jobs", "workers", id="0") is True
    with pytest.raises(redis.ResponseError, match="BUSYGROUP"):
        r.xgroup_create("jobs", "workers", id="0")
    got = r.xreadgroup("workers", "alice", {"jobs": ">"}, count=3)
    assert [e[0] for e in got[0][1]] == [b"1-0", b"2-0", b"3-0"]
    assert r.xack("jobs", "workers", "1-0", "7-0") == 1
    summary = r.xpending("jobs", "workers")
    assert summary["pending"] == 2
    assert summary["min"] == b"2-0" and summary["max"] == b"3-0"
    assert summary["consumers"] == [{"name": b"alice", "pending": 2}]
    detail = r.xpending_range("jobs", "workers", min="-", max="+", count=10)
    assert [(p["message_id"], p["consumer"], p["times_delivered"]) for p in detail] == [
        (b"2-0", b"alice", 1), (b"3-0", b"alice", 1)]
    time.sleep(0.05)
    claimed = r.xclaim("jobs", "workers", "bob", min_idle_time=10, message_ids=["2-0"])
    assert claimed == [(b"2-0", {b"job": b"2"})]
    cursor, entries, deleted = r.xautoclaim("jobs", "workers", "bob", min_idle_time=0,
                                            start_id="0-0", count=10)
    assert cursor == b"0-0"
    assert [e[0] for e in entries] == [b"2-0", b"3-0"]
    assert deleted == []
    groups = r.xinfo_groups("jobs")
    assert len(groups) == 1
    assert groups[0]["name"] == b"workers"
    assert groups[0]["pending"] == 2
    assert groups[0]["last-delivered-id"] == b"3-0"
    assert groups[0]["lag"] == 1
    consumers = {c["name"]: c for c in r.xinfo_consumers("jobs", "workers")}
    assert consumers[b"alice"]["pending"] == 0
    assert consumers[b"bob"]["pending"] == 2
    info = r.xinfo_stream("jobs")
    assert info["length"] == 4
    assert info["groups"] == 1
    assert info["first-entry"] == (b"1-0", {b"job": b"1"})
    assert info["last-entry"] == (b"4-0", {b"job": b"4"})
    assert r.xgroup_delconsumer("jobs", "workers", "bob") == 2
    assert r.xgroup_destroy("jobs", "workers") == 1


def test_a_blocked_consumer_gets_the_next_job(r, r2):
    r.xgroup_create("q", "g", id="$", mkstream=True)
    got = {}

    def consumer():
        got["reply"] = r2.xreadgroup("g", "c1", {"q": ">"}, block=5000, count=1)

    t = threading.Thread(target=consumer)
    t.start()
    time.sleep(0.3)
    r.xadd("q", {"job": "x"}, id="10-0")
    t.join(10)
    assert got["reply"] == [[b"q", [(b"10-0", {b"job": b"x"})]]]
    assert r.xpending("q", "g")["pending"] == 1


@pytest.mark.strata_only
def test_streams_survive_a_checkpoint_and_a_kill():
    data_dir = tempfile.mkdtemp(prefix="strata-e2e-streams-")
    try:
        srv = StrataProcess("--persistence", "sync", "--data-dir", data_dir)
        try:
            r = redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=10)
            for i in range(1, 301):
                r.xadd("log", {"i": i, "payload": "x" * (i % 7)}, id=f"{i}-0")
            r.xgroup_create("log", "g", id="0")
            r.xreadgroup("g", "c", {"log": ">"}, count=5)
            assert r.save() is True
            r.xadd("log", {"i": 301}, id="301-0")
            r.xack("log", "g", "1-0", "2-0")
            r.xdel("log", "150-0")
            want = (r.xrange("log"), r.xpending_range("log", "g", "-", "+", 10))
            r.close()
        finally:
            srv.kill()
        srv = StrataProcess("--persistence", "sync", "--data-dir", data_dir)
        try:
            r = redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=10)
            got = (r.xrange("log"), r.xpending_range("log", "g", "-", "+", 10))
            assert [e[0] for e in got[0]] == [e[0] for e in want[0]]
            assert got[0] == want[0]
            assert [p["message_id"] for p in got[1]] == [b"3-0", b"4-0", b"5-0"]
            assert r.xinfo_stream("log")["entries-added"] == 301
            r.close()
        finally:
            assert srv.stop() == 0, srv.log()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.mark.strata_only
def test_large_streams_are_evicted_whole_in_cache_mode(strata_factory):
    """Cache mode at 4 MB: streams of 300 entries (a head and three chunk
    records each) count in used_memory, and eviction takes a stream whole
    or not at all, never some of its nodes."""
    srv = strata_factory("--memory-limit", "4mb", "--eviction", "on")
    r = redis.Redis(port=srv.resp_port, socket_timeout=10)
    n, per = 600, 300  # about 12 MB of entries: three times the limit
    for i in range(n):
        pipe = r.pipeline(transaction=False)
        for j in range(1, per + 1):
            pipe.xadd(f"s:{i}", {"v": "x" * 20}, id=f"{j}-0")
        pipe.execute()
    info = r.info()
    assert info["used_memory"] <= 4 * 1024 * 1024 * 1.1
    assert info["evicted_keys"] > 0
    kept = 0
    for i in range(n):
        entries = r.xrange(f"s:{i}")
        if entries:
            kept += 1
            # A stream evicted while it was being filled starts again from
            # where the fill was: whole since then (its own entries-added).
            added = r.xinfo_stream(f"s:{i}")["entries-added"]
            want = [f"{j}-0".encode() for j in range(per - added + 1, per + 1)]
            assert [e[0] for e in entries] == want
        assert r.xlen(f"s:{i}") == len(entries)
    assert 0 < kept < n
