"""MONITOR through redis-py's ``Redis.monitor()``: other clients' commands
with their address, binary and escaped arguments, script commands as
``lua``, MULTI/EXEC, hidden admin commands and redacted AUTH, what a
monitor may still run, and a monitor that never reads. Also passes
against a real redis-server 7 (STRATA_E2E_PEERS=1)."""

import socket
import time

import pytest
import redis

from conftest import PEERS


def next_from(monitor, address, timeout=5.0):
    """The next command `monitor` sees from `address` (``ip:port`` or
    ``lua``), skipping other connections' (the fixtures' own)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        cmd = monitor.next_command()
        who = cmd["client_address"]
        if cmd["client_type"] == "tcp":
            who += ":" + cmd["client_port"]
        if who == address:
            return cmd
    raise AssertionError(f"nothing from {address}")


def address_of(client):
    return client.client_info()["addr"]


def test_monitor_sees_commands_with_their_address(r, r2):
    addr = address_of(r2)
    with r.monitor() as m:
        r2.set("foo", "bar")
        r2.get(b"foo\x92")
        r2.get(b"foo\\x92")
        r2.echo('a"b')
        first = next_from(m, addr)
        assert first["command"] == "SET foo bar"
        assert first["db"] == 0
        assert first["client_type"] == "tcp"
        assert abs(first["time"] - time.time()) < 10
        assert next_from(m, addr)["command"] == "GET foo\\x92"
        assert next_from(m, addr)["command"] == "GET foo\\\\x92"
        assert next_from(m, addr)["command"] == 'ECHO a"b'


def test_monitor_sees_script_commands_as_lua(r, r2):
    addr = address_of(r2)
    with r.monitor() as m:
        assert r2.eval('return redis.call("GET", "foo")', 0) is None
        assert next_from(m, addr)["command"] == 'EVAL return redis.call("GET", "foo") 0'
        lua = m.next_command()
        assert lua["command"] == "GET foo"
        assert (lua["client_type"], lua["client_address"], lua["client_port"]) == ("lua", "lua", "")


def test_monitor_sees_transactions(r, r2):
    addr = address_of(r2)
    with r.monitor() as m:
        pipe = r2.pipeline(transaction=True)
        pipe.set("a", 1).incr("a")
        assert pipe.execute() == [True, 2]
        seen = [next_from(m, addr)["command"] for _ in range(4)]
        # redis-py's incr() sends INCRBY.
        assert seen == ["MULTI", "SET a 1", "INCRBY a 1", "EXEC"]


def test_monitor_hides_admin_commands_and_redacts_auth(r, r2):
    addr = address_of(r2)
    # redis-py drops a connection whose AUTH failed: one of its own.
    auth = redis.Redis(port=r.connection_pool.connection_kwargs["port"], socket_timeout=10)
    auth_addr = address_of(auth)
    with r.monitor() as m:
        with pytest.raises(redis.RedisError):
            auth.execute_command("AUTH", "s3cret-password")
        r2.config_get("timeout")
        r2.execute_command("CLIENT", "LIST")
        r2.ping()
        assert next_from(m, auth_addr)["command"] == "AUTH (redacted)"
        assert next_from(m, addr)["command"] == "PING"
    auth.close()


def test_a_monitor_may_not_touch_the_keyspace(r):
    with r.monitor() as m:
        m.connection.send_command("GET", "foo")
        with pytest.raises(redis.ResponseError, match="Replica can't interact with the keyspace"):
            m.connection.read_response()
        m.connection.send_command("PING")
        assert m.connection.read_response() in (b"PONG", "PONG", True)
        # Its own PING comes after the reply.
        assert m.next_command()["command"] == "PING"
        m.connection.send_command("RESET")
        assert m.connection.read_response() in (b"RESET", "RESET")
        r.set("after", "reset")
        m.connection.send_command("GET", "after")
        assert m.connection.read_response() == b"reset"


def test_a_monitor_that_never_reads_is_disconnected(r, r2):
    # Redis counts a monitor as a normal client; Strata bounds it with the
    # pubsub class (Redis's normal class has no limit by default).
    limit_class, default = ("normal", "normal 0 0 0") if PEERS else ("pubsub", "pubsub 32mb 8mb 60")
    r.config_set("client-output-buffer-limit", f"{limit_class} 1mb 256kb 60")
    # Counted since Redis 7.2 (a 7.0 peer lacks the field).
    before = r.info("stats").get("client_output_buffer_limit_disconnections")
    slow = socket.create_connection(("127.0.0.1", r.connection_pool.connection_kwargs["port"]))
    try:
        slow.sendall(b"*1\r\n$7\r\nMONITOR\r\n")
        deadline = time.monotonic() + 5
        while not any("O" in c["flags"] for c in r.client_list()):
            assert time.monotonic() < deadline, "MONITOR never took effect"
            time.sleep(0.01)
        payload = b"x" * 65536
        most_waiting = 0
        for i in range(1024):
            r2.set("flood", payload)
            if i % 4:
                continue
            monitors = [c for c in r.client_list() if "O" in c["flags"]]
            if not monitors:
                break
            most_waiting = max(most_waiting, int(monitors[0]["omem"]))
        else:
            raise AssertionError("the slow monitor was never disconnected")
        if before is not None:
            assert r.info("stats")["client_output_buffer_limit_disconnections"] == before + 1
        assert most_waiting <= 2 * 1024 * 1024 + 256 * 1024
        slow.settimeout(10)
        while slow.recv(65536):
            pass
    finally:
        slow.close()
        r.config_set("client-output-buffer-limit", default)
