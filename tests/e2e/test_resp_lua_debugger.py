"""The Lua debugger (`SCRIPT DEBUG`) driven by the real tool, `redis-cli --ldb`
and `--ldb-sync-mode`: the transcripts below are redis-server 7.0.15's, line
for line (``STRATA_E2E_PEERS=1`` checks them against it). Two tests are Strata's
own: without a fork, a ``YES`` session refuses writes it cannot roll back, and
``SCRIPT KILL`` from another client ends a stopped session."""

import re
import shutil
import socket
import subprocess
import time

import pytest
import redis

from conftest import PEERS

ANSI = re.compile(r"\x1b\[[0-9;]*m")

STEPPED = """\
local t = {1, 2, 'three'}
local n = tonumber(ARGV[1])
redis.call('set', KEYS[1], n * 2)
redis.debug('doubled', n * 2, t)
local v = redis.call('get', KEYS[1])
redis.breakpoint()
local m = {a = 1}
return v
"""

CALLS = """\
redis.call('set', KEYS[1], 'v1')
local ok = redis.pcall('incr', KEYS[1])
local big = string.rep('x', 300)
redis.call('rpush', KEYS[2], big, 'b')
local r = redis.call('lrange', KEYS[2], 0, -1)
redis.call('hset', KEYS[3], 'f', 1.5)
local x = redis.call('hgetall', KEYS[3])
local bad = redis.call('nosuchcmd')
return 1
"""

LOOP = """\
local i = 0
while true do
  i = i + 1
end
"""


def ldb(server, tmp_path, script, args, commands, sync=False):
    """Runs `script` under `redis-cli --ldb` with `commands` typed in; the
    lines it printed, colours removed."""
    cli = shutil.which("redis-cli")
    if cli is None:
        pytest.skip("redis-cli is not installed")
    path = tmp_path / "script.lua"
    path.write_text(script)
    mode = "--ldb-sync-mode" if sync else "--ldb"
    done = subprocess.run(
        [cli, "-p", str(server.resp_port), mode, "--eval", str(path), *args],
        input="".join(f"{c}\n" for c in commands), capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return [ANSI.sub("", line) for line in done.stdout.splitlines()]


def session_lines(lines):
    """The lines after redis-cli's banner."""
    return lines[lines.index("help    -- Show Lua script debugging commands.") + 2:]


def test_ldb_steps_prints_lists_breaks_and_rolls_back(server, r, tmp_path):
    r.set("kept", "before")
    lines = ldb(server, tmp_path, STEPPED, ["kept", ",", "21"], [
        "step", "step", "print", "print t", "print KEYS", "list 2 1", "break 7", "break",
        "eval n + 1", "eval 1 + 1", "redis get kept", "maxlen 10", "maxlen 0", "trace",
        "nosuch", "continue", "continue",
    ])
    assert session_lines(lines) == [
        "* Stopped at 1, stop reason = step over",
        "-> 1   local t = {1, 2, 'three'}",
        "* Stopped at 2, stop reason = step over",
        "-> 2   local n = tonumber(ARGV[1])",
        "* Stopped at 3, stop reason = step over",
        "-> 3   redis.call('set', KEYS[1], n * 2)",
        '<value> t = {1; 2; "three"}',
        "<value> n = 21",
        '<value> {1; 2; "three"}',
        '<value> {"kept"}',
        "   1   local t = {1, 2, 'three'}",
        "   2   local n = tonumber(ARGV[1])",
        "-> 3   redis.call('set', KEYS[1], n * 2)",
        "   6   redis.breakpoint()",
        "  #7   local m = {a = 1}",
        "   8   return v",
        "1 breakpoints set:",
        "  #7   local m = {a = 1}",
        "<error> ldb_eval:1: Script attempted to access nonexistent global variable 'n'",
        "<retval> 2",
        "<redis> get kept",
        '<reply> "before"',
        "<value> replies are truncated at 60 bytes.",
        "<value> replies are unlimited.",
        "In top level:",
        "-> 3   redis.call('set', KEYS[1], n * 2)",
        "<error> Unknown Redis Lua debugger command or wrong number of arguments.",
        '<debug> line 4: "doubled", 42, {1; 2; "three"}',
        "* Stopped at 7, stop reason = redis.breakpoint() called",
        "->#7   local m = {a = 1}",
        "",
        '"42"',
        "",
        "(Lua debugging session ended -- dataset changes rolled back)",
        "",
    ]
    # YES: the script's SET is undone when the session ends.
    assert r.get("kept") == b"before"
    assert r.ping()


def test_ldb_sync_logs_calls_while_stepping_and_keeps_changes(server, r, tmp_path):
    lines = ldb(server, tmp_path, CALLS, ["s", "l", "h", ",", "x"], ["step"] * 8, sync=True)
    body = session_lines(lines)
    assert body[:14] == [
        "* Stopped at 1, stop reason = step over",
        "-> 1   redis.call('set', KEYS[1], 'v1')",
        "<redis> set s v1",
        '<reply> "+OK"',
        "* Stopped at 2, stop reason = step over",
        "-> 2   local ok = redis.pcall('incr', KEYS[1])",
        "<redis> incr s",
        "<error> -ERR value is not an integer or out of range",
        '<reply> "-ERR value is not an integer or out of range"',
        "* Stopped at 3, stop reason = step over",
        "-> 3   local big = string.rep('x', 300)",
        "* Stopped at 4, stop reason = step over",
        "-> 4   redis.call('rpush', KEYS[2], big, 'b')",
        "<redis> rpush l " + "x" * 300 + " b",
    ]
    assert body[14:-5] == [
        "<reply> 2",
        "* Stopped at 5, stop reason = step over",
        "-> 5   local r = redis.call('lrange', KEYS[2], 0, -1)",
        "<redis> lrange l 0 -1",
        '<reply> ["' + "x" * 246 + " ...",
        "<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.",
        "* Stopped at 6, stop reason = step over",
        "-> 6   redis.call('hset', KEYS[3], 'f', 1.5)",
        "<redis> hset h f 1.5",
        "<reply> 1",
        "* Stopped at 7, stop reason = step over",
        "-> 7   local x = redis.call('hgetall', KEYS[3])",
        "<redis> hgetall h",
        '<reply> ["f","1.5"]',
        "* Stopped at 8, stop reason = step over",
        "-> 8   local bad = redis.call('nosuchcmd')",
        "<redis> nosuchcmd",
        "<error> Unknown Redis command called from script",
    ]
    assert body[-4].startswith("(error) ERR Unknown Redis command called from script script: ")
    assert body[-4].endswith(", on @user_script:8.")
    assert body[-2] == "(Lua debugging session ended)"
    # SYNC: what the script wrote stays.
    assert r.get("s") == b"v1"
    assert r.lrange("l", 0, -1) == [b"x" * 300, b"b"]


def test_ldb_stops_a_loop_past_the_busy_threshold_and_abort_ends_it(server, r, tmp_path):
    old = r.config_get("busy-reply-threshold")["busy-reply-threshold"]
    r.config_set("busy-reply-threshold", 200)
    try:
        lines = ldb(server, tmp_path, LOOP, [], ["continue", "list 3 0", "abort"])
    finally:
        r.config_set("busy-reply-threshold", old)
    body = session_lines(lines)
    assert body[:5] == [
        "* Stopped at 1, stop reason = step over",
        "-> 1   local i = 0",
        "* Stopped at 3, stop reason = timeout reached, infinite loop?",
        "-> 3     i = i + 1",
        "-> 3     i = i + 1",
    ]
    assert body[6].startswith("(error) ERR script aborted for user request script: ")
    assert body[6].endswith(", on @user_script:3.")
    assert r.ping()


def test_ldb_yes_undoes_every_kind_of_write(server, r, tmp_path):
    r.hset("h", mapping={"a": "1", "b": "2"})
    r.pexpire("h", 600_000)
    r.rpush("l", "x", "y")
    r.zadd("z", {"m": 1.5})
    r.set("gone", "here")
    script = """\
redis.call('hset', KEYS[1], 'a', 'changed', 'c', '3')
redis.call('persist', KEYS[1])
redis.call('lpop', KEYS[2])
redis.call('rpush', KEYS[2], 'new')
redis.call('zadd', KEYS[3], 9, 'n')
redis.call('del', KEYS[4])
redis.call('set', KEYS[5], 'created')
redis.call('sadd', KEYS[6], 'member')
return redis.call('hgetall', KEYS[1])
"""
    lines = ldb(server, tmp_path, script, ["h", "l", "z", "gone", "new", "s", ","], ["continue"])
    assert lines[-2] == "(Lua debugging session ended -- dataset changes rolled back)"
    assert r.hgetall("h") == {b"a": b"1", b"b": b"2"}
    assert 0 < r.pttl("h") <= 600_000
    assert r.lrange("l", 0, -1) == [b"x", b"y"]
    assert r.zrange("z", 0, -1, withscores=True) == [(b"m", 1.5)]
    assert r.get("gone") == b"here"
    assert r.exists("new", "s") == 0


def test_script_debug_modes_and_evalsha(r):
    with pytest.raises(redis.ResponseError, match="Use SCRIPT DEBUG YES/SYNC/NO"):
        r.execute_command("SCRIPT", "DEBUG", "maybe")
    sha = r.script_load("return 1")
    assert r.execute_command("SCRIPT", "DEBUG", "YES") in (b"OK", True)
    with pytest.raises(redis.ResponseError, match="Please use EVAL instead of EVALSHA for debugging"):
        r.evalsha(sha, 0)
    assert r.execute_command("SCRIPT", "DEBUG", "NO") in (b"OK", True)
    assert r.evalsha(sha, 0) == 1


def read_reply(sock):
    """Bytes until a whole array of simple strings arrived."""
    data = b""
    while True:
        data += sock.recv(65536)
        lines = data.split(b"\r\n")
        count = int(lines[0][1:])
        if len(lines) > count + 1:
            return data


def command(*args):
    """`args` as a RESP array of bulk strings."""
    out = b"*%d\r\n" % len(args)
    for arg in args:
        arg = arg if isinstance(arg, bytes) else str(arg).encode()
        out += b"$%d\r\n%s\r\n" % (len(arg), arg)
    return out


def session(server, mode, body, *keys):
    """A raw connection in a debugging session of `body`, stopped at its
    first line (that stop's lines read)."""
    sock = socket.create_connection(("127.0.0.1", server.resp_port), timeout=10)
    sock.sendall(command("SCRIPT", "DEBUG", mode))
    assert sock.recv(100) == b"+OK\r\n"
    sock.sendall(command("EVAL", body, len(keys), *keys))
    first = read_reply(sock)
    assert b"* Stopped at 1, stop reason = step over" in first
    return sock


def read_to_close(sock):
    """Everything the server sends until it closes the connection."""
    rest = b""
    while chunk := sock.recv(65536):
        rest += chunk
    sock.close()
    return rest


def test_a_client_gone_mid_session_lets_the_script_finish(server, r):
    sock = session(server, "SYNC", "redis.call('set', KEYS[1], 'done')\nreturn 1", "gone")
    sock.close()
    deadline = time.monotonic() + 10
    while r.get("gone") != b"done":
        assert time.monotonic() < deadline, "the script did not run on"
        time.sleep(0.05)


@pytest.mark.parametrize("bad", [b"hello\r\n", b"*1\r\n$0\r\n\r\n", b"*2000\r\n",
                                 b"*1\r\n$5000\r\n"])
def test_a_malformed_debugger_command_ends_the_script_with_a_protocol_error(server, r, bad):
    sock = session(server, "SYNC", "local a = 1\nreturn a")
    sock.sendall(bad)
    rest = read_to_close(sock)
    assert rest.startswith(b"*1\r\n+<endsession>\r\n-ERR protocol error script: "), rest
    assert rest.endswith(b", on @user_script:1.\r\n"), rest
    assert r.ping()


def test_debugger_commands_are_read_as_redis_reads_them(server, r):
    """A count line that arrives in pieces, however long before its end, is
    waited for; counts are read as C's `atoi` reads them (`*1 junk`, `$+4`)."""
    sock = session(server, "SYNC", "local a = 1\nlocal b = 2\nreturn a + b")
    sock.sendall(b"*1" + b" " * 100)
    time.sleep(0.2)
    sock.sendall(b" junk\r\n$+4\r\nstep\r\n")
    assert b"* Stopped at 2, stop reason = step over" in read_reply(sock)
    sock.sendall(command("continue"))
    rest = read_to_close(sock)
    assert rest.startswith(b"*1\r\n+<endsession>\r\n"), rest
    assert rest.endswith(b":3\r\n"), rest
    assert r.ping()


@pytest.mark.skipif(PEERS, reason="Redis forks for YES and lets FLUSHALL run in the child")
def test_ldb_yes_refuses_writes_it_cannot_roll_back(server, r, tmp_path):
    r.set("k", "v")
    lines = ldb(server, tmp_path, "redis.call('flushall')\nreturn 1\n", [], ["step"])
    body = session_lines(lines)
    assert body[3] == "<error> FLUSHALL cannot be rolled back in a SCRIPT DEBUG YES session: use SCRIPT DEBUG SYNC"
    assert r.get("k") == b"v"


@pytest.mark.skipif(PEERS, reason="Redis's YES session runs in a child, which SCRIPT KILL does not reach")
def test_script_kill_ends_a_stopped_yes_session_after_a_write(server, r, r2):
    r.set("killed", "before")
    sock = session(server, "YES", "redis.call('set', KEYS[1], 'during')\nreturn 1", "killed")
    sock.sendall(command("step"))
    assert b"<redis> set killed during" in read_reply(sock)
    # The write is undone at the end, so it does not make the script unkillable.
    assert r2.script_kill()
    rest = read_to_close(sock)
    assert rest.endswith(b"+<endsession>\r\n-ERR Script killed by user with SCRIPT KILL...\r\n"), rest
    assert r.get("killed") == b"before"
