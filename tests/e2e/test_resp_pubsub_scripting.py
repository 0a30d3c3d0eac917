"""Pub/sub and Lua scripting through redis-py: PubSub objects (channels,
patterns, RESP3), register_script/EVALSHA in pipelines, SCRIPT KILL of an
endless script, and a subscriber that never reads. Also passes against a
real redis-server 7 (STRATA_E2E_PEERS=1)."""

import json
import socket
import threading
import time

import pytest
import redis


def next_message(pubsub, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = pubsub.get_message(timeout=0.1)
        if msg is not None:
            return msg
    raise AssertionError("no message arrived")


def test_pubsub_channels_and_patterns(r, r2):
    p = r2.pubsub()
    p.subscribe("news")
    assert next_message(p)["type"] == "subscribe"
    p.psubscribe("sport.*")
    assert next_message(p) == {"type": "psubscribe", "pattern": None,
                               "channel": b"sport.*", "data": 2}
    assert r.publish("news", "hello") == 1
    assert next_message(p) == {"type": "message", "pattern": None,
                               "channel": b"news", "data": b"hello"}
    assert r.publish("sport.tennis", "ace") == 1
    assert next_message(p) == {"type": "pmessage", "pattern": b"sport.*",
                               "channel": b"sport.tennis", "data": b"ace"}
    assert r.pubsub_channels() == [b"news"]
    assert r.pubsub_numsub("news", "none") == [(b"news", 1), (b"none", 0)]
    assert r.pubsub_numpat() == 1
    p.unsubscribe("news")
    assert next_message(p)["type"] == "unsubscribe"
    assert r.publish("news", "again") == 0
    p.close()


def test_pubsub_handler_thread(r, r2):
    got = []
    done = threading.Event()

    def handler(msg):
        got.append(msg["data"])
        if len(got) == 100:
            done.set()

    p = r2.pubsub()
    p.subscribe(**{"jobs": handler})
    worker = p.run_in_thread(sleep_time=0.01)
    try:
        deadline = time.monotonic() + 5
        while r.pubsub_numsub("jobs")[0][1] != 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        for i in range(100):
            r.publish("jobs", str(i))
        assert done.wait(10)
        assert got == [str(i).encode() for i in range(100)]
    finally:
        worker.stop()
        worker.join(5)
        p.close()


def test_pubsub_resp3(server):
    client = redis.Redis(host="127.0.0.1", port=server.resp_port, protocol=3, socket_timeout=10)
    publisher = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    p = client.pubsub()
    p.subscribe("c3")
    assert next_message(p)["type"] == "subscribe"
    assert publisher.publish("c3", "pushed") == 1
    assert next_message(p)["data"] == b"pushed"
    p.close()
    client.close()
    publisher.close()


def test_register_script_and_pipelines(r):
    incr_by = r.register_script(
        "local v = redis.call('INCRBY', KEYS[1], ARGV[1]) "
        "if v > tonumber(ARGV[2]) then return redis.error_reply('LIMIT exceeded') end "
        "return v")
    r.script_flush()
    # NOSCRIPT is handled by redis-py: it loads the script and retries.
    assert incr_by(keys=["counter"], args=[5, 100]) == 5
    assert incr_by(keys=["counter"], args=[5, 100]) == 10
    with pytest.raises(redis.ResponseError, match="LIMIT exceeded"):
        incr_by(keys=["counter"], args=[200, 100])
    pipe = r.pipeline()
    for _ in range(10):
        incr_by(keys=["counter"], args=[1, 10_000], client=pipe)
    assert pipe.execute() == list(range(211, 221))
    assert r.script_exists(incr_by.sha) == [True]
    assert r.eval("return {KEYS[1], ARGV[1], 3, redis.status_reply('ok')}", 1, "k", "a") == \
        [b"k", b"a", 3, b"ok"]


def test_rate_limiter_script_is_atomic(server):
    limiter = """
    local n = redis.call('INCR', KEYS[1])
    if n == 1 then redis.call('PEXPIRE', KEYS[1], 60000) end
    if n > tonumber(ARGV[1]) then return 0 end
    return 1
    """
    allowed = []

    def worker():
        c = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
        script = c.register_script(limiter)
        allowed.append(sum(script(keys=["rl"], args=[50]) for _ in range(40)))
        c.close()

    c = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    c.delete("rl")
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(allowed) == 50
    assert int(c.get("rl")) == 160
    c.close()


def test_endless_script_is_killed(server):
    admin = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    admin.config_set("busy-reply-threshold", 200)
    runner = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    errors = []

    def run():
        try:
            runner.eval("while true do end", 0)
        except redis.ResponseError as err:
            errors.append(str(err))

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.5)
    with pytest.raises(redis.ResponseError, match="BUSY"):
        admin.get("x")
    assert admin.script_kill()
    t.join(10)
    assert errors and "killed" in errors[0].lower()
    assert admin.ping()
    admin.config_set("busy-reply-threshold", 5000)
    runner.close()
    admin.close()


def test_subscriber_that_never_reads_is_cut_off(server):
    admin = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    admin.config_set("client-output-buffer-limit", "pubsub 1mb 256kb 60")
    try:
        sock = socket.create_connection(("127.0.0.1", server.resp_port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(b"*2\r\n$9\r\nSUBSCRIBE\r\n$5\r\nflood\r\n")
        deadline = time.monotonic() + 5
        while admin.pubsub_numsub("flood")[0][1] != 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        payload = b"x" * 65536
        receivers = [admin.publish("flood", payload) for _ in range(400)]
        assert receivers[-1] == 0, "the subscriber was never disconnected"
        deadline = time.monotonic() + 5
        while admin.pubsub_numsub("flood")[0][1] != 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        sock.close()
    finally:
        admin.config_set("client-output-buffer-limit", "pubsub 32mb 8mb 60")
        admin.close()


def test_scripts_with_redis_libraries_through_redis_py(r):
    """A job-queue style script (BullMQ keeps job data as cmsgpack and
    options as JSON): the libraries Redis bundles, driven by redis-py's
    register_script, with the same answers as Redis 7."""
    add_job = r.register_script(
        "local opts = cjson.decode(ARGV[2]) "
        "local id = redis.call('INCR', KEYS[1] .. ':id') "
        "redis.call('HSET', KEYS[1] .. ':' .. id, 'data', cmsgpack.pack(cjson.decode(ARGV[1])), "
        "'prio', bit.band(opts.priority, 0xff)) "
        "redis.call('ZADD', KEYS[1] .. ':wait', opts.priority, id) "
        "return id")
    get_job = r.register_script(
        "local packed = redis.call('HGET', KEYS[1] .. ':' .. ARGV[1], 'data') "
        "local ok, job = pcall(cmsgpack.unpack, packed) "
        "if not ok then return redis.error_reply(job) end "
        "return cjson.encode(job)")
    job_id = add_job(keys=["q"], args=['{"name":"mail","to":["a@b.c"],"tries":3}', '{"priority":258}'])
    assert job_id == 1
    assert r.hget("q:1", "prio") == b"2"
    assert json.loads(get_job(keys=["q"], args=[job_id])) == {"name": "mail", "to": ["a@b.c"], "tries": 3}
    r.hset("q:2", "data", b"\xc1")
    with pytest.raises(redis.ResponseError, match="Bad data format in input."):
        get_job(keys=["q"], args=[2])
    assert r.eval("return struct.unpack('>I2', struct.pack('>I2', 258))", 0) == 258
    assert r.eval("return cjson.encode({a = 'x/y'})", 0) == b'{"a":"x\\/y"}'
    # A script cannot leave anything behind for the next one.
    with pytest.raises(redis.ResponseError, match="readonly table"):
        r.eval("cjson.encode = nil", 0)
    assert r.eval("return cjson.encode({1, 2})", 0) == b"[1,2]"
