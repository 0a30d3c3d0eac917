"""Smoke tests with the stock command-line tools: redis-cli,
redis-benchmark and libmemcached-tools (memcping, memcstat, memccp, ...).
Each test is skipped only when its tool is not installed; `scripts/test`
installs them, so CI runs them all."""

import shutil
import subprocess

import pytest


def tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def run(*args, timeout=120, stdin=None):
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, input=stdin)
    assert done.returncode == 0, f"{args} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_redis_cli_basics(server, r):
    cli = tool("redis-cli")
    port = str(server.resp_port)
    assert run(cli, "-p", port, "ping").strip() == "PONG"
    assert run(cli, "-p", port, "set", "cli:key", "hello world").strip() == "OK"
    assert run(cli, "-p", port, "get", "cli:key").strip() == "hello world"
    assert run(cli, "-p", port, "incrby", "cli:n", "5").strip() == "5"
    assert run(cli, "-p", port, "dbsize").strip() == "2"
    info = run(cli, "-p", port, "info")
    assert "# Server" in info and "redis_version:" in info
    assert "cli:key" in run(cli, "-p", port, "--scan").split()
    piped = run(cli, "-p", port, stdin="set piped 1\nget piped\n")
    assert piped.split() == ["OK", "1"]


def test_redis_benchmark_set_get(server, r):
    bench = tool("redis-benchmark")
    out = run(bench, "-p", str(server.resp_port), "-t", "set,get", "-n", "10000", "-q")
    assert "SET:" in out and "GET:" in out, out
    assert "error" not in out.lower(), out


def test_redis_benchmark_pipelined(server, r):
    bench = tool("redis-benchmark")
    out = run(bench, "-p", str(server.resp_port), "-t", "set,get,incr,mset", "-n", "5000",
              "-P", "16", "-c", "8", "-q")
    assert "SET:" in out and "MSET" in out, out
    assert "error" not in out.lower(), out


def servers(server):
    return f"127.0.0.1:{server.memcache_port}"


def test_memcping(server, mc):
    run(tool("memcping"), f"--servers={servers(server)}")


def test_memcstat(server, mc):
    mc.set("a", "1")
    out = run(tool("memcstat"), f"--servers={servers(server)}")
    assert "pid:" in out and "curr_items:" in out, out


def test_memccp_memccat_memcexist_memcrm(server, mc, tmp_path):
    path = tmp_path / "payload.txt"
    path.write_bytes(b"copied by memccp\n")
    s = f"--servers={servers(server)}"
    run(tool("memccp"), s, str(path))
    assert mc.get("payload.txt") == b"copied by memccp\n"
    assert run(tool("memccat"), s, "payload.txt") .startswith("copied by memccp")
    run(tool("memcexist"), s, "payload.txt")
    run(tool("memctouch"), s, "--expire=100", "payload.txt")
    run(tool("memcrm"), s, "payload.txt")
    assert mc.get("payload.txt") is None
    missing = subprocess.run([tool("memcexist"), s, "payload.txt"], capture_output=True)
    assert missing.returncode != 0


def test_memcflush(server, mc):
    mc.set("a", "1")
    run(tool("memcflush"), f"--servers={servers(server)}")
    assert mc.get("a") is None
