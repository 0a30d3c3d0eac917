"""Fixtures for the end-to-end suite: a real `strata serve` process and
real client libraries talking to it.

The server binary comes from ``STRATA_BIN`` (default ``target/debug/strata``
under the repository root). It is started once per session on free ports
(port 0, the actual ports are read from its JSON ``listening`` log lines)
with a temporary data directory, and stopped with SIGTERM at the end; its
exit status must be 0.

The HTTP (Elasticsearch-compatible) front end also listens on a free port
(``.http_port``); ``test_search.py`` drives it with the official
``elasticsearch`` client.

``STRATA_E2E_PEERS=1`` runs the same suite against a real ``redis-server``
and ``memcached`` instead (to check the tests themselves); tests marked
``strata_only`` (one keyspace behind both protocols) are skipped then.

``STRATA_E2E_OPENSEARCH=http://127.0.0.1:PORT`` points the search tests
(``test_search*.py``) at a running OpenSearch node behind
``scripts/peers/opensearch-proxy`` instead of starting Strata, as a
reference (``scripts/peers/opensearch --e2e`` does all of it; see
docs/opensearch-reference.md). Tests marked ``opensearch_differs(reason)``
assert Elasticsearch behaviour that OpenSearch documents differently, and
tests that need their own Strata server (``strata_factory``) are skipped then;
tests marked ``strata_differs(reason)`` assert a Strata behaviour that
Elasticsearch and OpenSearch do not have (known, to be fixed) and must fail.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pymemcache.client.base
import pytest
import redis

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0
PEERS = os.environ.get("STRATA_E2E_PEERS") == "1"
OPENSEARCH = os.environ.get("STRATA_E2E_OPENSEARCH")


def pytest_configure(config):
    config.addinivalue_line("markers", "strata_only: needs both protocols on one keyspace")
    config.addinivalue_line(
        "markers", "opensearch_differs(reason): Elasticsearch behaviour OpenSearch does "
        "differently (skipped in the OpenSearch reference run)")
    config.addinivalue_line(
        "markers", "strata_differs(reason): the test asserts a Strata behaviour that neither "
        "Elasticsearch nor OpenSearch has (an expected failure in the OpenSearch reference run)")


def pytest_collection_modifyitems(config, items):
    if PEERS:
        skip = pytest.mark.skip(reason="peer servers do not share a keyspace")
        for item in items:
            if "strata_only" in item.keywords:
                item.add_marker(skip)
    if OPENSEARCH:
        for item in items:
            for mark in item.iter_markers("opensearch_differs"):
                reason = mark.args[0] if mark.args else mark.kwargs.get("reason", "")
                item.add_marker(pytest.mark.skip(reason=f"OpenSearch differs: {reason}"))
            for mark in item.iter_markers("strata_differs"):
                reason = mark.args[0] if mark.args else mark.kwargs.get("reason", "")
                item.add_marker(pytest.mark.xfail(reason=f"Strata differs: {reason}", strict=True))


def strata_binary():
    path = Path(os.environ.get("STRATA_BIN", REPO_ROOT / "target" / "debug" / "strata"))
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not path.exists():
        pytest.fail(f"strata binary not found at {path}: build it or set STRATA_BIN")
    return path


class StrataProcess:
    """One `strata serve` child with its log lines and actual ports."""

    def __init__(self, *extra_args):
        self.data_dir = tempfile.mkdtemp(prefix="strata-e2e-")
        args = [
            str(strata_binary()), "serve",
            "--bind", "127.0.0.1", "--memcache-port", "0", "--resp-port", "0", "--http-port", "0",
            "--threads", "2", "--memory-limit", "64mb", "--log-format", "json",
            "--data-dir", self.data_dir, *extra_args,
        ]
        env = {k: v for k, v in os.environ.items() if k != "RUST_LOG"}
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, env=env, text=True,
        )
        self.lines = []
        self.ports = {}
        ready = threading.Event()

        def drain():
            for line in self.proc.stderr:
                self.lines.append(line.rstrip("\n"))
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("message") == "listening":
                    self.ports[event["protocol"]] = int(event["port"])
                elif event.get("message") == "strata ready":
                    ready.set()
            ready.set()  # the process ended: stop waiting

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(START_TIMEOUT) or self.proc.poll() is not None:
            self.kill()
            raise RuntimeError("strata did not start:\n" + self.log())
        self.resp_port = self.ports.get("resp")
        self.memcache_port = self.ports.get("memcache")
        self.http_port = self.ports.get("http")

    def log(self):
        return "\n".join(self.lines)

    def stop(self, timeout=10.0):
        """SIGTERM, then the exit code (killing it if it hangs)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, timeout=START_TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


class PeerServers:
    """A real redis-server and memcached, for validating the suite."""

    def __init__(self):
        self.resp_port, self.memcache_port = free_port(), free_port()
        self.procs = [
            subprocess.Popen(["redis-server", "--port", str(self.resp_port), "--save", "",
                              "--appendonly", "no", "--maxmemory", "64mb"],
                             stdout=subprocess.DEVNULL),
            subprocess.Popen(["memcached", "-p", str(self.memcache_port), "-U", "0",
                              "-l", "127.0.0.1", "-u", "nobody", "-m", "64"]),
        ]
        wait_for_port(self.resp_port)
        wait_for_port(self.memcache_port)

    def stop(self):
        for proc in self.procs:
            proc.terminate()
            proc.wait(10)
        return 0


class OpenSearchReference:
    """A running OpenSearch node (through the header proxy) as the search
    server under test; it has no memcached or RESP front end."""

    resp_port = None
    memcache_port = None

    def __init__(self, url):
        self.http_port = int(url.rstrip("/").rsplit(":", 1)[1])
        wait_for_port(self.http_port, timeout=5)

    def stop(self):
        return 0


@pytest.fixture(scope="session")
def server():
    """The server under test (ports in `.resp_port`, `.memcache_port`, `.http_port`)."""
    if OPENSEARCH:
        srv = OpenSearchReference(OPENSEARCH)
    else:
        srv = PeerServers() if PEERS else StrataProcess()
    yield srv
    code = srv.stop()
    assert code == 0, f"server exit code {code}\n" + (srv.log() if isinstance(srv, StrataProcess) else "")


@pytest.fixture
def strata_factory():
    """Starts extra strata servers with given options; stops them after the test."""
    if OPENSEARCH:
        pytest.skip("needs its own strata server (Strata's own options)")
    started = []

    def start(*args):
        if PEERS:
            pytest.skip("needs its own strata server")
        srv = StrataProcess(*args)
        started.append(srv)
        return srv

    yield start
    for srv in started:
        assert srv.stop() == 0, srv.log()


@pytest.fixture(scope="module")
def es(server):
    """An Elasticsearch client on the server's HTTP front end (skips the
    test when it has none)."""
    if getattr(server, "http_port", None) is None:
        pytest.skip("the server under test has no HTTP front end")
    from elasticsearch import Elasticsearch

    client = Elasticsearch(f"http://127.0.0.1:{server.http_port}", request_timeout=60)
    yield client
    client.close()


@pytest.fixture
def r(server):
    """A redis-py client on an empty keyspace."""
    client = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def r2(server):
    """A second, independent redis-py connection."""
    client = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    yield client
    client.close()


@pytest.fixture
def mc(server):
    """A pymemcache client on an empty keyspace."""
    client = pymemcache.client.base.Client(("127.0.0.1", server.memcache_port), timeout=10,
                                           default_noreply=False,
                                           connect_timeout=10)
    client.flush_all(noreply=False)
    yield client
    client.close()


class RawConnection:
    """Byte-level access for commands client libraries do not speak (meta)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def read_until(self, terminator):
        while terminator not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed; got {self.buf!r}")
            self.buf += chunk
        end = self.buf.index(terminator) + len(terminator)
        out, self.buf = self.buf[:end], self.buf[end:]
        return out

    def line(self):
        return self.read_until(b"\r\n")

    def request(self, data, terminator=b"\r\n"):
        self.send(data)
        return self.read_until(terminator)

    def read_to_close(self):
        data = self.buf
        while True:
            chunk = self.sock.recv(65536)
            if not chunk:
                return data
            data += chunk

    def close(self):
        self.sock.close()


@pytest.fixture
def raw_mc(server, mc):
    """A raw socket to the memcached front end (keyspace emptied by `mc`)."""
    conn = RawConnection(server.memcache_port)
    yield conn
    conn.close()


@pytest.fixture
def raw_resp(server, r):
    """A raw socket to the RESP front end (keyspace emptied by `r`)."""
    conn = RawConnection(server.resp_port)
    yield conn
    conn.close()
