"""Scroll, point in time, the by-query APIs and tasks, driven by the
official `elasticsearch` Python client; every answer is checked against
values computed here from the documents indexed."""

import time

import elasticsearch
import pytest
from elasticsearch import Elasticsearch, helpers


@pytest.fixture(scope="module")
def es(server):
    if getattr(server, "http_port", None) is None:
        pytest.skip("the server under test has no HTTP front end")
    client = Elasticsearch(f"http://127.0.0.1:{server.http_port}", request_timeout=30)
    yield client
    client.close()


def fill(es, name, n, shards=2):
    es.options(ignore_status=404).indices.delete(index=name)
    es.indices.create(
        index=name,
        settings={"number_of_shards": shards, "number_of_replicas": 0},
        mappings={"properties": {"n": {"type": "long"}, "tag": {"type": "keyword"},
                                 "text": {"type": "text"}}},
    )
    docs = [{"_index": name, "_id": str(i), "n": i, "tag": f"t{i % 7}",
             "text": "alpha beta" if i % 3 else "alpha"} for i in range(n)]
    # Several refreshes: several segments per shard.
    for start in range(0, n, 150):
        helpers.bulk(es, docs[start:start + 150], refresh=True)
    return docs


def test_helpers_scan_reads_every_document_once(es):
    docs = fill(es, "apis-scan", 1000)
    got = [h["_id"] for h in helpers.scan(es, index="apis-scan", size=97)]
    assert sorted(got, key=int) == [d["_id"] for d in docs]
    # Preserving the order of a sort, with a query.
    hits = list(helpers.scan(es, index="apis-scan", size=50, preserve_order=True,
                             query={"query": {"term": {"tag": "t3"}}, "sort": [{"n": "desc"}]}))
    want = sorted((d["n"] for d in docs if d["tag"] == "t3"), reverse=True)
    assert [h["_source"]["n"] for h in hits] == want
    # By score: every match once.
    hits = list(helpers.scan(es, index="apis-scan", size=64, preserve_order=True,
                             query={"query": {"match": {"text": "beta"}}}))
    assert sorted(int(h["_id"]) for h in hits) == [i for i in range(1000) if i % 3]
    assert es.count(index="apis-scan")["count"] == 1000


def test_scroll_sees_a_snapshot_and_is_cleared(es):
    fill(es, "apis-scroll", 300, shards=1)
    first = es.search(index="apis-scroll", scroll="1m", size=100, sort=["n"])
    sid = first["_scroll_id"]
    assert first["hits"]["total"] == {"value": 300, "relation": "eq"}
    # Writes after the scroll opened are not seen by it.
    es.index(index="apis-scroll", id="new", document={"n": -1}, refresh=True)
    es.delete(index="apis-scroll", id="150", refresh=True)
    seen = [h["_source"]["n"] for h in first["hits"]["hits"]]
    while True:
        page = es.scroll(scroll_id=sid, scroll="1m")
        if not page["hits"]["hits"]:
            break
        assert page["hits"]["total"]["value"] == 300
        seen += [h["_source"]["n"] for h in page["hits"]["hits"]]
    assert seen == list(range(300))
    freed = es.clear_scroll(scroll_id=sid)
    assert freed == {"succeeded": True, "num_freed": 1}
    with pytest.raises(elasticsearch.NotFoundError) as e:
        es.scroll(scroll_id=sid, scroll="1m")
    assert e.value.meta.status == 404
    assert e.value.body["error"]["type"] == "search_context_missing_exception"
    again = es.options(ignore_status=404).clear_scroll(scroll_id=sid)
    assert again.meta.status == 404 and again["num_freed"] == 0
    # `_all` clears every scroll.
    ids = [es.search(index="apis-scroll", scroll="1m", size=1)["_scroll_id"] for _ in range(3)]
    assert es.clear_scroll(scroll_id="_all")["num_freed"] >= 3
    assert es.options(ignore_status=404).scroll(scroll_id=ids[0]).meta.status == 404


def test_scroll_expires_after_keep_alive(es):
    fill(es, "apis-expiry", 20, shards=1)
    sid = es.search(index="apis-expiry", scroll="1s", size=5)["_scroll_id"]
    pit = es.open_point_in_time(index="apis-expiry", keep_alive="1s")["id"]
    time.sleep(2.5)
    assert es.options(ignore_status=404).scroll(scroll_id=sid, scroll="1s").meta.status == 404
    r = es.options(ignore_status=404).search(pit={"id": pit}, size=1)
    assert r.meta.status == 404


def test_open_context_limit(es):
    fill(es, "apis-limit", 5, shards=1)
    es.cluster.put_settings(transient={"search.max_open_scroll_context": 3})
    try:
        es.clear_scroll(scroll_id="_all")
        for _ in range(3):
            es.search(index="apis-limit", scroll="1m", size=1)
        with pytest.raises(elasticsearch.ApiError) as e:
            es.search(index="apis-limit", scroll="1m", size=1)
        assert e.value.meta.status == 429
        assert "Trying to create too many scroll contexts. Must be less than or equal to: [3]" in str(e.value)
        es.clear_scroll(scroll_id="_all")
        es.search(index="apis-limit", scroll="1m", size=1)
    finally:
        es.clear_scroll(scroll_id="_all")
        es.cluster.put_settings(transient={"search.max_open_scroll_context": None})


def test_point_in_time_pages_with_search_after(es):
    docs = fill(es, "apis-pit", 500)
    pit = es.open_point_in_time(index="apis-pit", keep_alive="1m")
    assert pit["_shards"]["total"] == 2
    es.index(index="apis-pit", id="late", document={"n": 10_000}, refresh=True)
    seen, after = [], None
    while True:
        body = {"pit": {"id": pit["id"], "keep_alive": "1m"}, "size": 64, "sort": [{"tag": "asc"}]}
        if after:
            body["search_after"] = after
        page = es.search(**body)
        assert page["pit_id"] == pit["id"]
        hits = page["hits"]["hits"]
        if not hits:
            break
        seen += [(h["_source"]["tag"], int(h["_id"])) for h in hits]
        after = hits[-1]["sort"]
        assert len(after) == 2  # tag and the _shard_doc tiebreak
    assert sorted(seen) == sorted((d["tag"], int(d["_id"])) for d in docs)
    assert [t for t, _ in seen] == sorted(t for t, _ in seen)
    # A PIT search may not name an index; _shard_doc needs a PIT.
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index="apis-pit", pit={"id": pit["id"]})
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index="apis-pit", sort=["_shard_doc"])
    assert es.close_point_in_time(id=pit["id"]) == {"succeeded": True, "num_freed": 1}
    assert es.options(ignore_status=404).close_point_in_time(id=pit["id"]).meta.status == 404
