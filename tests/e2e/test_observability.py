"""SLOWLOG and INFO commandstats/latencystats through redis-py, which
parses slow log entries and INFO's `k=v,...` values itself (also run
against a real redis-server with STRATA_E2E_PEERS=1)."""

import pytest


@pytest.fixture
def logging_everything(r):
    """The slow log logs every command during the test, then is restored."""
    old = r.config_get("slowlog-*")
    r.config_set("slowlog-log-slower-than", 0)
    r.config_set("slowlog-max-len", 128)
    r.slowlog_reset()
    yield r
    r.config_set("slowlog-log-slower-than", old["slowlog-log-slower-than"])
    r.config_set("slowlog-max-len", old["slowlog-max-len"])
    r.slowlog_reset()


def test_slowlog_get_entries_parse(logging_everything):
    r = logging_everything
    r.client_setname("e2e-slow")
    r.set("slow:key", "x" * 300)
    entries = r.slowlog_get(2)
    assert len(entries) == 2
    newest, older = entries
    assert newest["id"] > older["id"]
    assert newest["duration"] >= 0
    assert newest["start_time"] > 1_600_000_000
    args = newest["command"].split(b" ") if isinstance(newest["command"], bytes) else newest["command"].split(" ")
    assert [a if isinstance(a, str) else a.decode() for a in args[:2]] == ["SET", "slow:key"]
    command = newest["command"].decode() if isinstance(newest["command"], bytes) else newest["command"]
    assert command.endswith("... (172 more bytes)")
    client_name = newest["client_name"]
    client_name = client_name.decode() if isinstance(client_name, bytes) else client_name
    assert client_name == "e2e-slow"
    address = newest["client_address"]
    address = address.decode() if isinstance(address, bytes) else address
    assert address.startswith("127.0.0.1:")
    assert r.slowlog_len() >= 3
    assert r.slowlog_reset()
    # The RESET itself is the one entry left.
    assert r.slowlog_len() == 1


def test_slowlog_max_len_and_off(logging_everything):
    r = logging_everything
    r.config_set("slowlog-max-len", 3)
    for _ in range(10):
        r.ping()
    assert r.slowlog_len() == 3
    r.config_set("slowlog-log-slower-than", -1)
    r.slowlog_reset()
    r.ping()
    assert r.slowlog_len() == 0
    assert r.config_get("slowlog-max-len") == {"slowlog-max-len": "3"}


def test_info_commandstats_counts_calls(r):
    def stats(name):
        info = r.info("commandstats")
        return info.get(f"cmdstat_{name}", {"calls": 0, "failed_calls": 0, "rejected_calls": 0})

    before_get, before_incr = stats("get"), stats("incr")
    r.set("cs:num", "abc")
    for _ in range(6):
        r.get("cs:num")
    with pytest.raises(Exception):
        r.execute_command("INCR", "cs:num")
    with pytest.raises(Exception):
        r.execute_command("GET")
    after_get, after_incr = stats("get"), stats("incr")
    assert after_get["calls"] - before_get["calls"] == 6
    assert after_get["rejected_calls"] - before_get["rejected_calls"] == 1
    assert after_incr["failed_calls"] - before_incr["failed_calls"] == 1
    assert after_get["usec"] >= 0 and after_get["usec_per_call"] >= 0
    latency = r.info("latencystats")
    assert "p50" in latency["latency_percentiles_usec_get"]
