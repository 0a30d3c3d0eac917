"""RESP server commands: INFO, CONFIG, CLIENT, AUTH, HELLO."""

import pytest
import redis


def test_info_parses_with_redis_py(r):
    r.mset({"a": "1", "b": "2"})
    r.get("a")
    r.get("missing")
    info = r.info()
    assert "redis_version" in info
    assert info["uptime_in_seconds"] >= 0
    assert info["connected_clients"] >= 1
    assert info["used_memory"] > 0
    assert info["db0"]["keys"] == 2
    stats = r.info("stats")
    assert stats["keyspace_hits"] >= 1
    assert stats["keyspace_misses"] >= 1
    assert stats["total_connections_received"] >= 1
    assert "maxmemory" in r.info("memory")
    assert "db0" in r.info("keyspace")


def test_info_memory_reports_the_allocator(r):
    """Redis's allocator fields: live bytes within active pages within
    resident ones, the ratios between them, and the allocator's name."""
    r.set("big", "x" * 100_000)
    mem = r.info("memory")
    allocated, active, resident = (
        mem["allocator_allocated"], mem["allocator_active"], mem["allocator_resident"])
    assert 100_000 < allocated <= active <= resident
    assert mem["allocator_frag_bytes"] == active - allocated
    assert mem["allocator_frag_ratio"] == pytest.approx(active / allocated, abs=0.01)
    assert mem["allocator_rss_ratio"] == pytest.approx(resident / active, abs=0.01)
    assert mem["allocator_rss_bytes"] == resident - active
    assert "rss_overhead_ratio" in mem
    assert str(mem["mem_allocator"]).startswith("jemalloc-")


def test_config_get_reports_the_limits(r):
    maxmemory = r.config_get("maxmemory")
    assert int(maxmemory["maxmemory"]) == 64 * 1024 * 1024
    assert int(r.config_get("maxclients")["maxclients"]) >= 1
    policy = r.config_get("maxmemory-policy")["maxmemory-policy"]
    assert policy in {"allkeys-lru", "noeviction", "clock"}


def test_config_set_maxclients_round_trips(r):
    old = r.config_get("maxclients")["maxclients"]
    try:
        assert r.config_set("maxclients", 5000) is True
        assert r.config_get("maxclients")["maxclients"] == "5000"
    finally:
        r.config_set("maxclients", old)


def test_client_name_and_list(r):
    assert r.client_setname("e2e-client") is True
    assert r.client_getname() == "e2e-client"
    names = [c.get("name") for c in r.client_list()]
    assert "e2e-client" in names
    assert isinstance(r.client_id(), int)


def test_select_zero_is_accepted(r):
    assert r.execute_command("SELECT", 0) in (True, b"OK")


def test_requirepass_guards_commands(strata_factory):
    srv = strata_factory("--requirepass", "s3cret", "--no-memcache")
    anonymous = redis.Redis(port=srv.resp_port, socket_timeout=10)
    with pytest.raises(redis.AuthenticationError):
        anonymous.get("k")
    authed = redis.Redis(port=srv.resp_port, password="s3cret", socket_timeout=10)
    assert authed.set("k", "v") is True
    assert authed.get("k") == b"v"
    wrong = redis.Redis(port=srv.resp_port, password="nope", socket_timeout=10)
    with pytest.raises(redis.AuthenticationError):
        wrong.ping()


def test_hello_2_reports_the_server(r):
    hello = r.execute_command("HELLO", "2")
    fields = dict(zip(hello[::2], hello[1::2]))
    assert fields[b"proto"] == 2
