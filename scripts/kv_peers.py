"""What the key-value comparison scripts share: starting Strata, Redis and memcached on
127.0.0.1 (optionally pinned to a core with taskset), running `strata bench kv` against one
of them with its pid (so the report carries the server's CPU per request), reading resident
memory, and describing the machine.

Used by scripts/bench-kv-compare and scripts/bench-kv-memory-types; not a command itself.
"""

import datetime
import json
import os
import platform
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port} after {timeout}s")


class Pinning:
    """Where the client and the servers run: unpinned, or `taskset -c` on given cores."""

    def __init__(self, client_core=None, server_core=None):
        self.client_core = client_core
        self.server_core = server_core

    @property
    def on(self):
        return self.server_core is not None

    def client(self, argv):
        return ["taskset", "-c", str(self.client_core), *argv] if self.on else list(argv)

    def server(self, argv):
        return ["taskset", "-c", str(self.server_core), *argv] if self.on else list(argv)

    def describe(self):
        if not self.on:
            return "client and servers unpinned on the same machine, over loopback"
        return (f"client pinned to core {self.client_core} and each server to core {self.server_core} "
                "(`taskset -c`), over loopback")


class Servers:
    """Starts and stops the peer servers and Strata.

    `strata_threads` 0 leaves Strata's default (one worker per core); `memcached_threads`
    0 leaves memcached's default (4). When pinned to one core, callers pass 1 for both: more
    workers than cores only take turns on that core.
    """

    def __init__(self, strata_bin, workdir, strata_threads=0, pinning=None, memcached_threads=0):
        self.strata_bin = strata_bin
        self.workdir = Path(workdir)
        self.strata_threads = strata_threads
        self.memcached_threads = memcached_threads
        self.pinning = pinning or Pinning()
        self.procs = []

    def start(self, name, argv, ports):
        log = open(self.workdir / f"{name}.log", "a")
        proc = subprocess.Popen(self.pinning.server(argv), stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        for port in ports:
            wait_port(port, proc)
        return proc

    def memcached(self):
        port = free_port()
        argv = ["memcached", "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-m", "2048", "-c", "4096"]
        if self.memcached_threads:
            argv += ["-t", str(self.memcached_threads)]
        if os.geteuid() == 0:
            argv += ["-u", "root"]  # memcached refuses to run as root without it
        return self.start("memcached", argv, [port]), port

    def redis(self):
        port = free_port()
        proc = self.start("redis", ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                                    "--save", "", "--appendonly", "no", "--protected-mode", "no",
                                    "--maxclients", "4096"], [port])
        return proc, port

    def strata(self, memory_limit="2gb", extra=()):
        mc, resp = free_port(), free_port()
        data = tempfile.mkdtemp(dir=self.workdir, prefix="strata-data-")
        proc = self.start("strata", [str(self.strata_bin), "serve", "--bind", "127.0.0.1", "--no-http",
                                     "--memcache-port", str(mc), "--resp-port", str(resp),
                                     "--memory-limit", memory_limit, "--data-dir", data,
                                     "--log-level", "warn", *self.threads_args(), *extra], [mc, resp])
        return proc, mc, resp

    def threads_args(self):
        return ["--threads", str(self.strata_threads)] if self.strata_threads else []

    def stop(self, proc):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def stop_all(self):
        for proc in self.procs:
            self.stop(proc)


def server_pid(proc):
    """The server's own pid: `taskset -c N cmd` execs cmd, so the Popen pid is the server's."""
    return proc.pid


def bench(strata_bin, out_dir, label, protocol, port, pid, argv_tail, pinning=None, check=True):
    """Runs `strata bench kv` against 127.0.0.1:port, with the server's pid for its CPU time;
    returns the JSON result with the command line added. With `check` False a run whose own
    check failed (the queue's delivery check) still returns its result, with `"exit"` set."""
    out = out_dir / f"{label}.json"
    argv = [str(strata_bin), "bench", "kv", "--protocol", protocol, "--port", str(port),
            "--server-pid", str(pid), "--quiet", "--json", str(out), *argv_tail]
    argv = (pinning or Pinning()).client(argv)
    done = subprocess.run(argv, check=check, stdout=subprocess.DEVNULL)
    result = json.loads(out.read_text())
    result["command"] = " ".join(argv)
    result["exit"] = done.returncode
    return result


def cpu_us(result):
    """The server's CPU microseconds per request of a result, or None."""
    cpu = result.get("server_cpu")
    return cpu["us_per_request"] if cpu else None


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def machine():
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kib = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            mem_kib = int(line.split()[1])

    def version(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()
            return out[0] if out else "unknown"
        except OSError:
            return "not installed"

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "kernel": platform.release(),
        "memcached": version(["memcached", "-V"]),
        "redis": version(["redis-server", "--version"]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def fmt_ops(x):
    return f"{x:,.0f}"


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"
