"""Search placement through the official `elasticsearch` client: a server
started with `--search-tier ssd` and a 1 MiB block cache places new
indices on `ssd`, answers from flushed segments read through the cache
(counted in `_nodes/stats`), and refuses bad or changed tiers."""

import elasticsearch
import pytest
from elasticsearch import Elasticsearch, helpers


@pytest.fixture
def tiered(strata_factory):
    srv = strata_factory("--search-tier", "ssd", "--search-cache-size", "1mb")
    client = Elasticsearch(f"http://127.0.0.1:{srv.http_port}", request_timeout=30)
    yield client
    client.close()


def test_ssd_default_small_cache_and_refusals(tiered):
    es = tiered
    es.indices.create(index="events", settings={"number_of_shards": 2})
    tier = es.indices.get_settings(index="events")["events"]["settings"]["index"]["store"]["tier"]
    assert tier == "ssd"
    docs = [{"_index": "events", "_id": str(i), "_source": {"n": i, "msg": f"event {i}"}}
            for i in range(3000)]
    helpers.bulk(es, docs)
    es.indices.flush(index="events")
    es.indices.refresh(index="events")
    reply = es.search(index="events", size=0, query={"match": {"msg": "event"}},
                      aggs={"total": {"sum": {"field": "n"}}})
    assert reply["hits"]["total"]["value"] == 3000
    assert reply["aggregations"]["total"]["value"] == sum(range(3000))
    assert es.get(index="events", id="2999")["_source"]["n"] == 2999
    node = next(iter(es.nodes.stats()["nodes"].values()))
    cache = node["strata_search_cache"]
    assert cache["budget_in_bytes"] == 1 << 20
    assert cache["misses"] > 0
    assert cache["size_in_bytes"] <= 1 << 20

    with pytest.raises(elasticsearch.BadRequestError) as bad:
        es.indices.create(index="other", settings={"index.store.tier": "tape"})
    assert bad.value.error == "illegal_argument_exception"
    with pytest.raises(elasticsearch.BadRequestError):
        es.indices.put_settings(index="events", settings={"index.store.tier": "dram"})
    es.indices.create(index="hot", settings={"index": {"store": {"tier": "dram"}}})
    tier = es.indices.get_settings(index="hot")["hot"]["settings"]["index"]["store"]["tier"]
    assert tier == "dram"
