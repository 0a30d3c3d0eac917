"""RESP pipelines and MULTI/EXEC transactions with WATCH."""

import pytest
import redis


def test_pipeline_returns_replies_in_order(r):
    pipe = r.pipeline(transaction=False)
    for i in range(200):
        pipe.set(f"p:{i}", i)
    for i in range(200):
        pipe.get(f"p:{i}")
    replies = pipe.execute()
    assert replies[:200] == [True] * 200
    assert replies[200:] == [str(i).encode() for i in range(200)]


def test_multi_exec_runs_queued_commands(r):
    pipe = r.pipeline()  # MULTI ... EXEC
    pipe.set("a", "1").incr("a").get("a")
    assert pipe.execute() == [True, 2, b"2"]


def test_exec_reports_errors_of_single_commands(r):
    r.set("text", "abc")
    pipe = r.pipeline()
    pipe.set("ok", "1").incr("text").get("ok")
    results = pipe.execute(raise_on_error=False)
    assert results[0] is True
    assert isinstance(results[1], redis.ResponseError)
    assert results[2] == b"1"


def test_discard_drops_the_queue(raw_resp):
    assert raw_resp.request(b"*1\r\n$5\r\nMULTI\r\n") == b"+OK\r\n"
    assert raw_resp.request(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n") == b"+QUEUED\r\n"
    assert raw_resp.request(b"*1\r\n$7\r\nDISCARD\r\n") == b"+OK\r\n"
    assert raw_resp.request(b"*2\r\n$6\r\nEXISTS\r\n$1\r\nk\r\n") == b":0\r\n"
    assert raw_resp.request(b"*1\r\n$4\r\nEXEC\r\n").startswith(b"-ERR")


def test_watch_aborts_when_another_client_writes(r, r2):
    r.set("balance", 100)
    with r.pipeline() as pipe:
        pipe.watch("balance")
        current = int(pipe.get("balance"))
        r2.set("balance", 0)  # a concurrent writer
        pipe.multi()
        pipe.set("balance", current - 10)
        with pytest.raises(redis.WatchError):
            pipe.execute()
    assert r.get("balance") == b"0"


def test_watch_lets_an_untouched_transaction_through(r):
    r.set("balance", 100)

    def withdraw(pipe):
        current = int(pipe.get("balance"))
        pipe.multi()
        pipe.set("balance", current - 10)

    r.transaction(withdraw, "balance")
    assert r.get("balance") == b"90"


def test_watch_sees_expiry_and_deletion(r, r2):
    r.set("k", "v")
    with r.pipeline() as pipe:
        pipe.watch("k")
        r2.delete("k")
        pipe.multi()
        pipe.set("k", "mine")
        with pytest.raises(redis.WatchError):
            pipe.execute()
