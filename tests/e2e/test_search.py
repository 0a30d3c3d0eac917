"""The HTTP front end driven by the official `elasticsearch` Python client:
identity, index creation with mappings, bulk indexing, queries,
aggregations checked against values computed here from the same
documents, count, get/delete, msearch and the error statuses."""

import collections
import statistics

import elasticsearch
import pytest
from elasticsearch import helpers

HOUR_MS = 3_600_000
BASE_MS = 1_700_000_000_000
METHODS = ["GET", "POST", "PUT", "DELETE"]


def make_docs(n=200):
    docs = []
    for i in range(n):
        docs.append({
            "_id": str(i),
            "@timestamp": BASE_MS + i * 7 * 60_000,  # every 7 minutes
            "method": METHODS[i % 4 if i % 10 else 0],
            "status": 404 if i % 9 == 0 else (500 if i % 13 == 0 else 200),
            "bytes": (i * 37) % 1000,
            "message": f"GET /page/{i % 6} from client {i % 17}",
        })
    return docs


@pytest.fixture(scope="module")
def logs(es):
    name = "e2e-logs"
    es.options(ignore_status=404).indices.delete(index=name)
    es.indices.create(
        index=name,
        settings={"number_of_shards": 2, "number_of_replicas": 0},
        mappings={"properties": {
            "@timestamp": {"type": "date"},
            "method": {"type": "keyword"},
            "status": {"type": "integer"},
            "bytes": {"type": "long"},
            "message": {"type": "text"},
        }},
    )
    docs = make_docs()
    ok, errors = helpers.bulk(es, ({"_index": name, **d} for d in docs), refresh=True)
    assert (ok, errors) == (len(docs), [])
    yield name, docs
    es.indices.delete(index=name)


def source(doc):
    return {k: v for k, v in doc.items() if k != "_id"}


@pytest.mark.opensearch_differs(
    "OpenSearch reports its own version (2.19.6), distribution and tagline")
def test_info_identifies_elasticsearch(es):
    info = es.info()
    assert info["version"]["number"].startswith("8.")
    assert info["version"]["build_flavor"] == "default"
    assert info["tagline"] == "You Know, for Search"
    assert es.ping()


def test_mapping_is_kept(es, logs):
    name, _ = logs
    props = es.indices.get_mapping(index=name)[name]["mappings"]["properties"]
    assert props["status"]["type"] == "integer"
    assert props["method"]["type"] == "keyword"
    assert es.indices.exists(index=name)
    assert not es.indices.exists(index="e2e-missing")


def test_queries(es, logs):
    name, docs = logs
    r = es.search(index=name, query={"term": {"status": 404}}, size=0)
    assert r["hits"]["total"]["value"] == sum(d["status"] == 404 for d in docs)

    r = es.search(index=name, query={"match": {"message": "client"}}, size=0)
    assert r["hits"]["total"]["value"] == len(docs)

    r = es.search(index=name, query={"range": {"bytes": {"gte": 100, "lt": 300}}},
                  size=500, sort=[{"bytes": "asc"}])
    want = sorted(d["bytes"] for d in docs if 100 <= d["bytes"] < 300)
    assert [h["_source"]["bytes"] for h in r["hits"]["hits"]] == want

    r = es.search(index=name, size=500, query={"bool": {
        "must": [{"match": {"message": "page"}}],
        "filter": [{"term": {"method": "POST"}}],
        "must_not": [{"term": {"status": 404}}],
    }})
    want = {d["_id"] for d in docs if d["method"] == "POST" and d["status"] != 404}
    assert {h["_id"] for h in r["hits"]["hits"]} == want


def test_aggregations_match_computed_values(es, logs):
    name, docs = logs
    r = es.search(index=name, size=0, aggs={
        "methods": {"terms": {"field": "method"}},
        "per_hour": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1h"}},
        "avg_bytes": {"avg": {"field": "bytes"}},
        "bytes_stats": {"stats": {"field": "bytes"}},
    })
    aggs = r["aggregations"]
    methods = collections.Counter(d["method"] for d in docs)
    assert {b["key"]: b["doc_count"] for b in aggs["methods"]["buckets"]} == dict(methods)
    counts = [b["doc_count"] for b in aggs["methods"]["buckets"]]
    assert counts == sorted(counts, reverse=True)

    hours = collections.Counter(d["@timestamp"] // HOUR_MS * HOUR_MS for d in docs)
    got = {int(b["key"]): b["doc_count"] for b in aggs["per_hour"]["buckets"] if b["doc_count"]}
    assert got == dict(hours)

    values = [d["bytes"] for d in docs]
    assert aggs["avg_bytes"]["value"] == pytest.approx(statistics.mean(values))
    stats = aggs["bytes_stats"]
    assert stats["count"] == len(values)
    assert stats["min"] == min(values) and stats["max"] == max(values)
    assert stats["sum"] == pytest.approx(sum(values))
    assert stats["avg"] == pytest.approx(statistics.mean(values))


def test_count(es, logs):
    name, docs = logs
    assert es.count(index=name)["count"] == len(docs)
    r = es.count(index=name, query={"term": {"method": "GET"}})
    assert r["count"] == sum(d["method"] == "GET" for d in docs)


def test_get_index_delete(es, logs):
    name, docs = logs
    got = es.get(index=name, id="5")
    assert got["found"] and got["_source"] == source(docs[5])
    es.index(index=name, id="extra", document={"method": "GET", "status": 201}, refresh=True)
    assert es.get(index=name, id="extra")["_version"] == 1
    es.delete(index=name, id="extra", refresh=True)
    with pytest.raises(elasticsearch.NotFoundError):
        es.get(index=name, id="extra")
    assert es.count(index=name)["count"] == len(docs)


def test_msearch(es, logs):
    name, docs = logs
    r = es.msearch(searches=[
        {"index": name}, {"query": {"term": {"status": 500}}, "size": 0},
        {"index": name}, {"query": {"match_all": {}}, "size": 1},
    ])
    first, second = r["responses"]
    assert first["hits"]["total"]["value"] == sum(d["status"] == 500 for d in docs)
    assert len(second["hits"]["hits"]) == 1


def test_errors(es, logs):
    name, _ = logs
    with pytest.raises(elasticsearch.NotFoundError) as err:
        es.search(index="e2e-does-not-exist", query={"match_all": {}})
    assert err.value.meta.status == 404
    assert err.value.error == "index_not_found_exception"

    es.index(index=name, id="c1", document={"method": "GET"})
    with pytest.raises(elasticsearch.ConflictError) as err:
        es.create(index=name, id="c1", document={"method": "PUT"})
    assert err.value.error == "version_conflict_engine_exception"
    with pytest.raises(elasticsearch.ConflictError):
        es.index(index=name, id="c1", document={"method": "PUT"}, if_seq_no=999,
                 if_primary_term=1)
    es.delete(index=name, id="c1", refresh=True)

    with pytest.raises(elasticsearch.BadRequestError) as err:
        es.search(index=name, query={"no_such_query": {}})
    assert err.value.meta.status == 400
    with pytest.raises(elasticsearch.BadRequestError):
        es.indices.create(index=name)


def test_cluster_and_cat(es, logs):
    name, docs = logs
    health = es.cluster.health(wait_for_status="yellow", timeout="5s")
    assert health["status"] in ("green", "yellow")
    rows = es.cat.indices(index=name, format="json")
    assert rows[0]["index"] == name and int(rows[0]["docs.count"]) == len(docs)
    stats = es.indices.stats(index=name)
    assert stats["indices"][name]["primaries"]["docs"]["count"] == len(docs)


@pytest.mark.opensearch_differs(
    "action.destructive_requires_name defaults to false in OpenSearch (true since Elasticsearch 8): DELETE e2e-roll-* succeeds")
def test_aliases_templates_rollover(es):
    """Aliases, templates and rollover through the official client."""
    es.indices.put_index_template(
        name="e2e-roll", index_patterns=["e2e-roll-*"], priority=50,
        template={"settings": {"number_of_shards": 2},
                  "mappings": {"properties": {"level": {"type": "keyword"}}}})
    es.indices.create(index="e2e-roll-000001",
                      aliases={"e2e-roll": {"is_write_index": True},
                               "e2e-errors": {"filter": {"term": {"level": "error"}}}})
    for i, level in enumerate(["error", "info", "error"]):
        es.index(index="e2e-roll", id=str(i), document={"level": level})
    es.indices.refresh(index="e2e-roll")
    assert es.count(index="e2e-roll")["count"] == 3
    assert es.count(index="e2e-errors")["count"] == 2
    assert es.search(index="e2e-errors", query={"term": {"level": "info"}})["hits"]["total"]["value"] == 0
    assert es.indices.exists_alias(name="e2e-errors")
    assert not es.indices.exists_alias(name="e2e-nope")
    got = es.indices.get_alias(name="e2e-roll")
    assert got["e2e-roll-000001"]["aliases"]["e2e-roll"]["is_write_index"] is True
    mapping = es.indices.get_mapping(index="e2e-roll-000001")
    assert mapping["e2e-roll-000001"]["mappings"]["properties"]["level"]["type"] == "keyword"

    r = es.indices.rollover(alias="e2e-roll", conditions={"max_docs": 10})
    assert r["rolled_over"] is False and r["conditions"] == {"[max_docs: 10]": False}
    r = es.indices.rollover(alias="e2e-roll", conditions={"max_docs": 3})
    assert r["rolled_over"] is True and r["new_index"] == "e2e-roll-000002"
    es.index(index="e2e-roll", id="new", document={"level": "info"}, refresh=True)
    assert es.get(index="e2e-roll-000002", id="new")["found"]
    settings = es.indices.get_settings(index="e2e-roll-000002")
    assert settings["e2e-roll-000002"]["settings"]["index"]["number_of_shards"] == "2"
    assert es.count(index="e2e-roll")["count"] == 4

    es.indices.update_aliases(actions=[
        {"remove": {"index": "e2e-roll-*", "alias": "e2e-errors"}},
        {"add": {"index": "e2e-roll-000002", "alias": "e2e-latest"}},
    ])
    assert not es.indices.exists_alias(name="e2e-errors")
    assert es.count(index="e2e-latest")["count"] == 1
    rows = es.cat.aliases(name="e2e-*", format="json")
    assert {(r["alias"], r["index"]) for r in rows} >= {("e2e-latest", "e2e-roll-000002")}

    with pytest.raises(elasticsearch.BadRequestError) as err:
        es.indices.put_alias(index="e2e-roll-000001", name="e2e-roll-000002")
    assert err.value.error == "invalid_alias_name_exception"
    with pytest.raises(elasticsearch.BadRequestError) as err:
        es.indices.delete(index="e2e-roll-*")
    assert err.value.error == "illegal_argument_exception"
    with pytest.raises(elasticsearch.NotFoundError):
        es.indices.get_index_template(name="e2e-nope")

    es.indices.put_template(name="e2e-legacy", index_patterns=["e2e-legacy-*"],
                            settings={"number_of_shards": 3})
    es.index(index="e2e-legacy-1", id="1", document={"a": 1})
    settings = es.indices.get_settings(index="e2e-legacy-1")
    assert settings["e2e-legacy-1"]["settings"]["index"]["number_of_shards"] == "3"
    assert es.indices.exists_template(name="e2e-legacy")

    es.indices.delete(index="e2e-roll-000001,e2e-roll-000002,e2e-legacy-1")
    es.indices.delete_index_template(name="e2e-roll")
    es.indices.delete_template(name="e2e-legacy")
    assert es.indices.get_alias() == {} or all(
        not k.startswith("e2e-roll") for k in es.indices.get_alias())


def test_text_queries(es, logs):
    name, docs = logs
    r = es.search(index=name, size=500, query={"query_string": {
        "query": "method:(GET OR PUT) AND NOT status:404", "analyze_wildcard": True}})
    want = {d["_id"] for d in docs if d["method"] in ("GET", "PUT") and d["status"] != 404}
    assert {h["_id"] for h in r["hits"]["hits"]} == want
    # No default field: every field, leniently (numbers too).
    r = es.search(index=name, size=0, query={"query_string": {"query": "client"}})
    assert r["hits"]["total"]["value"] == len(docs)
    r = es.search(index=name, size=500, q="status:(404 OR 500) AND method:P*")
    want = {d["_id"] for d in docs if d["status"] in (404, 500) and d["method"].startswith("P")}
    assert {h["_id"] for h in r["hits"]["hits"]} == want
    r = es.search(index=name, size=500, query={"simple_query_string": {
        "query": "page + (3 | \"client 4\"", "fields": ["mess*"]}})
    want = {d["_id"] for d in docs
            if int(d["_id"]) % 6 == 3 or int(d["_id"]) % 17 in (3, 4)}
    assert {h["_id"] for h in r["hits"]["hits"]} == want
    with pytest.raises(elasticsearch.BadRequestError) as err:
        es.search(index=name, query={"query_string": {"query": "method:(GET"}})
    assert err.value.error == "search_phase_execution_exception"
    assert err.value.body["error"]["root_cause"][0]["type"] == "query_shard_exception"
    assert err.value.body["error"]["root_cause"][0]["index"] == name
    assert err.value.body["error"]["failed_shards"][0]["reason"]["type"] == "query_shard_exception"


def test_calendar_aggregations_and_top_hits(es, logs):
    import zoneinfo
    from datetime import datetime, timezone

    name, docs = logs
    zone = zoneinfo.ZoneInfo("America/New_York")
    r = es.search(index=name, size=0, aggs={
        "days": {"date_histogram": {"field": "@timestamp", "calendar_interval": "day",
                                    "time_zone": "America/New_York", "min_doc_count": 1}},
        "methods": {"terms": {"field": "method"}, "aggs": {
            "biggest": {"top_hits": {"size": 1, "sort": [{"bytes": "desc"}],
                                     "_source": ["bytes"]}}}},
        "window": {"date_range": {"field": "@timestamp", "ranges": [
            {"from": BASE_MS, "to": f"{BASE_MS}||+6h"}]}},
    })
    aggs = r["aggregations"]
    days = collections.Counter()
    for d in docs:
        local = datetime.fromtimestamp(d["@timestamp"] / 1000, tz=timezone.utc).astimezone(zone)
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        days[int(midnight.timestamp() * 1000)] += 1
    assert {b["key"]: b["doc_count"] for b in aggs["days"]["buckets"]} == dict(days)
    assert all(b["key_as_string"].endswith("-05:00") for b in aggs["days"]["buckets"])
    for b in aggs["methods"]["buckets"]:
        best = max((d for d in docs if d["method"] == b["key"]), key=lambda d: d["bytes"])
        hit = b["biggest"]["hits"]["hits"][0]
        assert hit["_id"] == best["_id"] and hit["_source"] == {"bytes": best["bytes"]}
    in_window = sum(BASE_MS <= d["@timestamp"] < BASE_MS + 6 * HOUR_MS for d in docs)
    assert aggs["window"]["buckets"][0]["doc_count"] == in_window
    with pytest.raises(elasticsearch.BadRequestError) as err:
        es.search(index=name, size=0, aggs={"x": {"date_histogram": {
            "field": "@timestamp", "calendar_interval": "2d"}}})
    assert err.value.error == "x_content_parse_exception"
    assert "[date_histogram] failed to parse field [calendar_interval]" in err.value.body["error"]["reason"]
    assert err.value.body["error"]["caused_by"]["type"] == "illegal_argument_exception"


def test_regexp_and_missing_buckets(es):
    """`regexp`, `query_string` `/.../` and `missing` on terms and
    histograms, against values computed here."""
    name = "e2e-regexp"
    es.options(ignore_status=404).indices.delete(index=name)
    es.indices.create(index=name, mappings={"properties": {
        "user": {"type": "keyword"},
        "note": {"type": "text"},
        "size": {"type": "long"},
        "@timestamp": {"type": "date"},
    }})
    docs = []
    for i in range(30):
        doc = {"note": f"Entry{i % 4} ok"}
        if i % 3:
            doc["user"] = f"user{i % 7}"
        if i % 4:
            doc["size"] = i * 10
        if i % 5:
            doc["@timestamp"] = BASE_MS + i * HOUR_MS
        docs.append(doc)
    helpers.bulk(es, ({"_index": name, "_id": str(i), **d} for i, d in enumerate(docs)),
                 refresh=True)

    def ids(resp):
        return {h["_id"] for h in resp["hits"]["hits"]}

    want = {str(i) for i, d in enumerate(docs) if d.get("user") in ("user1", "user2", "user3")}
    resp = es.search(index=name, size=50, query={"regexp": {"user": "user[1-3]"}})
    assert ids(resp) == want
    resp = es.search(index=name, size=50, query={"query_string": {"query": "user:/user[1-3]/"}})
    assert ids(resp) == want
    # On text, the expression runs on the (lower-cased) tokens.
    resp = es.search(index=name, size=50, query={"query_string": {"query": "note:/ENTRY[02]/"}})
    assert ids(resp) == {str(i) for i in range(30) if i % 4 in (0, 2)}
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index=name, query={"regexp": {"user": {"value": "a", "flags": "SOMETIMES"}}})

    terms = es.search(index=name, size=0, aggs={
        "users": {"terms": {"field": "user", "missing": "nobody", "size": 20}}})
    counts = collections.Counter(d.get("user", "nobody") for d in docs)
    got = {b["key"]: b["doc_count"] for b in terms["aggregations"]["users"]["buckets"]}
    assert got == dict(counts)

    hist = es.search(index=name, size=0, aggs={
        "sizes": {"histogram": {"field": "size", "interval": 100, "missing": 0},
                  "aggs": {"top": {"max": {"field": "size"}}}}})
    want = collections.Counter((d.get("size", 0) // 100) * 100 for d in docs)
    buckets = hist["aggregations"]["sizes"]["buckets"]
    assert {int(b["key"]): b["doc_count"] for b in buckets} == dict(want)
    first = buckets[0]
    assert first["top"]["value"] == max(d.get("size", 0) for d in docs if d.get("size", 0) < 100)

    missing_ms = BASE_MS + 40 * HOUR_MS
    dates = es.search(index=name, size=0, aggs={
        "per_day": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1d",
                                       "missing": missing_ms}}})
    day = 86_400_000
    per_day = collections.Counter((d.get("@timestamp", missing_ms) // day) * day for d in docs)
    lo, hi = min(per_day), max(per_day)
    want = [(k, per_day.get(k, 0)) for k in range(lo, hi + day, day)]
    got = [(b["key"], b["doc_count"]) for b in dates["aggregations"]["per_day"]["buckets"]]
    assert got == want
    es.indices.delete(index=name)
