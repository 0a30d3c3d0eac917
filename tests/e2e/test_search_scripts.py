"""Painless-compatible scripts through the official `elasticsearch` Python
client: `_update` with `script` (and `upsert`, `scripted_upsert`,
`ctx.op`), `_bulk` scripted updates, `script_fields`, `runtime_mappings`,
`script_score`, `function_score`, the `script` query, `bucket_script` and
`bucket_selector`; every answer is checked against values computed here
from the same documents. Runaway scripts end with a `script_exception`."""

import datetime
import math

import elasticsearch
import pytest
from elasticsearch import helpers

INDEX = "e2e-scripts"
BASE_MS = 1_700_000_000_000
DAY_MS = 86_400_000


def make_docs(n=60):
    return [{
        "_id": str(i),
        "price": round(1.5 + (i * 7) % 23 * 0.75, 2),
        "qty": (i * 5) % 11,
        "cat": ["a", "b", "c"][i % 3],
        "title": f"item {i}",
        "ts": BASE_MS + i * DAY_MS // 4,
    } for i in range(n)]


@pytest.fixture(scope="module")
def products(es):
    es.options(ignore_status=404).indices.delete(index=INDEX)
    es.indices.create(index=INDEX, settings={"number_of_shards": 2}, mappings={"properties": {
        "price": {"type": "double"},
        "qty": {"type": "long"},
        "cat": {"type": "keyword"},
        "title": {"type": "text"},
        "ts": {"type": "date"},
    }})
    docs = make_docs()
    ok, errors = helpers.bulk(es, ({"_index": INDEX, **d} for d in docs), refresh=True)
    assert (ok, errors) == (len(docs), [])
    yield {d["_id"]: d for d in docs}
    es.indices.delete(index=INDEX)


def script_error(excinfo):
    """An update script's error and its script_exception: Elasticsearch's
    `failed to execute script` (also the root cause) caused by it."""
    err = excinfo.value.body["error"]
    assert err["root_cause"] == [{"type": "illegal_argument_exception", "reason": "failed to execute script"}]
    return err, err["caused_by"]


def test_update_with_script_upsert_and_op(es):
    name = "e2e-scripts-upd"
    es.options(ignore_status=404).indices.delete(index=name)
    es.index(index=name, id="1", document={"counter": 1, "tags": ["x"]}, refresh=True)
    r = es.update(index=name, id="1", script={
        "source": "ctx._source.counter += params.count; ctx._source.tags.add(params.tag)",
        "params": {"count": 4, "tag": "y"}})
    assert r["result"] == "updated" and r["_version"] == 2
    assert es.get(index=name, id="1")["_source"] == {"counter": 5, "tags": ["x", "y"]}
    # A string script, a new field, a noop and a delete.
    es.update(index=name, id="1", script="ctx._source.seen = true")
    assert es.get(index=name, id="1")["_source"]["seen"] is True
    r = es.update(index=name, id="1", script="ctx.op = 'none'")
    assert r["result"] == "noop" and r["_version"] == 3
    r = es.update(index=name, id="1", script="if (ctx._source.counter > 3) { ctx.op = 'delete' }")
    assert r["result"] == "deleted"
    assert not es.exists(index=name, id="1")
    # upsert: the document as given; scripted_upsert: through the script.
    r = es.update(index=name, id="2", script="ctx._source.n += 1", upsert={"n": 10})
    assert r["result"] == "created"
    assert es.get(index=name, id="2")["_source"] == {"n": 10}
    es.update(index=name, id="2", script="ctx._source.n += 1", upsert={"n": 10})
    assert es.get(index=name, id="2")["_source"] == {"n": 11}
    r = es.update(index=name, id="3", script={"source": "ctx._source.n = params.start * 2", "params": {"start": 21}},
                  upsert={}, scripted_upsert=True)
    assert r["result"] == "created"
    assert es.get(index=name, id="3")["_source"] == {"n": 42}
    # A missing document without upsert.
    with pytest.raises(elasticsearch.NotFoundError):
        es.update(index=name, id="nope", script="ctx._source.n = 1")
    # Scripted updates in _bulk.
    resp = es.bulk(operations=[
        {"update": {"_index": name, "_id": "2"}},
        {"script": {"source": "ctx._source.n *= params.f", "params": {"f": 3}}},
    ], refresh=True)
    assert not resp["errors"]
    assert es.get(index=name, id="2")["_source"] == {"n": 33}
    es.indices.delete(index=name)


def test_update_script_errors_have_elasticsearch_shape(es):
    name = "e2e-scripts-err"
    es.options(ignore_status=404).indices.delete(index=name)
    es.index(index=name, id="1", document={"n": 1}, refresh=True)
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.update(index=name, id="1", script="ctx._source.n += missing_var")
    err, root = script_error(e)
    assert err["type"] == "illegal_argument_exception"
    assert err["reason"] == "failed to execute script"
    assert root["type"] == "script_exception"
    assert root["reason"] == "compile error"
    assert root["lang"] == "painless"
    assert root["caused_by"] == {"type": "illegal_argument_exception", "reason": "cannot resolve symbol [missing_var]"}
    assert root["script_stack"][1].endswith("^---- HERE")
    assert root["position"]["offset"] == len("ctx._source.n += ")
    # Runtime: a null field.
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.update(index=name, id="1", script="ctx._source.absent.x = 1")
    err, root = script_error(e)
    assert root["reason"] == "runtime error"
    assert root["caused_by"]["type"] == "null_pointer_exception"
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.update(index=name, id="1", script={"source": "1", "lang": "expression"})
    err = e.value.body["error"]
    assert err["reason"] == "failed to execute script"
    assert err["caused_by"] == {"type": "illegal_argument_exception", "reason": "script_lang not supported [expression]"}
    # A runaway loop stops with an error; the document is unchanged.
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.update(index=name, id="1", script="while (true) { ctx._source.n++ }")
    root = script_error(e)[1]
    assert root["caused_by"]["type"] == "painless_error"
    assert "maximum number of statements" in root["caused_by"]["reason"]
    assert es.get(index=name, id="1")["_source"] == {"n": 1}
    es.indices.delete(index=name)


@pytest.mark.strata_differs(
    "lambdas are outside Strata's Painless subset (docs/scripting.md), where Elasticsearch and "
    "OpenSearch run them; a script that allocates without bound is Strata's circuit_breaking_exception "
    "and the JVM's out_of_memory_error in OpenSearch")
def test_update_script_limits_of_the_subset(es):
    name = "e2e-scripts-limits"
    es.options(ignore_status=404).indices.delete(index=name)
    es.index(index=name, id="1", document={"n": 1, "l": [1, 2, 3]}, refresh=True)
    # An unsupported construct names what is missing.
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.update(index=name, id="1", script="ctx._source.l.removeIf(x -> x > 1)")
    assert "lambdas" in script_error(e)[1]["caused_by"]["reason"]
    # A runaway allocation stops with an error; the document is unchanged.
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.update(index=name, id="1", script="String s = 'ab'; while (true) { s += s }")
    assert script_error(e)[1]["caused_by"]["type"] == "circuit_breaking_exception"
    assert es.get(index=name, id="1")["_source"] == {"n": 1, "l": [1, 2, 3]}
    es.indices.delete(index=name)


@pytest.mark.opensearch_differs(
    "OpenSearch has no runtime_mappings (runtime fields came in Elasticsearch 7.11)")
def test_script_fields_and_runtime_fields(es, products):
    r = es.search(index=INDEX, size=100, sort=[{"qty": "asc"}, {"price": "asc"}], query={"match_all": {}},
                  script_fields={
                      "total": {"script": {"source": "doc['price'].value * doc['qty'].value"}},
                      "label": {"script": "doc['cat'].value.toUpperCase() + '-' + doc['qty'].value"},
                      "day": {"script": "doc['ts'].value.getDayOfMonth()"},
                  })
    assert len(r["hits"]["hits"]) == len(products)
    for hit in r["hits"]["hits"]:
        d = products[hit["_id"]]
        assert hit["fields"]["total"] == [pytest.approx(d["price"] * d["qty"])]
        assert hit["fields"]["label"] == [f"{d['cat'].upper()}-{d['qty']}"]
        day = datetime.datetime.fromtimestamp(d["ts"] / 1000, datetime.timezone.utc).day
        assert hit["fields"]["day"] == [day]
    r = es.search(index=INDEX, size=100, query={"match_all": {}}, fields=["price_x2", "cat_len"],
                  runtime_mappings={
                      "price_x2": {"type": "double", "script": "emit(doc['price'].value * 2)"},
                      "cat_len": {"type": "long", "script": {"source": "if (doc['qty'].value > params.min) { emit(doc['cat'].value.length()) }", "params": {"min": 5}}},
                  })
    for hit in r["hits"]["hits"]:
        d = products[hit["_id"]]
        assert hit["fields"]["price_x2"] == [pytest.approx(d["price"] * 2)]
        if d["qty"] > 5:
            assert hit["fields"]["cat_len"] == [1]
        else:
            assert "cat_len" not in hit["fields"]
    # A text field has no doc values: the fetch phase fails on the shards
    # whose hits it fetches. The first hit of a match_all comes from shard 0
    # (ties go to the lower shard): that shard fails, the other succeeds.
    r = es.search(index=INDEX, size=1, script_fields={"t": {"script": "doc['title'].value"}})
    assert r["_shards"]["total"] == 2 and r["_shards"]["failed"] == 1
    assert r["hits"]["hits"] == []
    # Hits from both shards: every shard fails, so the search does.
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=INDEX, size=100, script_fields={"t": {"script": "doc['title'].value"}})
    err = e.value.body["error"]
    assert err["type"] == "search_phase_execution_exception"
    assert err["caused_by"]["type"] == "script_exception"
    assert err["caused_by"]["caused_by"]["reason"].startswith("Text fields are not optimised")


def test_script_score_and_script_query(es, products):
    r = es.search(index=INDEX, size=10, query={"script_score": {
        "query": {"term": {"cat": "a"}},
        "script": {"source": "doc['price'].value * params.f + doc['qty'].value", "params": {"f": 2}}}})
    expected = sorted(((d["price"] * 2 + d["qty"], i) for i, d in products.items() if d["cat"] == "a"), reverse=True)
    got = [(h["_score"], h["_id"]) for h in r["hits"]["hits"]]
    assert [s for s, _ in got] == pytest.approx([s for s, _ in expected[:10]], rel=1e-6)
    assert r["hits"]["total"]["value"] == len(expected)
    # min_score drops documents.
    r = es.search(index=INDEX, size=100, query={"script_score": {
        "query": {"match_all": {}}, "script": {"source": "doc['qty'].value"}, "min_score": 8}})
    assert sorted(h["_id"] for h in r["hits"]["hits"]) == sorted(i for i, d in products.items() if d["qty"] >= 8)
    # The script query filters.
    r = es.search(index=INDEX, size=100, query={"bool": {"filter": [{"script": {"script": {
        "source": "doc['qty'].value * doc['price'].value > params.t", "params": {"t": 40}}}}]}})
    assert sorted(h["_id"] for h in r["hits"]["hits"]) == sorted(i for i, d in products.items() if d["qty"] * d["price"] > 40)
    # A negative score is refused.
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index=INDEX, query={"script_score": {"query": {"match_all": {}}, "script": {"source": "-1"}}})
    # The script is an object: a string is a parse error.
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=INDEX, query={"script_score": {"query": {"match_all": {}}, "script": "1"}})
    assert e.value.error == "x_content_parse_exception"
    assert "[script_score] script doesn't support values of type: VALUE_STRING" in e.value.body["error"]["reason"]
    # A runtime failure in a score script fails every shard; the root
    # cause is the script_exception, caused by the arithmetic_exception.
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=INDEX, query={"script_score": {"query": {"match_all": {}}, "script": {"source": "1 / (doc['qty'].value - doc['qty'].value)"}}})
    err = e.value.body["error"]
    assert err["type"] == "search_phase_execution_exception" and err["reason"] == "all shards failed"
    assert err["root_cause"][0]["type"] == "script_exception"
    assert err["caused_by"]["type"] == "script_exception"
    assert err["caused_by"]["caused_by"]["type"] == "arithmetic_exception"
    assert err["failed_shards"][0]["reason"]["type"] == "script_exception"


def gauss(distance, scale, offset=0.0, decay=0.5):
    d = max(0.0, distance - offset)
    sigma_sq = -scale * scale / (2 * math.log(decay))
    return math.exp(-d * d / (2 * sigma_sq))


def test_function_score(es, products):
    ids_of_a = [i for i, d in products.items() if d["cat"] == "a"]

    def scores(body):
        r = es.search(index=INDEX, size=100, query={"function_score": body})
        return {h["_id"]: h["_score"] for h in r["hits"]["hits"]}

    # field_value_factor with a modifier, replacing the query's constant score.
    got = scores({"query": {"term": {"cat": "a"}},
                  "field_value_factor": {"field": "qty", "factor": 2, "modifier": "log1p", "missing": 1},
                  "boost_mode": "replace"})
    assert set(got) == set(ids_of_a)
    for i, s in got.items():
        assert s == pytest.approx(math.log10(1 + 2 * products[i]["qty"]), rel=1e-5)
    # Filtered weights summed, then multiplied into a constant query score of 1.
    got = scores({"query": {"constant_score": {"filter": {"match_all": {}}}},
                  "functions": [
                      {"filter": {"term": {"cat": "b"}}, "weight": 3},
                      {"filter": {"range": {"qty": {"gte": 5}}}, "weight": 2},
                      {"gauss": {"price": {"origin": 10, "scale": 4, "decay": 0.5}}, "weight": 1},
                  ],
                  "score_mode": "sum", "boost_mode": "multiply"})
    for i, s in got.items():
        d = products[i]
        want = (3 if d["cat"] == "b" else 0) + (2 if d["qty"] >= 5 else 0) + gauss(abs(d["price"] - 10), 4)
        assert s == pytest.approx(want, rel=1e-5), i
    # Date decay, script_score function, max and max_boost.
    origin = BASE_MS + 5 * DAY_MS
    got = scores({"functions": [
        {"exp": {"ts": {"origin": origin, "scale": "2d", "offset": "1d", "decay": 0.25}}},
        {"script_score": {"script": {"source": "params.w * doc['qty'].value", "params": {"w": 0.1}}}},
    ], "score_mode": "max", "max_boost": 0.9, "boost_mode": "replace"})
    for i, s in got.items():
        d = products[i]
        dist = max(0.0, abs(d["ts"] - origin) - DAY_MS)
        e = math.exp(math.log(0.25) / (2 * DAY_MS) * dist)
        assert s == pytest.approx(min(0.9, max(e, 0.1 * d["qty"])), rel=1e-5), i
    # random_score with a seed is stable and in [0, 1).
    a = scores({"random_score": {"seed": 7, "field": "qty"}, "boost_mode": "replace"})
    b = scores({"random_score": {"seed": 7, "field": "qty"}, "boost_mode": "replace"})
    assert a == b and all(0 <= s < 1 for s in a.values())


def test_bucket_script_and_selector(es, products):
    r = es.search(index=INDEX, size=0, aggs={"by_cat": {
        "terms": {"field": "cat"},
        "aggs": {
            "revenue": {"sum": {"field": "price"}},
            "units": {"sum": {"field": "qty"}},
            "per_unit": {"bucket_script": {"buckets_path": {"r": "revenue", "u": "units", "n": "_count"},
                                            "script": "params.r / params.u * params.n"}},
            "big": {"bucket_selector": {"buckets_path": {"r": "revenue"}, "script": {"source": "params.r > params.t", "params": {"t": 0}}}},
        }}})
    buckets = {b["key"]: b for b in r["aggregations"]["by_cat"]["buckets"]}
    assert set(buckets) == {"a", "b", "c"}
    for cat, b in buckets.items():
        docs = [d for d in products.values() if d["cat"] == cat]
        rev, units = sum(d["price"] for d in docs), sum(d["qty"] for d in docs)
        assert b["per_unit"]["value"] == pytest.approx(rev / units * len(docs))
    # The selector drops buckets whose script returns false.
    units = {c: sum(d["qty"] for d in products.values() if d["cat"] == c) for c in "abc"}
    threshold = sorted(units.values())[1]
    r = es.search(index=INDEX, size=0, aggs={"by_cat": {
        "terms": {"field": "cat"},
        "aggs": {"units": {"sum": {"field": "qty"}},
                 "keep": {"bucket_selector": {"buckets_path": {"u": "units"},
                                              "script": {"source": "params.u >= params.min", "params": {"min": threshold}}}}}}})
    kept = sorted(b["key"] for b in r["aggregations"]["by_cat"]["buckets"])
    assert kept == sorted(c for c, u in units.items() if u >= threshold)
    # A pipeline outside a multi-bucket aggregation is refused.
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index=INDEX, size=0, aggs={"x": {"bucket_script": {"buckets_path": {"a": "b"}, "script": "1"}}})


def test_stored_scripts(es, products):
    es.put_script(id="e2e-total", script={"lang": "painless", "source": "doc['price'].value * params.k"})
    got = es.get_script(id="e2e-total")
    assert got["found"] is True and got["script"]["source"] == "doc['price'].value * params.k"
    r = es.search(index=INDEX, size=100, query={"match_all": {}},
                  script_fields={"t": {"script": {"id": "e2e-total", "params": {"k": 3}}}})
    for hit in r["hits"]["hits"]:
        assert hit["fields"]["t"] == [pytest.approx(products[hit["_id"]]["price"] * 3)]
    name = "e2e-scripts-stored"
    es.options(ignore_status=404).indices.delete(index=name)
    es.put_script(id="e2e-inc", script={"lang": "painless", "source": "ctx._source.n += params.by"})
    es.index(index=name, id="1", document={"n": 1}, refresh=True)
    es.update(index=name, id="1", script={"id": "e2e-inc", "params": {"by": 5}})
    assert es.get(index=name, id="1")["_source"] == {"n": 6}
    es.indices.delete(index=name)
    # A source is compiled only for a named context; unknown ids are 404s.
    with pytest.raises(elasticsearch.BadRequestError):
        es.put_script(id="bad", script={"lang": "painless", "source": "1 +"}, context="score")
    assert es.put_script(id="bad", script={"lang": "painless", "source": "1 +"})["acknowledged"] is True
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=INDEX, script_fields={"t": {"script": {"id": "bad"}}})
    assert e.value.body["error"]["root_cause"][0]["type"] == "script_exception"
    es.delete_script(id="bad")
    assert es.delete_script(id="e2e-inc")["acknowledged"] is True
    with pytest.raises(elasticsearch.NotFoundError):
        es.delete_script(id="e2e-inc")
    with pytest.raises(elasticsearch.NotFoundError):
        es.get_script(id="e2e-inc")
    with pytest.raises(elasticsearch.NotFoundError) as e:
        es.search(index=INDEX, script_fields={"t": {"script": {"id": "e2e-missing"}}})
    err = e.value.body["error"]
    assert err["type"] == "search_phase_execution_exception"
    assert err["root_cause"][0]["reason"] == "unable to find script [e2e-missing] in cluster state"
    assert err["root_cause"][0]["type"] == "resource_not_found_exception"
    es.delete_script(id="e2e-total")
