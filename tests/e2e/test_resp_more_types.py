"""Bitmaps, HyperLogLog, geospatial indexes, TOUCH and CLIENT KILL through
redis-py (the suite also runs against a real redis-server with
STRATA_E2E_PEERS=1)."""

import time

import pytest
import redis


def test_bits_set_read_and_counted(r):
    assert r.setbit("b", 7, 1) == 0
    assert r.setbit("b", 100, 1) == 0
    assert r.getbit("b", 100) == 1
    assert r.getbit("b", 101) == 0
    assert r.strlen("b") == 13
    assert r.bitcount("b") == 2
    r.set("s", "foobar")
    assert r.bitcount("s", 1, 1) == 6
    assert r.bitcount("s", 5, 30, mode="BIT") == 17
    r.set("p", b"\xff\xf0\x00")
    assert r.bitpos("p", 0) == 12
    assert r.bitpos("p", 1, 2) == -1
    assert r.bitpos("p", 1, 7, 15, mode="BIT") == 7
    with pytest.raises(redis.ResponseError, match="bit offset"):
        r.setbit("b", -1, 1)


def test_bitop_and_bitfield(r):
    r.set("x1", b"\xcc\xff")
    r.set("x2", b"\xaa")
    assert r.bitop("AND", "dest", "x1", "x2") == 2
    assert r.get("dest") == b"\x88\x00"
    assert r.bitop("NOT", "dest", "x2") == 1
    assert r.get("dest") == b"\x55"
    field = r.bitfield("bf")
    field.set("u8", 0, 200).get("u8", 0).incrby("u8", 0, 100)
    field.overflow("FAIL").incrby("u8", 0, 250)
    assert field.execute() == [0, 200, 44, None]
    assert r.bitfield_ro("bf", "u8", 0, items=[("i4", "#1")]) == [44, -4]


def test_hyperloglog_counts_and_merges(r):
    assert r.pfadd("visitors", *[f"user{i}" for i in range(1000)]) == 1
    assert r.pfadd("visitors", "user1") == 0
    assert 980 <= r.pfcount("visitors") <= 1020
    r.pfadd("other", *[f"user{i}" for i in range(500, 1500)])
    assert 1460 <= r.pfcount("visitors", "other") <= 1540
    assert r.pfmerge("both", "visitors", "other") is True
    assert r.pfcount("both") == r.pfcount("visitors", "other")
    r.set("plain", "text")
    with pytest.raises(redis.ResponseError, match="not a valid HyperLogLog"):
        r.pfadd("plain", "x")


def test_geo_positions_and_searches(r):
    assert r.geoadd("Sicily", (13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania")) == 2
    assert r.geodist("Sicily", "Palermo", "Catania", unit="km") == pytest.approx(166.2742)
    (x, y), missing = r.geopos("Sicily", "Palermo", "nope")
    assert (x, y) == pytest.approx((13.361389, 38.115556), abs=1e-5)
    assert missing is None
    assert r.geohash("Sicily", "Palermo") == ["sqc8b49rny0"]
    near = r.geosearch("Sicily", longitude=15, latitude=37, radius=200, unit="km",
                       sort="ASC", withdist=True)
    assert [(m, round(d, 4)) for m, d in near] == [(b"Catania", 56.4413), (b"Palermo", 190.4424)]
    assert r.geosearch("Sicily", member="Palermo", width=400, height=400, unit="km",
                       sort="DESC") == [b"Catania", b"Palermo"]
    assert r.geosearchstore("near", "Sicily", longitude=15, latitude=37, radius=100, unit="km") == 1
    assert r.zrange("near", 0, -1) == [b"Catania"]


def test_touch_counts_existing_keys(r):
    r.set("a", "1")
    r.rpush("l", "x")
    assert r.touch("a", "missing", "l") == 2


def test_client_kill_by_id_and_filter(r, server):
    victim = redis.Redis(host="127.0.0.1", port=server.resp_port, socket_timeout=10)
    victim_id = victim.client_id()
    assert r.client_kill_filter(_id=victim_id) == 1
    deadline = time.monotonic() + 5
    while any(int(c["id"]) == victim_id for c in r.client_list()):
        assert time.monotonic() < deadline, "the killed client is still listed"
        time.sleep(0.02)
    assert r.client_kill_filter(_id=victim_id) == 0
    assert r.ping() is True
    victim.close()
