"""Sliced scroll and sliced point in time, driven by the official
`elasticsearch` Python client the way reindexing tools run them: every
slice read at once in its own thread, each page by page, and the union of
the slices checked against the ids indexed here: each document exactly
once, none missing, none extra."""

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from elasticsearch import helpers

DOCS = 1000


@pytest.fixture(scope="module")
def sliced(es):
    """Index `slices-src` (3 shards, several segments each): `DOCS`
    documents, `n` = i, `tag` = i % 4 (a tenth of them without `n`)."""
    name = "slices-src"
    es.options(ignore_status=404).indices.delete(index=name)
    es.indices.create(
        index=name,
        settings={"number_of_shards": 3, "number_of_replicas": 0},
        mappings={"properties": {"n": {"type": "long"}, "tag": {"type": "keyword"}}},
    )
    docs = []
    for i in range(DOCS):
        doc = {"_index": name, "_id": f"d{i}", "tag": f"t{i % 4}"}
        if i % 10:
            doc["n"] = i
        docs.append(doc)
    for start in range(0, DOCS, 250):
        helpers.bulk(es, docs[start:start + 250], refresh=True)
    return name


def scan_slice(es, index, query, slice_):
    """Every hit of one slice of a scroll, through `helpers.scan`."""
    body = {"query": query, "slice": slice_}
    return [h["_id"] for h in helpers.scan(es, index=index, query=body, size=37, scroll="1m")]


def in_parallel(max_slices, read):
    """`read(slice_id)` for every slice at once; the lists it returns."""
    with ThreadPoolExecutor(max_workers=max_slices) as pool:
        return list(pool.map(read, range(max_slices)))


def assert_partition(slices, expected):
    counts = Counter(i for ids in slices for i in ids)
    twice = sorted(i for i, n in counts.items() if n > 1)
    assert not twice, f"in more than one slice (or twice in one): {twice[:10]}"
    assert set(counts) == expected
    assert sum(len(ids) for ids in slices) == len(expected)
    assert all(slices), "a slice is empty"


@pytest.mark.parametrize("max_slices", [2, 3, 5])
@pytest.mark.parametrize("field", [None, "n"])
def test_parallel_sliced_scrolls_partition_the_documents(es, sliced, max_slices, field):
    def read(slice_id):
        slice_ = {"id": slice_id, "max": max_slices}
        if field:
            slice_["field"] = field
        return scan_slice(es, sliced, {"match_all": {}}, slice_)

    slices = in_parallel(max_slices, read)
    assert_partition(slices, {f"d{i}" for i in range(DOCS)})


def test_parallel_sliced_scrolls_partition_a_query(es, sliced):
    query = {"terms": {"tag": ["t1", "t2"]}}
    slices = in_parallel(4, lambda s: scan_slice(es, sliced, query, {"id": s, "max": 4}))
    assert_partition(slices, {f"d{i}" for i in range(DOCS) if i % 4 in (1, 2)})


def test_parallel_sliced_point_in_time_partitions_the_snapshot(es, sliced):
    pit = es.open_point_in_time(index=sliced, keep_alive="1m")["id"]
    try:
        # Indexed after the point in time: in no slice.
        es.index(index=sliced, id="late", document={"n": 3, "tag": "t0"}, refresh=True)

        def read(slice_id):
            ids, after = [], None
            while True:
                kwargs = {"search_after": after} if after else {}
                page = es.search(pit={"id": pit, "keep_alive": "1m"}, size=64,
                                 slice={"field": "n", "id": slice_id, "max": 3},
                                 sort=[{"_shard_doc": "asc"}], **kwargs)
                hits = page["hits"]["hits"]
                if not hits:
                    return ids
                ids.extend(h["_id"] for h in hits)
                after = hits[-1]["sort"]

        slices = in_parallel(3, read)
        assert_partition(slices, {f"d{i}" for i in range(DOCS)})
    finally:
        es.close_point_in_time(id=pit)
        es.options(ignore_status=404).delete(index=sliced, id="late", refresh=True)
