"""`proto-max-bulk-len` with redis-py and raw sockets: 4 MB values stored
when the operator raises the item size, and a bulk over the limit refused
with Redis's protocol error (Redis closes the connection after it, and so
does Strata)."""

import socket

import pytest
import redis


def test_four_megabyte_values_with_the_limits_raised(strata_factory):
    srv = strata_factory("--max-item-size", "8mb", "--proto-max-bulk-len", "16mb",
                         "--no-memcache")
    r = redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=30)
    assert r.config_get("proto-max-bulk-len") == {"proto-max-bulk-len": str(16 << 20)}
    value = bytes(i % 251 for i in range(4 << 20))
    assert r.set("big", value)
    assert r.get("big") == value
    assert r.strlen("big") == 4 << 20
    # Through a pipeline too, two at once.
    pipe = r.pipeline(transaction=False)
    pipe.set("a", value).set("b", value[::-1]).mget("a", "b")
    assert pipe.execute()[2] == [value, value[::-1]]
    r.close()


def test_value_over_the_item_size_is_an_error_reply(strata_factory):
    srv = strata_factory("--no-memcache")  # max item size 1 MiB
    r = redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=30)
    with pytest.raises(redis.ResponseError, match="exceeds maximum allowed size"):
        r.set("big", b"x" * (4 << 20))
    assert r.ping()  # the same connection still works
    r.close()


def test_bulk_over_proto_max_bulk_len_closes_like_redis(strata_factory):
    srv = strata_factory("--no-memcache")
    r = redis.Redis(host="127.0.0.1", port=srv.resp_port, socket_timeout=30)
    assert r.config_set("proto-max-bulk-len", "1mb")
    with socket.create_connection(("127.0.0.1", srv.resp_port), timeout=10) as s:
        s.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n")
        reply = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
        assert reply == b"-ERR Protocol error: invalid bulk length\r\n"
    assert r.config_set("proto-max-bulk-len", "512mb")
    assert r.config_get("proto-max-bulk-len") == {"proto-max-bulk-len": "536870912"}
    with pytest.raises(redis.ResponseError, match="between 1048576 and 536870912"):
        r.config_set("proto-max-bulk-len", "1gb")
    r.close()
