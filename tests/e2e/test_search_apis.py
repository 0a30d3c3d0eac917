"""Scroll, point in time, the by-query APIs and tasks, driven by the
official `elasticsearch` Python client; every answer is checked against
values computed here from the documents indexed."""

import time

import elasticsearch
import pytest
from elasticsearch import helpers


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
    assert e.value.body["error"]["type"] == "search_phase_execution_exception"
    assert e.value.body["error"]["root_cause"][0]["type"] == "search_context_missing_exception"
    again = es.options(ignore_status=404).clear_scroll(scroll_id=sid)
    assert again.meta.status == 404 and again["num_freed"] == 0
    # `_all` clears every scroll.
    ids = [es.search(index="apis-scroll", scroll="1m", size=1)["_scroll_id"] for _ in range(3)]
    # Elasticsearch counts the nodes that cleared theirs (one here).
    assert es.clear_scroll(scroll_id="_all")["num_freed"] == 1
    assert es.options(ignore_status=404).scroll(scroll_id=ids[0]).meta.status == 404


@pytest.mark.opensearch_differs(
    "OpenSearch's point in time API is /<index>/_search/point_in_time, not /<index>/_pit (and expired contexts are reaped every search.keep_alive_interval, 1 m: a 1 s scroll still answers after 2.5 s)")
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


@pytest.mark.opensearch_differs(
    "OpenSearch's point in time API is /<index>/_search/point_in_time, not /<index>/_pit, and it adds no implicit _shard_doc tiebreaker")
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


def test_delete_by_query_removes_exactly_the_matches(es):
    docs = fill(es, "apis-dbq", 400)
    r = es.delete_by_query(index="apis-dbq", query={"range": {"n": {"gte": 100, "lt": 250}}},
                           refresh=True, scroll_size=60)
    assert r["deleted"] == 150 and r["total"] == 150 and r["failures"] == []
    assert r["batches"] == 3 and r["version_conflicts"] == 0
    left = {h["_id"] for h in helpers.scan(es, index="apis-dbq")}
    assert left == {d["_id"] for d in docs if not 100 <= d["n"] < 250}
    # max_docs stops early; q= is a query_string.
    r = es.delete_by_query(index="apis-dbq", q="tag:t1", max_docs=5, refresh=True)
    assert r["deleted"] == 5
    want = sum(1 for d in docs if d["tag"] == "t1" and not 100 <= d["n"] < 250) - 5
    assert es.count(index="apis-dbq", q="tag:t1")["count"] == want


def test_update_by_query_reindexes_and_picks_up_new_mappings(es):
    es.options(ignore_status=404).indices.delete(index="apis-ubq")
    es.indices.create(index="apis-ubq", mappings={"dynamic": False, "properties": {"n": {"type": "long"}}})
    helpers.bulk(es, ({"_index": "apis-ubq", "_id": str(i), "n": i, "color": ["red", "blue"][i % 2]}
                      for i in range(120)), refresh=True)
    assert es.count(index="apis-ubq", query={"term": {"color": "red"}})["count"] == 0
    es.indices.put_mapping(index="apis-ubq", properties={"color": {"type": "keyword"}})
    before = es.get(index="apis-ubq", id="3")
    r = es.update_by_query(index="apis-ubq", refresh=True, conflicts="proceed")
    assert r["updated"] == 120 and r["total"] == 120 and r["version_conflicts"] == 0
    assert es.count(index="apis-ubq", query={"term": {"color": "red"}})["count"] == 60
    after = es.get(index="apis-ubq", id="3")
    assert after["_version"] == before["_version"] + 1
    assert after["_source"] == before["_source"]


def test_update_by_query_and_reindex_run_a_script_per_document(es):
    es.options(ignore_status=404).indices.delete(index="apis-ubq-s")
    helpers.bulk(es, ({"_index": "apis-ubq-s", "_id": str(i), "n": i} for i in range(50)), refresh=True)
    script = {"source": "if (ctx._source.n % 10 == 0) { ctx.op = 'delete' } "
                        "else if (ctx._source.n % 2 == 0) { ctx._source.n += params.add } "
                        "else { ctx.op = 'noop' }",
              "params": {"add": 1000}}
    r = es.update_by_query(index="apis-ubq-s", script=script, refresh=True)
    # 5 multiples of ten deleted, 20 other evens updated, 25 odds untouched.
    assert (r["deleted"], r["updated"], r["noops"], r["total"]) == (5, 20, 25, 50)
    got = {int(h["_id"]): h["_source"]["n"]
           for h in helpers.scan(es, index="apis-ubq-s", query={"query": {"match_all": {}}})}
    want = {i: (i + 1000 if i % 2 == 0 else i) for i in range(50) if i % 10 != 0}
    assert got == want
    # A script that fails stops the job with the script's error.
    r = es.options(ignore_status=400).update_by_query(
        index="apis-ubq-s", script={"source": "ctx._source.n = ctx._source.missing.length()"})
    assert r.meta.status == 400
    # _reindex runs the script on the copy, not the source.
    es.options(ignore_status=404).indices.delete(index="apis-ubq-d")
    r = es.reindex(source={"index": "apis-ubq-s"}, dest={"index": "apis-ubq-d"},
                   script={"source": "ctx._source.copied = true"}, refresh=True)
    assert r["created"] == 45
    doc = es.get(index="apis-ubq-d", id="3")["_source"]
    assert doc == {"n": 3, "copied": True}
    assert "copied" not in es.get(index="apis-ubq-s", id="3")["_source"]


def test_reindex_copies_with_op_type_and_conflicts(es):
    docs = fill(es, "apis-src", 300)
    es.options(ignore_status=404).indices.delete(index="apis-dst")
    es.index(index="apis-dst", id="5", document={"n": -5}, refresh=True)
    r = es.reindex(source={"index": "apis-src", "query": {"range": {"n": {"lt": 200}}}},
                   dest={"index": "apis-dst", "op_type": "create"}, conflicts="proceed", refresh=True)
    assert r["created"] == 199 and r["version_conflicts"] == 1 and r["total"] == 200
    assert es.count(index="apis-dst")["count"] == 200
    assert es.get(index="apis-dst", id="5")["_source"] == {"n": -5}
    # Without proceed the conflict aborts with 409 and a failure.
    r = es.options(ignore_status=409).reindex(
        source={"index": "apis-src"}, dest={"index": "apis-dst", "op_type": "create"})
    assert r.meta.status == 409
    assert r["failures"][0]["cause"]["type"] == "version_conflict_engine_exception"
    # op_type index overwrites; max_docs bounds the copy.
    r = es.reindex(source={"index": "apis-src"}, dest={"index": "apis-dst"}, max_docs=250, refresh=True)
    assert r["updated"] + r["created"] == 250
    got = {h["_id"]: h["_source"] for h in helpers.scan(es, index="apis-dst")}
    src = {d["_id"]: {k: d[k] for k in ("n", "tag", "text")} for d in docs}
    assert got["5"] == src["5"]
    with pytest.raises(elasticsearch.BadRequestError):
        es.reindex(source={"index": "apis-src"}, dest={"index": "apis-src"})


def test_tasks_track_a_detached_job(es):
    fill(es, "apis-task", 200, shards=1)
    r = es.delete_by_query(index="apis-task", query={"match_all": {}}, wait_for_completion=False,
                           requests_per_second=100, scroll_size=20)
    task_id = r["task"]
    listed = es.tasks.list(actions="*byquery", detailed=True)
    running = [t for n in listed["nodes"].values() for t in n["tasks"]]
    assert task_id in running
    es.tasks.cancel(task_id=task_id)
    deadline = time.time() + 10
    while True:
        t = es.tasks.get(task_id=task_id)
        if t["completed"] or time.time() > deadline:
            break
        time.sleep(0.05)
    assert t["completed"] and t["response"]["canceled"] == "by user request"
    assert t["response"]["deleted"] < 200
    es.indices.refresh(index="apis-task")
    assert es.count(index="apis-task")["count"] == 200 - t["response"]["deleted"]
    remaining = es.count(index="apis-task")["count"]
    # A job run to its end keeps its result.
    r = es.update_by_query(index="apis-task", wait_for_completion=False)
    deadline = time.time() + 10
    while not (t := es.tasks.get(task_id=r["task"]))["completed"] and time.time() < deadline:
        time.sleep(0.05)
    assert t["completed"] and t["response"]["updated"] == remaining
    assert t["response"]["failures"] == []
    with pytest.raises(elasticsearch.NotFoundError):
        es.tasks.get(task_id=task_id.split(":")[0] + ":999999")


@pytest.mark.opensearch_differs(
    "elasticsearch-py sends _field_caps fields in the body (Elasticsearch 8); OpenSearch takes them only in the URL and has no metadata_field")
def test_field_caps_validate_explain_analyze(es):
    docs = fill(es, "apis-caps", 50)
    es.options(ignore_status=404).indices.delete(index="apis-caps2")
    es.indices.create(index="apis-caps2", mappings={"properties": {"n": {"type": "keyword"},
                                                                   "obj": {"properties": {"x": {"type": "ip"}}}}})
    caps = es.field_caps(index="apis-caps,apis-caps2", fields="n,tag,text,obj*,_id")
    assert sorted(caps["indices"]) == ["apis-caps", "apis-caps2"]
    f = caps["fields"]
    assert f["tag"] == {"keyword": {"type": "keyword", "metadata_field": False, "searchable": True, "aggregatable": True}}
    assert f["text"]["text"]["aggregatable"] is False
    assert f["n"]["long"]["indices"] == ["apis-caps"] and f["n"]["keyword"]["indices"] == ["apis-caps2"]
    assert f["obj"]["object"]["type"] == "object" and f["obj.x"]["ip"]["aggregatable"] is True
    assert f["_id"]["_id"]["metadata_field"] is True
    with pytest.raises(elasticsearch.BadRequestError):
        es.field_caps(index="apis-caps")

    assert es.indices.validate_query(index="apis-caps", query={"term": {"tag": "t1"}})["valid"] is True
    bad = es.indices.validate_query(index="apis-caps", query={"range": {"n": {"gte": "not-a-number"}}}, explain=True)
    assert bad["valid"] is False and bad["explanations"][0]["valid"] is False

    q = {"match": {"text": "beta"}}
    hit = es.search(index="apis-caps", query={"bool": {"must": [q], "filter": [{"ids": {"values": ["4"]}}]}})["hits"]["hits"][0]
    ex = es.explain(index="apis-caps", id="4", query=q)
    assert ex["matched"] is True
    assert abs(ex["explanation"]["value"] - hit["_score"]) < 1e-5
    assert es.explain(index="apis-caps", id="3", query=q)["matched"] is False  # 3 % 3 == 0: "alpha" only

    toks = es.indices.analyze(analyzer="standard", text="The Quick brown-Fox!")["tokens"]
    assert [t["token"] for t in toks] == ["the", "quick", "brown", "fox"]
    assert (toks[1]["start_offset"], toks[1]["end_offset"], toks[1]["position"]) == (4, 9, 1)
    assert [t["token"] for t in es.indices.analyze(analyzer="keyword", text="A b")["tokens"]] == ["A b"]
    assert [t["token"] for t in es.indices.analyze(index="apis-caps", field="tag", text="A b")["tokens"]] == ["A b"]
    with pytest.raises(elasticsearch.BadRequestError):
        es.indices.analyze(analyzer="nope", text="x")


def test_standard_analyzer_splits_at_word_boundaries(es):
    """Unicode word boundaries (UAX #29): addresses, file names and "dog's" stay whole."""
    toks = es.indices.analyze(analyzer="standard", text="GET /a-b.png from 83.149.9.216 dog's")["tokens"]
    assert [t["token"] for t in toks] == ["get", "a", "b.png", "from", "83.149.9.216", "dog's"]
    es.options(ignore_status=404).indices.delete(index="apis-split")
    es.indices.create(index="apis-split", mappings={"properties": {"m": {"type": "text"}}})
    for i, m in enumerate(["83.149.9.216 GET /a.png", "83.149.9.217 GET /b.png", "9 216 a png"]):
        es.index(index="apis-split", id=str(i), document={"m": m})
    es.indices.refresh(index="apis-split")

    def hits(text):
        r = es.search(index="apis-split", query={"match": {"m": text}})
        return {h["_id"] for h in r["hits"]["hits"]}
    assert hits("83.149.9.216") == {"0"} and hits("a.png") == {"0"} and hits("png") == {"2"}
    toks = es.indices.analyze(index="apis-split", field="m", text="x.y z")["tokens"]
    assert [t["token"] for t in toks] == ["x.y", "z"]


@pytest.mark.opensearch_differs(
    "elasticsearch-py 9 sends POST /_cat/count; OpenSearch's _cat APIs take GET only")
def test_cat_tables_and_delete_with_ignore_unavailable(es):
    docs = fill(es, "apis-cat", 120, shards=3)
    count = es.cat.count(index="apis-cat", format="json")
    assert count[0]["count"] == "120"
    shards = es.cat.shards(index="apis-cat", format="json")
    assert sorted(int(s["shard"]) for s in shards) == [0, 1, 2]
    assert sum(int(s["docs"]) for s in shards) == 120
    segments = es.cat.segments(index="apis-cat", format="json")
    assert sum(int(s["docs.count"]) for s in segments) == 120
    es.indices.put_index_template(name="apis-tpl", index_patterns=["apis-tpl-*"], priority=7)
    tpl = es.cat.templates(name="apis-tpl", format="json")
    assert tpl == [{"name": "apis-tpl", "index_patterns": "[apis-tpl-*]", "order": "7", "version": None, "composed_of": "[]"}]
    alloc = es.cat.allocation(format="json")
    assert int(alloc[0]["shards"]) >= 3 and int(alloc[0]["disk.percent"]) <= 100
    pools = {p["name"] for p in es.cat.thread_pool(format="json")}
    assert {"search", "write"} <= pools
    text = es.cat.count(index="apis-cat", v=True)
    assert text.splitlines()[0].split() == ["epoch", "timestamp", "count"]

    with pytest.raises(elasticsearch.NotFoundError):
        es.indices.delete(index="apis-missing")
    assert es.indices.delete(index="apis-missing", ignore_unavailable=True)["acknowledged"] is True
    assert es.indices.delete(index="apis-missing,apis-cat", ignore_unavailable=True)["acknowledged"] is True
    assert not es.indices.exists(index="apis-cat")


def test_data_streams(es):
    for name in ("logs-apis-auto", "logs-apis-put"):
        es.options(ignore_status=404).indices.delete_data_stream(name=name)
    es.indices.put_index_template(name="apis-ds", index_patterns=["logs-apis-*"], data_stream={},
                                  priority=50, template={"mappings": {"properties": {"level": {"type": "keyword"}}}})
    # Created by the first write; op_type=create only; @timestamp required.
    docs = [{"_op_type": "create", "_index": "logs-apis-auto", "@timestamp": 1_700_000_000_000 + i,
             "level": ["info", "warn"][i % 2]} for i in range(40)]
    ok, errors = helpers.bulk(es, docs, refresh=True)
    assert (ok, errors) == (40, [])
    with pytest.raises(elasticsearch.BadRequestError):
        es.index(index="logs-apis-auto", id="x", document={"@timestamp": 1}, op_type="index")
    with pytest.raises(elasticsearch.BadRequestError):
        es.index(index="logs-apis-auto", document={"level": "info"})
    es.index(index="logs-apis-auto", document={"@timestamp": 5, "level": "error"}, refresh=True)
    got = es.indices.get_data_stream(name="logs-apis-auto")["data_streams"][0]
    assert got["name"] == "logs-apis-auto" and got["template"] == "apis-ds"
    assert got["timestamp_field"] == {"name": "@timestamp"} and got["generation"] == 1
    first = got["indices"][0]["index_name"]
    assert first.startswith(".ds-logs-apis-auto-") and first.endswith("-000001")
    # Search and aggregate on the stream name.
    r = es.search(index="logs-apis-auto", size=0, aggs={"l": {"terms": {"field": "level"}}})
    assert r["hits"]["total"]["value"] == 41
    assert {b["key"]: b["doc_count"] for b in r["aggregations"]["l"]["buckets"]} == {"info": 20, "warn": 20, "error": 1}
    # Rollover makes generation 2 with the template's mappings; reads span both.
    ro = es.indices.rollover(alias="logs-apis-auto")
    assert ro["rolled_over"] and ro["old_index"] == first and ro["new_index"].endswith("-000002")
    es.index(index="logs-apis-auto", document={"@timestamp": 6, "level": "debug"}, refresh=True)
    assert es.count(index="logs-apis-auto")["count"] == 42
    assert es.count(index=ro["new_index"])["count"] == 1
    assert es.indices.get_mapping(index=ro["new_index"])[ro["new_index"]]["mappings"]["properties"]["level"]["type"] == "keyword"
    assert es.indices.get_data_stream(name="logs-apis-auto")["data_streams"][0]["generation"] == 2
    # PUT needs a data stream template; names exist once.
    es.indices.create_data_stream(name="logs-apis-put")
    with pytest.raises(elasticsearch.BadRequestError):
        es.indices.create_data_stream(name="logs-apis-put")
    with pytest.raises(elasticsearch.BadRequestError):
        es.indices.create_data_stream(name="nomatch-apis")
    names = {d["name"] for d in es.indices.get_data_stream(name="logs-apis-*")["data_streams"]}
    assert names == {"logs-apis-auto", "logs-apis-put"}
    es.indices.delete_data_stream(name="logs-apis-auto")
    assert not es.indices.exists(index=first)
    with pytest.raises(elasticsearch.NotFoundError):
        es.indices.get_data_stream(name="logs-apis-auto")
    es.indices.delete_data_stream(name="logs-apis-put")
    es.indices.delete_index_template(name="apis-ds")


def test_collapse_and_simulate_index(es):
    docs = fill(es, "apis-collapse", 200)
    r = es.search(index="apis-collapse", collapse={"field": "tag", "inner_hits": {"name": "top", "size": 2, "sort": [{"n": "desc"}]}},
                  sort=[{"n": "desc"}], size=5, from_=1)
    # Groups by tag in descending n: each tag's best is its largest n.
    best = {}
    for d in sorted(docs, key=lambda d: -d["n"]):
        best.setdefault(d["tag"], d["n"])
    order = sorted(best.items(), key=lambda kv: -kv[1])
    want = order[1:6]
    got = [(h["fields"]["tag"][0], h["_source"]["n"]) for h in r["hits"]["hits"]]
    assert got == want
    assert r["hits"]["total"]["value"] == 200
    for h in r["hits"]["hits"]:
        tag = h["fields"]["tag"][0]
        inner = h["inner_hits"]["top"]["hits"]
        ns = sorted((d["n"] for d in docs if d["tag"] == tag), reverse=True)
        assert inner["total"]["value"] == len(ns)
        assert [x["_source"]["n"] for x in inner["hits"]] == ns[:2]
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index="apis-collapse", collapse={"field": "text"})

    es.indices.put_index_template(name="apis-sim", index_patterns=["apis-sim-*"], priority=3,
                                  template={"settings": {"number_of_shards": 2},
                                            "mappings": {"properties": {"a": {"type": "keyword"}}}})
    es.indices.put_index_template(name="apis-sim-low", index_patterns=["apis-sim-x*"], priority=1)
    sim = es.indices.simulate_index_template(name="apis-sim-x1")
    assert sim["template"]["settings"]["index"]["number_of_shards"] in ("2", 2)
    assert sim["template"]["mappings"]["properties"]["a"] == {"type": "keyword"}
    assert sim["overlapping"] == [{"name": "apis-sim-low", "index_patterns": ["apis-sim-x*"]}]
    es.indices.delete_index_template(name="apis-sim")
    es.indices.delete_index_template(name="apis-sim-low")


def test_external_versions(es):
    es.options(ignore_status=404).indices.delete(index="apis-ext")
    r = es.index(index="apis-ext", id="1", document={"v": 5}, version=5, version_type="external")
    assert r["_version"] == 5 and r["result"] == "created"
    with pytest.raises(elasticsearch.ConflictError) as e:
        es.index(index="apis-ext", id="1", document={"v": 5}, version=5, version_type="external")
    assert "current version [5] is higher or equal to the one provided [5]" in str(e.value.body)
    assert es.index(index="apis-ext", id="1", document={"v": 5}, version=5, version_type="external_gte")["_version"] == 5
    assert es.index(index="apis-ext", id="1", document={"v": 9}, version=9, version_type="external")["_version"] == 9
    with pytest.raises(elasticsearch.ConflictError):
        es.index(index="apis-ext", id="1", document={"v": 3}, version=3, version_type="external_gte")
    assert es.get(index="apis-ext", id="1")["_source"] == {"v": 9}
    ok, errors = helpers.bulk(es, [{"_index": "apis-ext", "_id": "2", "_version": 7, "_version_type": "external", "v": 7},
                                   {"_index": "apis-ext", "_id": "1", "_version": 2, "_version_type": "external", "v": 2}],
                              raise_on_error=False, refresh=True)
    assert ok == 1 and errors[0]["index"]["status"] == 409
    assert es.get(index="apis-ext", id="2")["_version"] == 7
    with pytest.raises(elasticsearch.BadRequestError):
        es.index(index="apis-ext", id="3", document={}, version=1, version_type="external", op_type="create")
    # Reindex keeping versions: only older destination documents are replaced.
    es.options(ignore_status=404).indices.delete(index="apis-ext-dst")
    es.index(index="apis-ext-dst", id="1", document={"v": 100}, version=100, version_type="external", refresh=True)
    r = es.reindex(source={"index": "apis-ext"}, dest={"index": "apis-ext-dst", "version_type": "external"},
                   conflicts="proceed", refresh=True)
    assert r["created"] == 1 and r["version_conflicts"] == 1
    assert es.get(index="apis-ext-dst", id="2")["_version"] == 7
    assert es.get(index="apis-ext-dst", id="1")["_source"] == {"v": 100}
