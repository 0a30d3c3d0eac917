"""`nested` fields through the official `elasticsearch` Python client: the
`nested` query (one object must satisfy every clause: the cross-object
match of flattened objects must not happen), `score_mode`, nested in
nested, the `nested` and `reverse_nested` aggregations, counts of parents
only (`_count`, `hits.total`, `delete_by_query`), updates and deletes
that leave no nested document behind, and Elasticsearch's 400 errors.
Every answer is checked against values computed here from the documents."""

import random

import elasticsearch
import pytest
from elasticsearch import helpers

INDEX = "e2e-nested"
AUTHORS = ["alice", "bob", "carol", "dave"]


def make_docs(n=80, seed=31):
    rng = random.Random(seed)
    docs = {}
    for i in range(n):
        comments = [{
            "author": rng.choice(AUTHORS),
            "stars": rng.randint(1, 5),
            "replies": [{"who": rng.choice(AUTHORS)} for _ in range(rng.randint(0, 2))],
        } for _ in range(rng.randint(0, 4))]
        docs[str(i)] = {"title": f"post {i}", "comments": comments}
    # The false match of flattened objects: alice gave 1 star, bob gave 5.
    docs["cross"] = {"title": "cross", "comments": [
        {"author": "alice", "stars": 1, "replies": []},
        {"author": "bob", "stars": 5, "replies": []},
    ]}
    return docs


@pytest.fixture(scope="module")
def posts(es):
    es.options(ignore_status=404).indices.delete(index=INDEX)
    es.indices.create(index=INDEX, settings={"number_of_shards": 2}, mappings={"properties": {
        "title": {"type": "keyword"},
        "comments": {"type": "nested", "properties": {
            "author": {"type": "keyword"},
            "stars": {"type": "integer"},
            "replies": {"type": "nested", "properties": {"who": {"type": "keyword"}}},
        }},
    }})
    docs = make_docs()
    ok, errors = helpers.bulk(
        es, ({"_index": INDEX, "_id": k, **v} for k, v in docs.items()), refresh=True)
    assert (ok, errors) == (len(docs), [])
    yield docs
    es.indices.delete(index=INDEX)


def ids(resp):
    return sorted(h["_id"] for h in resp["hits"]["hits"])


def nested(path, query, **extra):
    return {"nested": {"path": path, "query": query, **extra}}


def both(author, stars):
    return nested("comments", {"bool": {"must": [
        {"term": {"comments.author": author}},
        {"term": {"comments.stars": stars}},
    ]}})


def test_mapping_round_trips(es, posts):
    props = es.indices.get_mapping(index=INDEX)[INDEX]["mappings"]["properties"]
    assert props["comments"]["type"] == "nested"
    assert props["comments"]["properties"]["replies"]["type"] == "nested"


def test_no_match_across_objects(es, posts):
    resp = es.search(index=INDEX, query=both("alice", 5), size=200)
    want = sorted(k for k, d in posts.items()
                  if any(c["author"] == "alice" and c["stars"] == 5 for c in d["comments"]))
    assert ids(resp) == want
    assert "cross" not in ids(resp)
    assert "cross" in ids(es.search(index=INDEX, query=both("alice", 1), size=200))
    # Nested fields are not in the root document.
    assert es.count(index=INDEX, query={"term": {"comments.author": "alice"}})["count"] == 0


def test_counts_are_parents_only(es, posts):
    assert es.count(index=INDEX)["count"] == len(posts)
    resp = es.search(index=INDEX, size=0, track_total_hits=True)
    assert resp["hits"]["total"] == {"value": len(posts), "relation": "eq"}
    hits = helpers.scan(es, index=INDEX, query={"query": {"match_all": {}}}, size=17)
    seen = {h["_id"]: h["_source"] for h in hits}
    assert seen == posts


def test_score_modes_and_two_levels(es, posts):
    for mode, fold in [("sum", sum), ("max", max), ("min", min),
                       ("avg", lambda s: sum(s) / len(s))]:
        # Each matching comment scores its stars (a constant_score boost).
        should = [{"constant_score": {"filter": {"term": {"comments.stars": s}}, "boost": s}}
                  for s in range(1, 6)]
        q = nested("comments", {"bool": {"should": should, "filter": [
            {"term": {"comments.author": "bob"}}]}}, score_mode=mode)
        resp = es.search(index=INDEX, query=q, size=200)
        for hit in resp["hits"]["hits"]:
            stars = [c["stars"] for c in posts[hit["_id"]]["comments"] if c["author"] == "bob"]
            assert hit["_score"] == pytest.approx(fold(stars)), (mode, hit["_id"])
    resp = es.search(index=INDEX, size=200, query=nested("comments", {"bool": {"must": [
        {"term": {"comments.author": "carol"}},
        nested("comments.replies", {"term": {"comments.replies.who": "dave"}}),
    ]}}))
    want = sorted(k for k, d in posts.items() if any(
        c["author"] == "carol" and any(r["who"] == "dave" for r in c["replies"])
        for c in d["comments"]))
    assert ids(resp) == want


def test_nested_and_reverse_nested_aggregations(es, posts):
    resp = es.search(index=INDEX, size=0, aggs={"c": {"nested": {"path": "comments"}, "aggs": {
        "by": {"terms": {"field": "comments.author"}, "aggs": {
            "posts": {"reverse_nested": {}},
            "avg_stars": {"avg": {"field": "comments.stars"}},
        }},
        "r": {"nested": {"path": "comments.replies"}},
    }}})
    c = resp["aggregations"]["c"]
    comments = [c for d in posts.values() for c in d["comments"]]
    assert c["doc_count"] == len(comments)
    assert c["r"]["doc_count"] == sum(len(x["replies"]) for x in comments)
    for b in c["by"]["buckets"]:
        mine = [x for x in comments if x["author"] == b["key"]]
        assert b["doc_count"] == len(mine)
        assert b["avg_stars"]["value"] == pytest.approx(sum(x["stars"] for x in mine) / len(mine))
        owners = sum(1 for d in posts.values() if any(x["author"] == b["key"] for x in d["comments"]))
        assert b["posts"]["doc_count"] == owners
    assert sorted(b["key"] for b in c["by"]["buckets"]) == sorted({x["author"] for x in comments})


def test_updates_and_deletes_leave_no_nested_documents(es, posts):
    index = INDEX + "-w"
    es.options(ignore_status=404).indices.delete(index=index)
    es.indices.create(index=index, mappings={"properties": {
        "comments": {"type": "nested", "properties": {"author": {"type": "keyword"}}}}})
    es.index(index=index, id="1", document={"comments": [{"author": "alice"}, {"author": "bob"}]},
             refresh=True)
    alice = nested("comments", {"term": {"comments.author": "alice"}})
    assert es.count(index=index, query=alice)["count"] == 1
    es.index(index=index, id="1", document={"comments": [{"author": "carol"}]}, refresh=True)
    assert es.count(index=index, query=alice)["count"] == 0
    agg = es.search(index=index, size=0, aggs={"c": {"nested": {"path": "comments"}}})
    assert agg["aggregations"]["c"]["doc_count"] == 1
    es.update(index=index, id="1", doc={"comments": [{"author": "dave"}, {"author": "erin"}]},
              refresh=True)
    agg = es.search(index=index, size=0, aggs={"c": {"nested": {"path": "comments"}}})
    assert agg["aggregations"]["c"]["doc_count"] == 2
    es.index(index=index, id="2", document={"comments": [{"author": "dave"}]}, refresh=True)
    out = es.delete_by_query(index=index, query=nested("comments", {"term": {"comments.author": "erin"}}),
                             refresh=True)
    assert out["deleted"] == 1
    agg = es.search(index=index, size=0, aggs={"c": {"nested": {"path": "comments"}}})
    assert agg["aggregations"]["c"]["doc_count"] == 1
    assert es.count(index=index)["count"] == 1
    es.delete(index=index, id="2", refresh=True)
    agg = es.search(index=index, size=0, aggs={"c": {"nested": {"path": "comments"}}})
    assert agg["aggregations"]["c"]["doc_count"] == 0
    es.indices.delete(index=index)


def test_errors_are_400s(es, posts):
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=INDEX, query=nested("nope", {"match_all": {}}))
    assert "failed to find nested object under path [nope]" in str(e.value.body)
    resp = es.search(index=INDEX, query=nested("nope", {"match_all": {}}, ignore_unmapped=True))
    assert resp["hits"]["total"]["value"] == 0
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.search(index=INDEX, query=nested("title", {"match_all": {}}))
    assert "is not of nested type" in str(e.value.body)
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index=INDEX, aggs={"r": {"reverse_nested": {}}})
    index = INDEX + "-limit"
    es.options(ignore_status=404).indices.delete(index=index)
    es.indices.create(index=index, settings={"index.mapping.nested_objects.limit": 2},
                      mappings={"properties": {"n": {"type": "nested"}}})
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.index(index=index, id="1", document={"n": [{"a": 1}, {"a": 2}, {"a": 3}]})
    assert e.value.body["error"]["type"] == "document_parsing_exception"
    assert "allowed limit of [2]" in e.value.body["error"]["reason"]
    es.indices.delete(index=index)
    with pytest.raises(elasticsearch.BadRequestError) as e:
        es.indices.create(index=index, settings={"index.mapping.nested_fields.limit": 1},
                          mappings={"properties": {"a": {"type": "nested"}, "b": {"type": "nested"}}})
    assert "Limit of nested fields [1] has been exceeded" in str(e.value.body)
