"""Authentication with real clients: redis-py with ACL users (created with
ACL SETUSER, and from an ACL file at start), pymemcache with memcached's
ASCII authentication, and the start-up rule that keeps the memcached port
from serving a protected keyspace openly."""

import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pymemcache.client.base
import pymemcache.exceptions
import pytest
import redis

from conftest import StrataProcess, strata_binary


def resp(srv, **kwargs):
    return redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=10, **kwargs)


def memcache(srv):
    return pymemcache.client.base.Client(("127.0.0.1", srv.memcache_port), timeout=10,
                                         connect_timeout=10, default_noreply=False)


def users_of(admin):
    return [c.get("user") for c in admin.client_list()]


def test_acl_users_with_redis_py(strata_factory):
    srv = strata_factory("--requirepass", "adminpw", "--no-memcache")
    admin = resp(srv, password="adminpw")
    assert admin.acl_setuser("alice", enabled=True, passwords=["+alicepw"],
                             keys=["cache:*"], commands=["+@read", "+set"]) is True
    alice = resp(srv, username="alice", password="alicepw", single_connection_client=True)
    assert alice.set("cache:1", "v") is True
    assert alice.get("cache:1") == b"v"
    # A denied command and a denied key.
    with pytest.raises(redis.exceptions.NoPermissionError, match="has no permissions to run the 'del'"):
        alice.delete("cache:1")
    with pytest.raises(redis.exceptions.NoPermissionError, match="No permissions to access a key"):
        alice.get("other")
    # Changes apply to the live connection at once.
    admin.acl_setuser("alice", enabled=True, commands=["-get"])
    with pytest.raises(redis.exceptions.NoPermissionError):
        alice.get("cache:1")
    # Wrong passwords and unknown users are refused.
    with pytest.raises(redis.AuthenticationError):
        resp(srv, username="alice", password="nope").ping()
    with pytest.raises(redis.AuthenticationError):
        resp(srv, username="nobody", password="x").ping()
    user = admin.acl_getuser("alice")
    assert "on" in user["flags"]
    assert len(user["passwords"]) == 1
    assert "alice" in users_of(admin)
    assert admin.client_info()["user"] == "default"
    # Deleting the user disconnects it.
    assert admin.acl_deluser("alice") == 1
    deadline = time.monotonic() + 10
    while "alice" in users_of(admin) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert "alice" not in users_of(admin)
    with pytest.raises((redis.ConnectionError, redis.AuthenticationError)):
        alice.ping()
    log = admin.acl_log()
    assert {entry["reason"] for entry in log} >= {"command", "key", "auth"}


def test_acl_file_loaded_at_start(strata_factory):
    with tempfile.TemporaryDirectory() as tmp:
        acl = Path(tmp) / "users.acl"
        acl.write_text("user reader on >readpw ~* +@read +@connection\n"
                       "user default on >adminpw ~* &* +@all\n")
        srv = strata_factory("--aclfile", str(acl), "--no-memcache")
        admin = resp(srv, password="adminpw")
        admin.set("k", "v")
        reader = resp(srv, username="reader", password="readpw")
        assert reader.get("k") == b"v"
        with pytest.raises(redis.exceptions.NoPermissionError):
            reader.set("k", "w")
        assert sorted(admin.acl_users()) == ["default", "reader"]
        admin.acl_setuser("writer", enabled=True, passwords=["+writepw"], keys=["*"],
                          commands=["+@write"])
        assert admin.acl_save() is True
        saved = acl.read_text()
        assert "user writer on #" in saved and "writepw" not in saved


@pytest.mark.strata_only  # runs the strata binary itself
def test_bad_acl_file_refuses_to_start():
    with tempfile.TemporaryDirectory() as tmp:
        acl = Path(tmp) / "users.acl"
        acl.write_text("user ok on >pw\nuser broken on +nosuchcommand\n")
        proc = subprocess.run(
            [str(strata_binary()), "serve", "--resp-port", "0", "--memcache-port", "0",
             "--no-http", "--data-dir", tmp, "--aclfile", str(acl)],
            capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert "users.acl:2: Error in applying operation '+nosuchcommand'" in proc.stderr


@pytest.mark.strata_only  # runs the strata binary itself
def test_protected_resp_with_open_memcached_refuses_to_start():
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [str(strata_binary()), "serve", "--resp-port", "0", "--memcache-port", "0",
             "--no-http", "--data-dir", tmp, "--requirepass", "pw"],
            capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert "memcache_unauthenticated" in proc.stderr
        assert "--memcache-unauthenticated" in proc.stderr


def test_open_memcached_said_explicitly_starts_with_a_warning(strata_factory):
    srv = strata_factory("--requirepass", "pw", "--memcache-unauthenticated")
    mc = memcache(srv)
    assert mc.set("k", "v") is True
    assert resp(srv, password="pw").get("k") == b"v"
    assert any("without authentication" in line for line in srv.lines), srv.log()


def test_memcached_authentication_with_pymemcache(strata_factory):
    with tempfile.TemporaryDirectory() as tmp:
        auth = Path(tmp) / "memcache.auth"
        auth.write_text("app:s3cret\n")
        srv = strata_factory("--requirepass", "pw", "--memcache-auth-file", str(auth))
        anonymous = memcache(srv)
        with pytest.raises(pymemcache.exceptions.MemcacheClientError, match="unauthenticated"):
            anonymous.get("k")
        with pytest.raises(pymemcache.exceptions.MemcacheClientError, match="unauthenticated"):
            anonymous.flush_all()
        wrong = memcache(srv)
        with pytest.raises(pymemcache.exceptions.MemcacheClientError, match="authentication failure"):
            wrong.set("auth", "app nope")
        # The login is a `set` carrying "<user> <password>".
        client = memcache(srv)
        assert client.set("auth", "app s3cret") is True
        assert client.set("k", "v") is True
        assert client.get("k") == b"v"
        assert client.get("auth") is None, "the login stored nothing"
        assert client.incr("n", 1) is None
        assert resp(srv, password="pw").get("k") == b"v"
        stats = client.stats()
        assert stats[b"auth_cmds"] == 2 and stats[b"auth_errors"] == 1


@pytest.mark.strata_only  # memcached speaks the binary protocol
def test_binary_protocol_is_refused_not_hung(server):
    sock = socket.create_connection(("127.0.0.1", server.memcache_port), timeout=10)
    # A binary NOOP (opcode 0x0a) with opaque 0x01020304.
    sock.sendall(bytes([0x80, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]) + bytes(8))
    reply = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        reply += chunk
    assert reply[:2] == bytes([0x81, 0x0a])
    assert reply[6:8] == bytes([0x00, 0x83])
    assert reply[12:16] == bytes([1, 2, 3, 4])
    assert reply[24:] == b"Not supported"
