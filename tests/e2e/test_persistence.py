"""Persistence with real clients: redis-py's SAVE, BGSAVE, LASTSAVE and
INFO persistence, pymemcache's stats, and a restart (SIGTERM and SIGKILL)
on the same data directory that keeps writes and deletes from both ports."""

import shutil
import tempfile
import time

import pymemcache.client.base
import pytest
import redis

from conftest import StrataProcess

pytestmark = pytest.mark.strata_only


@pytest.fixture
def data_dir():
    path = tempfile.mkdtemp(prefix="strata-e2e-persist-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def clients(srv):
    r = redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=10)
    mc = pymemcache.client.base.Client(("127.0.0.1", srv.memcache_port), timeout=10)
    return r, mc


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_restart_keeps_writes_and_deletes(data_dir, mode):
    srv = StrataProcess("--persistence", mode, "--data-dir", data_dir)
    try:
        r, mc = clients(srv)
        r.mset({"a": "1", "b": "2", "gone": "x"})
        r.incrby("counter", 41)
        r.incr("counter")
        r.set("ttl", "v", ex=1000)
        r.delete("gone")
        mc.set("mkey", b"mval", expire=0)
        assert r.save() is True
        r.set("after-save", "yes")
        r.rename("b", "b2")
        info = r.info("persistence")
        assert info["aof_enabled"] == 1
        assert info["strata_persistence"] == mode
        assert r.config_get("appendonly") == {"appendonly": "yes"}
        assert info["rdb_saves"] >= 1
        assert r.lastsave().timestamp() > time.time() - 60
        stats = mc.stats()
        assert stats[b"persistence"] == mode.encode()
        r.close()
        mc.close()
    finally:
        assert srv.stop() == 0, srv.log()  # SIGTERM: a clean shutdown

    srv = StrataProcess("--persistence", mode, "--data-dir", data_dir)
    try:
        r, mc = clients(srv)
        assert r.mget("a", "b", "b2", "gone", "counter", "after-save") == [
            b"1", None, b"2", None, b"42", b"yes"]
        assert 0 < r.ttl("ttl") <= 1000
        assert mc.get("mkey") == b"mval"
        r.set("last", "1")
        r.close()
        mc.close()
    finally:
        srv.kill()  # SIGKILL: only sync mode promises "last" survives
        shutil.rmtree(srv.data_dir, ignore_errors=True)

    srv = StrataProcess("--persistence", mode, "--data-dir", data_dir)
    try:
        r, _ = clients(srv)
        if mode == "sync":
            assert r.get("last") == b"1"
        assert r.get("a") == b"1"
        info = r.info("persistence")
        assert info["loading"] == 0
        assert info["strata_recovery_snapshot_items"] + info["strata_recovery_records"] > 0
        r.close()
    finally:
        srv.stop()


def test_bgsave_reports_progress_and_completion(data_dir):
    srv = StrataProcess("--persistence", "async", "--data-dir", data_dir)
    try:
        r, _ = clients(srv)
        r.mset({f"k{i}": "v" * 50 for i in range(5000)})
        assert r.bgsave() is True
        deadline = time.monotonic() + 10
        while r.info("persistence")["rdb_bgsave_in_progress"] == 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        info = r.info("persistence")
        assert info["rdb_last_bgsave_status"] == "ok"
        assert info["strata_snapshot_items"] == 5000
        r.close()
    finally:
        srv.stop()
