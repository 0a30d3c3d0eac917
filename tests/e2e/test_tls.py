"""TLS on every port with the real clients: redis-py (``ssl=True``) on
``--tls-port``, pymemcache with a ``tls_context`` on the memcached port
(``--memcache-tls``), elasticsearch-py over https with the CA
(``--http-tls``), and client certificates (``--tls-ca-cert-file``:
clients must present one, as Redis's ``tls-auth-clients yes``).

Throwaway certificates are made per run with the openssl command-line
tool, in a temporary directory."""

import shutil
import ssl
import subprocess
import uuid

import pymemcache.client.base
import pytest
import redis
from elasticsearch import Elasticsearch

from conftest import PEERS, StrataProcess

pytestmark = pytest.mark.skipif(PEERS, reason="runs its own Strata servers")


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def issue(directory, name, ext):
    """A P-256 key and a certificate for it signed by the test CA."""
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=directory)
    (directory / f"{name}.ext").write_text(
        ext + "\nauthorityKeyIdentifier=keyid,issuer\nsubjectKeyIdentifier=hash\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-out", f"{name}.crt", "-extfile", f"{name}.ext",
            cwd=directory)
    return str(directory / f"{name}.crt"), str(directory / f"{name}.key")


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.fail("the openssl command is needed to make test certificates")
    directory = tmp_path_factory.mktemp("pki")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=strata e2e CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)
    server = issue(directory, "server",
                   "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth")
    client = issue(directory, "client", "extendedKeyUsage=clientAuth")
    return {"ca": str(directory / "ca.crt"), "server": server, "client": client}


@pytest.fixture(scope="module")
def tls_server(pki):
    cert, key = pki["server"]
    server = StrataProcess("--tls-port", "0", "--memcache-tls", "--http-tls",
                           "--tls-cert-file", cert, "--tls-key-file", key)
    yield server
    assert server.stop() == 0, server.log()


def test_listening_lines_say_which_ports_speak_tls(tls_server):
    import json
    tls = {}
    for line in tls_server.lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("message") == "listening":
            tls[event["protocol"]] = event["tls"]
    assert tls == {"memcache": True, "resp": False, "resp-tls": True, "http": True}


def test_redis_py_over_tls(tls_server, pki):
    key = f"tls-{uuid.uuid4().hex}"
    client = redis.Redis(host="127.0.0.1", port=tls_server.ports["resp-tls"], ssl=True,
                         ssl_ca_certs=pki["ca"], socket_timeout=10)
    assert client.set(key, "over tls")
    assert client.get(key) == b"over tls"
    pipe = client.pipeline()
    for i in range(50):
        pipe.incr(key + ":n")
    assert pipe.execute()[-1] == 50
    # The plain port serves the same keyspace.
    plain = redis.Redis(host="127.0.0.1", port=tls_server.resp_port, socket_timeout=10)
    assert plain.get(key) == b"over tls"
    # A client that does not trust the CA is refused by its own check.
    with pytest.raises(redis.exceptions.ConnectionError):
        redis.Redis(host="127.0.0.1", port=tls_server.ports["resp-tls"], ssl=True,
                    socket_timeout=10).ping()
    client.close()
    plain.close()


def test_script_debug_over_tls_answers_an_error_and_the_connection_lives(tls_server, pki):
    """The Lua debugger talks over the plain socket itself: on a TLS
    connection the debugging EVAL is refused, the connection stays usable."""
    client = redis.Redis(host="127.0.0.1", port=tls_server.ports["resp-tls"], ssl=True,
                         ssl_ca_certs=pki["ca"], socket_timeout=10)
    assert client.execute_command("SCRIPT", "DEBUG", "SYNC") in (b"OK", True)
    with pytest.raises(redis.ResponseError, match="needs a plain TCP connection"):
        client.eval("return 1", 0)
    assert client.eval("return 2", 0) == 2
    client.close()


def test_pymemcache_with_a_tls_context(tls_server, pki):
    context = ssl.create_default_context(cafile=pki["ca"])
    client = pymemcache.client.base.Client(("127.0.0.1", tls_server.memcache_port),
                                           tls_context=context, timeout=10)
    client.set("tls-mc", b"x" * 100_000)
    assert client.get("tls-mc") == b"x" * 100_000
    assert client.incr("tls-counter", 1) is None
    client.set("tls-counter", b"41")
    assert client.incr("tls-counter", 1) == 42
    client.close()


def test_elasticsearch_py_over_https(tls_server, pki):
    es = Elasticsearch(f"https://127.0.0.1:{tls_server.http_port}", ca_certs=pki["ca"],
                       request_timeout=30)
    assert es.info()["cluster_name"]
    es.index(index="tls-docs", id="1", document={"title": "served over https"}, refresh=True)
    hits = es.search(index="tls-docs", query={"match": {"title": "https"}})["hits"]
    assert hits["total"]["value"] == 1
    es.close()


def test_client_certificates(pki):
    cert, key = pki["server"]
    server = StrataProcess("--tls-port", "0", "--no-resp", "--tls-cert-file", cert,
                           "--tls-key-file", key, "--tls-ca-cert-file", pki["ca"])
    try:
        port = server.ports["resp-tls"]
        client_cert, client_key = pki["client"]
        client = redis.Redis(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=pki["ca"],
                             ssl_certfile=client_cert, ssl_keyfile=client_key, socket_timeout=10)
        assert client.ping()
        client.close()
        anonymous = redis.Redis(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=pki["ca"],
                                socket_timeout=10)
        with pytest.raises(redis.exceptions.ConnectionError):
            anonymous.ping()
    finally:
        assert server.stop() == 0, server.log()
