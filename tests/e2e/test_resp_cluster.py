"""Cluster mode through redis-py's cluster client (``RedisCluster``): it
discovers the one-node cluster with CLUSTER SLOTS and COMMAND, then sets,
reads, pipelines and runs scripts by slot; keys across slots in one request
are refused with CROSSSLOT, as a Redis cluster refuses them."""

import pytest
import redis
from redis.cluster import RedisCluster


def test_cluster_client_runs_against_one_node(strata_factory):
    srv = strata_factory("--cluster-enabled")
    rc = RedisCluster(host="127.0.0.1", port=srv.resp_port, decode_responses=True)
    try:
        nodes = rc.get_nodes()
        assert len(nodes) == 1 and nodes[0].port == srv.resp_port
        for i in range(100):
            rc.set(f"key:{i}", i)
        assert [rc.get(f"key:{i}") for i in range(100)] == [str(i) for i in range(100)]
        # Keys of many slots: the client splits MGET by slot.
        assert rc.mget_nonatomic([f"key:{i}" for i in range(10)]) == [str(i) for i in range(10)]
        # One slot by hash tag: one request, atomic.
        rc.mset({"{user:1}:name": "ada", "{user:1}:lang": "rust"})
        assert rc.mget("{user:1}:name", "{user:1}:lang") == ["ada", "rust"]
        assert rc.keyslot("{user:1}:name") == rc.cluster_keyslot("{user:1}:name")
        pipe = rc.pipeline()
        for i in range(20):
            pipe.incr(f"counter:{i}")
        assert pipe.execute() == [1] * 20
        incr_by = rc.register_script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        assert incr_by(keys=["counter:0"], args=[5]) == 6
        info = rc.cluster_info()
        assert info["cluster_state"] == "ok" and int(info["cluster_slots_assigned"]) == 16384
        with pytest.raises(redis.ResponseError, match="don.t hash to the same slot"):
            rc.execute_command("MSET", "a", "1", "b", "2", target_nodes=RedisCluster.PRIMARIES)
    finally:
        rc.close()
