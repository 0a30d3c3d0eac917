"""Client tracking (client-side caching) seen from a RESP3 connection on
the wire: a key the connection read is invalidated by a push when another
Redis client changes it, and on Strata also when a memcached client does
(pymemcache on the other port of the same keyspace). redis-py's own cache
needs a server that says it is Redis 7.4, so the connection is read raw.
The Redis part also runs against a real redis-server with
STRATA_E2E_PEERS=1."""

import pytest

from conftest import PEERS


def tracking_connection(raw_resp, key):
    raw_resp.send(b"HELLO 3\r\n")
    raw_resp.read_until(b"modules\r\n")
    raw_resp.read_until(b"\r\n")
    assert raw_resp.request(b"CLIENT TRACKING ON\r\n") == b"+OK\r\n"
    raw_resp.send(b"GET " + key + b"\r\n")
    raw_resp.line()
    raw_resp.line()


def push_for(key):
    return b">2\r\n$10\r\ninvalidate\r\n*1\r\n$%d\r\n%s\r\n" % (len(key), key)


def test_a_redis_write_invalidates_a_tracked_read(raw_resp, r):
    r.set("csc:k", "v1")
    tracking_connection(raw_resp, b"csc:k")
    r.set("csc:k", "v2")
    assert raw_resp.read_until(b"\r\n" + b"csc:k\r\n") == push_for(b"csc:k")


def test_a_memcached_write_invalidates_a_tracked_read(raw_resp, r, mc):
    if PEERS:
        pytest.skip("Redis has no memcached port")
    r.set("csc:m", "v1")
    tracking_connection(raw_resp, b"csc:m")
    mc.set("csc:m", b"from memcached")
    assert raw_resp.read_until(b"\r\n" + b"csc:m\r\n") == push_for(b"csc:m")
