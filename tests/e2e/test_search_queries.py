"""Queries, aggregations and highlighting added for Elasticsearch
applications (fuzzy, dis_max, match_bool_prefix, match_phrase_prefix,
geo_distance, composite paging, weighted_avg, rare_terms,
significant_terms, missing, cardinality exactness, derivative,
cumulative_sum, serial_diff, moving_fn, bucket_sort, the sibling
pipelines, global, post_filter, highlight) through the official Python
client, every answer checked against values computed here from the same
generated documents, and the 400s bad requests get."""

import collections
import math
import random

import elasticsearch
import pytest
from elasticsearch import helpers

WORDS = ["quick", "quack", "brown", "browse", "fox", "box", "lazy", "lady", "dog", "search",
         "searching", "sea"]
TAGS = ["alpha", "alpah", "beta", "bets", "gamma", "gamut"]
HOUR = 3_600_000
START = 1_700_006_400_000  # a UTC midnight


@pytest.fixture(scope="module")
def corpus(es):
    name = "e2e-queries"
    es.options(ignore_status=404).indices.delete(index=name)
    es.indices.create(index=name, settings={"number_of_shards": 2}, mappings={"properties": {
        "body": {"type": "text"}, "tag": {"type": "keyword"}, "n": {"type": "long"},
        "w": {"type": "double"}, "ts": {"type": "date"}, "place": {"type": "geo_point"},
        "ip": {"type": "keyword"}}})
    rng = random.Random(42)
    docs = []
    for i in range(1500):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 8))]
        d = {"_id": str(i), "body": " ".join(words), "n": rng.randint(0, 40),
             "ts": START + rng.randint(0, 48 * HOUR - 1),
             "place": {"lat": rng.uniform(40, 60), "lon": rng.uniform(-10, 10)},
             "ip": f"10.1.{(i % 3940) // 256}.{(i % 3940) % 256}"}
        if i % 25:
            d["tag"] = rng.choice(TAGS)
        if i % 7:
            d["w"] = float(rng.randint(1, 4))
        docs.append(d)
    # 3940 distinct ips in all: the rest of them in small documents.
    for i in range(1500, 3940):
        docs.append({"_id": str(i), "n": 100, "ts": START, "ip": f"10.1.{i // 256}.{i % 256}"})
    ok, errors = helpers.bulk(es, ({"_index": name, **d} for d in docs), refresh=True,
                              chunk_size=1000)
    assert (ok, errors) == (len(docs), [])
    yield name, docs[:1500], docs
    es.indices.delete(index=name)


def ids(es, name, query):
    r = es.search(index=name, query=query, size=10000)
    return {h["_id"] for h in r["hits"]["hits"]}


def osa(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def auto(term):
    return 0 if len(term) <= 2 else 1 if len(term) <= 5 else 2


def haversine(a, b):
    r = 6371008.7714
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def test_term_and_text_queries(es, corpus):
    name, docs, _ = corpus
    for value in ["alpha", "beta", "gama"]:
        want = {d["_id"] for d in docs if "tag" in d and osa(d["tag"], value) <= auto(value)}
        assert ids(es, name, {"fuzzy": {"tag": {"value": value, "fuzziness": "AUTO"}}}) == want
    for text in ["quick bro", "lazy d", "se"]:
        *head, last = text.split()
        want = set()
        for d in docs:
            w = d["body"].split()
            for k in range(len(w) - len(head)):
                if w[k:k + len(head)] == head and w[k + len(head)].startswith(last):
                    want.add(d["_id"])
        assert ids(es, name, {"match_phrase_prefix": {"body": text}}) == want, text
        want = {d["_id"] for d in docs
                if any(x in head or x.startswith(last) for x in d["body"].split())}
        assert ids(es, name, {"match_bool_prefix": {"body": text}}) == want, text
    a, b = {"match": {"body": "fox"}}, {"term": {"tag": "beta"}}
    sa = {h["_id"]: h["_score"] for h in es.search(index=name, query=a, size=10000)["hits"]["hits"]}
    sb = {h["_id"]: h["_score"] for h in es.search(index=name, query=b, size=10000)["hits"]["hits"]}
    r = es.search(index=name, query={"dis_max": {"queries": [a, b], "tie_breaker": 0.5}}, size=10000)
    assert {h["_id"] for h in r["hits"]["hits"]} == set(sa) | set(sb)
    for h in r["hits"]["hits"]:
        x, y = sa.get(h["_id"], 0.0), sb.get(h["_id"], 0.0)
        assert h["_score"] == pytest.approx(max(x, y) + 0.5 * min(x, y), rel=1e-4)
    centre = (50.0, 0.0)
    for dist, metres in [("150km", 150_000), ("100mi", 160_934.4)]:
        got = ids(es, name, {"geo_distance": {"distance": dist, "place": {"lat": 50, "lon": 0}}})
        want = {d["_id"] for d in docs
                if haversine(centre, (d["place"]["lat"], d["place"]["lon"])) <= metres}
        edge = {d["_id"] for d in docs
                if abs(haversine(centre, (d["place"]["lat"], d["place"]["lon"])) - metres) < 1}
        assert want and (got ^ want) <= edge


def test_composite_pages(es, corpus):
    name, docs, _ = corpus
    truth = collections.Counter((d.get("tag"), d["ts"] - d["ts"] % HOUR) for d in docs)
    got, after = {}, None
    while True:
        body = {"size": 31, "sources": [
            {"tag": {"terms": {"field": "tag", "missing_bucket": True}}},
            {"hour": {"date_histogram": {"field": "ts", "fixed_interval": "1h"}}}]}
        if after:
            body["after"] = after
        r = es.search(index=name, query={"range": {"n": {"lte": 40}}}, size=0,
                      aggs={"c": {"composite": body}})["aggregations"]["c"]
        if not r["buckets"]:
            break
        for b in r["buckets"]:
            got[(b["key"]["tag"], b["key"]["hour"])] = b["doc_count"]
        after = r["after_key"]
    assert got == dict(truth)


def test_metric_and_term_aggregations(es, corpus):
    name, docs, _ = corpus
    q = {"range": {"n": {"lte": 40}}}
    r = es.search(index=name, query=q, size=0, aggs={
        "wa": {"weighted_avg": {"value": {"field": "n"}, "weight": {"field": "w", "missing": 2}}},
        "m": {"missing": {"field": "tag"}},
        "rare": {"rare_terms": {"field": "n", "max_doc_count": 40}},
        "sig": {"significant_terms": {"field": "tag", "min_doc_count": 1}},
    })["aggregations"]
    num = sum(d["n"] * d.get("w", 2) for d in docs)
    den = sum(d.get("w", 2) for d in docs)
    assert r["wa"]["value"] == pytest.approx(num / den)
    assert r["m"]["doc_count"] == sum(1 for d in docs if "tag" not in d)
    counts = collections.Counter(d["n"] for d in docs)
    want = sorted((c, k) for k, c in counts.items() if c <= 40)
    assert [(b["doc_count"], b["key"]) for b in r["rare"]["buckets"]] == want
    # JLH against the whole index (the small documents carry no tag).
    name_, _, alldocs = corpus
    tags = collections.Counter(d["tag"] for d in docs if "tag" in d)
    bg = collections.Counter(d["tag"] for d in alldocs if "tag" in d)
    fs, bs = len(docs), len(alldocs)
    scores = {}
    for t, c in tags.items():
        sub, sup = c / fs, bg[t] / bs
        if sub > sup:
            scores[t] = (sub - sup) * (sub / sup)
    want = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    got = [(b["key"], b["score"]) for b in r["sig"]["buckets"]]
    assert [k for k, _ in got] == [k for k, _ in want]
    for (_, g), (_, w) in zip(got, want):
        assert g == pytest.approx(w)
    assert (r["sig"]["doc_count"], r["sig"]["bg_count"]) == (fs, bs)


def test_cardinality_is_exact_below_threshold(es, corpus):
    name, _, alldocs = corpus
    assert len({d["ip"] for d in alldocs}) == 3940
    for threshold in [4000, 40000]:
        r = es.search(index=name, size=0, aggs={"c": {"cardinality": {
            "field": "ip", "precision_threshold": threshold}}})
        assert r["aggregations"]["c"]["value"] == 3940
    r = es.search(index=name, size=0, aggs={"c": {"cardinality": {"field": "ip"}}})
    assert abs(r["aggregations"]["c"]["value"] - 3940) / 3940 < 0.02
    r = es.search(index=name, size=0, aggs={"c": {"cardinality": {
        "field": "n", "precision_threshold": 100}}})
    assert r["aggregations"]["c"]["value"] == len({d["n"] for d in alldocs})


def test_pipelines(es, corpus):
    name, docs, _ = corpus
    r = es.search(index=name, query={"range": {"n": {"lte": 40}}}, size=0, aggs={"h": {
        "date_histogram": {"field": "ts", "fixed_interval": "6h"},
        "aggs": {"s": {"sum": {"field": "n"}},
                 "d": {"derivative": {"buckets_path": "s"}},
                 "cs": {"cumulative_sum": {"buckets_path": "_count"}},
                 "sd": {"serial_diff": {"buckets_path": "s", "lag": 2}},
                 "top": {"bucket_sort": {"sort": [{"_count": {"order": "desc"}}], "size": 3}}}}})
    by = collections.defaultdict(lambda: [0, 0])
    for d in docs:
        k = d["ts"] - d["ts"] % (6 * HOUR)
        by[k][0] += 1
        by[k][1] += d["n"]
    rows, prev, total = [], None, 0
    keys = sorted(by)
    for i, k in enumerate(keys):
        total += by[k][0]
        lagged = by[k][1] - by[keys[i - 2]][1] if i >= 2 else None
        rows.append((k, by[k][0], None if prev is None else by[k][1] - prev, total, lagged))
        prev = by[k][1]
    rows.sort(key=lambda r: -r[1])
    buckets = r["aggregations"]["h"]["buckets"]
    assert len(buckets) == 3
    for b, row in zip(buckets, rows[:3]):
        assert (b["key"], b["doc_count"], b["cs"]["value"]) == (row[0], row[1], row[3])
        if row[2] is None:
            assert "d" not in b
        else:
            assert b["d"]["value"] == pytest.approx(row[2])
        if row[4] is None:
            assert "sd" not in b
        else:
            assert b["sd"]["value"] == pytest.approx(row[4])


def test_a_count_is_never_a_gap(es, corpus):
    """Empty histogram buckets have a `_count` of 0, which pipelines read
    as a value under every gap policy (Elasticsearch's resolveBucketValue)."""
    name, _, alldocs = corpus
    r = es.search(index=name, size=0, aggs={
        "h": {"histogram": {"field": "n", "interval": 10},
              "aggs": {"d": {"derivative": {"buckets_path": "_count"}}}},
        "low": {"min_bucket": {"buckets_path": "h>_count"}}})
    counts = collections.Counter(d["n"] // 10 * 10 for d in alldocs)
    keys = range(0, max(counts) + 10, 10)
    buckets = r["aggregations"]["h"]["buckets"]
    assert [b["doc_count"] for b in buckets] == [counts[k] for k in keys]
    assert 0 in [b["doc_count"] for b in buckets]
    for prev, b in zip(buckets, buckets[1:]):
        assert b["d"]["value"] == b["doc_count"] - prev["doc_count"]
    assert r["aggregations"]["low"]["value"] == 0.0


def test_global_ignores_the_query(es, corpus):
    """`global` aggregates every document whatever the query, beside
    aggregations that honour the query; a bucket script under it still
    runs."""
    name, _, alldocs = corpus
    r = es.search(index=name, query={"term": {"tag": "alpha"}}, size=0, aggs={
        "all": {"global": {}, "aggs": {
            "s": {"sum": {"field": "n"}},
            "tags": {"terms": {"field": "tag", "size": 10}, "aggs": {
                "s": {"sum": {"field": "n"}},
                "avg": {"bucket_script": {"buckets_path": {"s": "s", "c": "_count"},
                                          "script": "params.s / params.c"}}}}}},
        "s": {"sum": {"field": "n"}}})
    aggs = r["aggregations"]
    assert aggs["all"]["doc_count"] == len(alldocs)
    assert aggs["all"]["s"]["value"] == float(sum(d["n"] for d in alldocs))
    assert aggs["s"]["value"] == float(sum(d["n"] for d in alldocs if d.get("tag") == "alpha"))
    for b in aggs["all"]["tags"]["buckets"]:
        tagged = [d["n"] for d in alldocs if d.get("tag") == b["key"]]
        assert b["doc_count"] == len(tagged)
        assert b["avg"]["value"] == pytest.approx(sum(tagged) / len(tagged))
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index=name, size=0, aggs={"all": {"global": {"a": 1}}})


def test_post_filter_narrows_hits_not_aggregations(es, corpus):
    name, docs, _ = corpus
    r = es.search(index=name, query={"range": {"n": {"lte": 20}}},
                  post_filter={"term": {"tag": "alpha"}}, size=1000, track_total_hits=True,
                  aggs={"tags": {"terms": {"field": "tag", "size": 10}}})
    matching = [d for d in docs if d["n"] <= 20]
    alpha = {d["_id"] for d in matching if d.get("tag") == "alpha"}
    assert {h["_id"] for h in r["hits"]["hits"]} == alpha
    assert r["hits"]["total"]["value"] == len(alpha)
    counts = collections.Counter(d["tag"] for d in matching if "tag" in d)
    assert {b["key"]: b["doc_count"] for b in r["aggregations"]["tags"]["buckets"]} == counts


def test_sibling_pipelines(es, corpus):
    """max/min/avg/sum/stats/extended_stats/percentiles_bucket beside a
    terms and a date_histogram, at the top and inside buckets, over
    metrics, counts and a derivative."""
    name, docs, _ = corpus
    r = es.search(index=name, query={"range": {"n": {"lte": 40}}}, size=0, aggs={
        "tags": {"terms": {"field": "tag", "size": 10}, "aggs": {
            "s": {"sum": {"field": "n"}},
            "h": {"date_histogram": {"field": "ts", "fixed_interval": "12h"},
                  "aggs": {"s": {"sum": {"field": "n"}}, "d": {"derivative": {"buckets_path": "s"}}}},
            "busiest": {"max_bucket": {"buckets_path": "h>_count"}},
            "steepest": {"max_bucket": {"buckets_path": "h>d"}}}},
        "max": {"max_bucket": {"buckets_path": "tags>s"}},
        "min": {"min_bucket": {"buckets_path": "tags>s"}},
        "avg": {"avg_bucket": {"buckets_path": "tags>_count"}},
        "sum": {"sum_bucket": {"buckets_path": "tags>busiest"}},
        "stats": {"stats_bucket": {"buckets_path": "tags>s"}},
        "ext": {"extended_stats_bucket": {"buckets_path": "tags>s", "sigma": 1}},
        "pct": {"percentiles_bucket": {"buckets_path": "tags>s", "percents": [0, 50, 100]}}})
    aggs = r["aggregations"]
    sums = collections.Counter()
    for d in docs:
        if "tag" in d:
            sums[d["tag"]] += d["n"]
    values = sorted(sums.values())
    assert aggs["max"] == {"value": float(values[-1]),
                           "keys": [t for t, v in sums.items() if v == values[-1]]}
    assert aggs["min"]["value"] == float(values[0])
    counts = [b["doc_count"] for b in aggs["tags"]["buckets"]]
    assert aggs["avg"]["value"] == pytest.approx(sum(counts) / len(counts))
    stats = {"count": len(values), "min": float(values[0]), "max": float(values[-1]),
             "avg": pytest.approx(sum(values) / len(values)), "sum": float(sum(values))}
    assert aggs["stats"] == stats
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    assert aggs["ext"]["variance"] == pytest.approx(var)
    assert aggs["ext"]["std_deviation_bounds"]["upper"] == pytest.approx(mean + var ** 0.5)
    # Nearest rank, rounded half up as Java's Math.round.
    middle = values[math.floor((len(values) - 1) * 0.5 + 0.5)]
    assert aggs["pct"]["values"] == {"0.0": values[0], "50.0": middle, "100.0": values[-1]}
    busiest_total = 0
    for b in aggs["tags"]["buckets"]:
        days = collections.defaultdict(lambda: [0, 0])
        for d in docs:
            if d.get("tag") == b["key"]:
                day = d["ts"] - d["ts"] % (12 * HOUR)
                days[day][0] += 1
                days[day][1] += d["n"]
        top = max(c for c, _ in days.values())
        stamps = [h["key_as_string"] for h in b["h"]["buckets"] if h["doc_count"] == top]
        assert b["busiest"] == {"value": float(top), "keys": stamps}
        ordered = [days[k][1] for k in sorted(days)]
        steep = max(y - x for x, y in zip(ordered, ordered[1:]))
        assert b["steepest"]["value"] == pytest.approx(steep)
        busiest_total += top
    assert aggs["sum"]["value"] == float(busiest_total)
    # One bucket: the sampling variance of one value is Java's NaN, written "NaN".
    r = es.search(index=name, query={"term": {"tag": "alpha"}}, size=0, aggs={
        "tags": {"terms": {"field": "tag"}, "aggs": {"s": {"sum": {"field": "n"}}}},
        "ext": {"extended_stats_bucket": {"buckets_path": "tags>s"}}})
    ext = r["aggregations"]["ext"]
    assert (ext["count"], ext["variance"], ext["variance_sampling"]) == (1, 0.0, "NaN")


def test_moving_fn(es, corpus):
    """moving_fn over a date_histogram's sums, as Kibana's moving average
    sends it, with a shifted window and other MovingFunctions."""
    name, docs, _ = corpus
    scripts = {"avg": ("MovingFunctions.unweightedAvg(values)", 3, 0),
               "max": ("MovingFunctions.max(values)", 2, 1),
               "sum": ("MovingFunctions.sum(values)", 4, 0),
               "ewma": ("MovingFunctions.ewma(values, 0.3)", 5, 0)}
    aggs = {k: {"moving_fn": {"buckets_path": "s", "script": src, "window": w, "shift": sh}}
            for k, (src, w, sh) in scripts.items()}
    r = es.search(index=name, query={"range": {"n": {"lte": 40}}}, size=0, aggs={"h": {
        "date_histogram": {"field": "ts", "fixed_interval": "4h"},
        "aggs": {"s": {"sum": {"field": "n"}}, **aggs}}})
    sums = collections.Counter()
    for d in docs:
        sums[d["ts"] - d["ts"] % (4 * HOUR)] += d["n"]
    values = [float(sums[k]) for k in sorted(sums)]

    def ewma(vs, alpha):
        avg = None
        for v in vs:
            avg = v if avg is None else v * alpha + avg * (1 - alpha)
        return avg

    funcs = {"avg": lambda vs: sum(vs) / len(vs) if vs else None,
             "max": lambda vs: max(vs) if vs else None,
             "sum": lambda vs: float(sum(vs)),
             "ewma": lambda vs: ewma(vs, 0.3)}
    buckets = r["aggregations"]["h"]["buckets"]
    assert len(buckets) == len(values)
    for i, b in enumerate(buckets):
        for k, (_, w, sh) in scripts.items():
            window = values[max(0, i - w + sh):max(0, i + sh)]
            want = funcs[k](window)
            got = b[k]["value"]
            assert (got is None and want is None) or got == pytest.approx(want), (i, k)


@pytest.mark.parametrize("aggs", [
    {"m": {"max_bucket": {"buckets_path": "nope>s"}}},
    {"t": {"terms": {"field": "tag"}}, "m": {"max_bucket": {"buckets_path": "t>nope"}}},
    {"t": {"terms": {"field": "tag"}}, "m": {"max_bucket": {}}},
    {"t": {"terms": {"field": "tag"}},
     "m": {"max_bucket": {"buckets_path": "t>_count"}, "aggs": {"x": {"min": {"field": "n"}}}}},
])
def test_bad_sibling_pipelines_are_400(es, corpus, aggs):
    name, _, _ = corpus
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index=name, size=0, aggs=aggs)


def test_highlight(es, corpus):
    name, docs, _ = corpus
    r = es.search(index=name, query={"match": {"body": "fox"}}, size=50,
                  highlight={"pre_tags": ["<b>"], "post_tags": ["</b>"],
                             "fields": {"body": {"number_of_fragments": 0}}})
    by_id = {d["_id"]: d for d in docs}
    assert r["hits"]["hits"]
    for h in r["hits"]["hits"]:
        frag = h["highlight"]["body"][0]
        assert frag.replace("<b>", "").replace("</b>", "") == by_id[h["_id"]]["body"]
        assert frag.count("<b>fox</b>") == by_id[h["_id"]]["body"].split().count("fox")


@pytest.mark.parametrize("body", [
    pytest.param({"query": {"fuzzy": {"tag": {"value": "a", "fuzziness": 5}}}}, marks=pytest.mark.opensearch_differs(
        "Elasticsearch 8 refuses fuzziness above 2; OpenSearch 2.19 takes it as 2")),
    {"query": {"dis_max": {"queries": []}}},
    {"query": {"geo_distance": {"distance": "5parsecs", "place": "50,0"}}},
    {"query": {"match_bool_prefix": {"body": {"query": "a", "operator": "xor"}}}},
    {"aggs": {"c": {"composite": {"sources": []}}}},
    {"aggs": {"r": {"rare_terms": {"field": "tag", "max_doc_count": 500}}}},
    {"aggs": {"d": {"derivative": {"buckets_path": "_count"}}}},
    {"aggs": {"t": {"terms": {"field": "tag"}, "aggs": {"c": {"cumulative_sum": {"buckets_path": "_count"}}}}}},
    {"aggs": {"w": {"weighted_avg": {"value": {"field": "n"}}}}},
    # Hits of both shards on the page: every shard fails in the fetch phase.
    {"highlight": {"fields": {"body": {"type": "magic"}}}, "size": 200, "sort": [{"n": "asc"}]},
])
def test_bad_requests_are_400(es, corpus, body):
    name, _, _ = corpus
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=name, body=body)
    assert e.value.meta.status == 400


@pytest.mark.parametrize("fetch, failure", [
    ({"highlight": {"fields": {"body": {"type": "magic"}}}},
     ("illegal_argument_exception", "unknown highlighter type [magic] for the field [body]")),
    ({"script_fields": {"t": {"script": "doc['body'].value"}}}, ("script_exception", None)),
])
def test_fetch_phase_failures_fail_only_the_shards_fetched(es, corpus, fetch, failure):
    """The highlighter type and script fields fail in the fetch phase, on
    each shard with hits to fetch: equal scores go to the lower shard, so
    the first page of a match_all comes from shard 0 alone, which fails
    while shard 1 succeeds (200); with size 0 nothing is fetched; a page
    with hits of both shards fails every shard."""
    name, _, _ = corpus
    r = es.search(index=name, query={"match_all": {}}, **fetch)
    shards = r["_shards"]
    assert (shards["total"], shards["successful"], shards["failed"]) == (2, 1, 1)
    assert len(shards["failures"]) == 1
    f = shards["failures"][0]
    assert (f["shard"], f["index"]) == (0, name)
    assert f["reason"]["type"] == failure[0]
    if failure[1] is not None:
        assert f["reason"]["reason"] == failure[1]
    assert r["hits"]["hits"] == []
    r = es.search(index=name, query={"match_all": {}}, size=0, **fetch)
    assert (r["_shards"]["successful"], r["_shards"]["failed"]) == (2, 0)
    assert "failures" not in r["_shards"]
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=name, size=200, sort=[{"n": "asc"}], **fetch)
    err = e.value.body["error"]
    assert err["type"] == "search_phase_execution_exception"
    assert err["reason"] == "all shards failed"
    assert err["phase"] == "fetch"
    assert err["root_cause"][0]["type"] == failure[0]


def test_bool_clause_parse_errors_are_wrapped(es, corpus):
    """bool parses its clauses with an ObjectParser, which wraps a clause's
    parse error in "[bool] failed to parse field [must]" at the position
    the clause's parser stood when it failed."""
    name, _, _ = corpus
    for clause in ("must", "filter"):
        with pytest.raises(elasticsearch.BadRequestError) as e:
            es.search(index=name, query={"bool": {clause: [{"term": {"tag": {"bogus_option": 1}}}]}})
        err = e.value.body["error"]
        inner = err["caused_by"]
        assert err["type"] == "x_content_parse_exception"
        assert err["reason"] == f"[{inner['line']}:{inner['col']}] [bool] failed to parse field [{clause}]"
        assert inner["type"] == "parsing_exception"
        assert inner["reason"] == "[term] query does not support [bogus_option]"


@pytest.mark.opensearch_differs(
    "Elasticsearch 8's XContentParseException is not an ElasticsearchException, so guessRootCauses "
    "stops at the wrapper; OpenSearch 2.19 reports the inner parsing_exception as the root cause")
def test_bool_clause_parse_error_root_cause_is_the_wrapper(es, corpus):
    name, _, _ = corpus
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=name, query={"bool": {"must": [{"term": {"tag": {"bogus_option": 1}}}]}})
    assert e.value.body["error"]["root_cause"][0]["type"] == "x_content_parse_exception"
