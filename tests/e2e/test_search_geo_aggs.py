"""Geo aggregations as map applications send them (Kibana's and OpenSearch
Dashboards' maps: `geotile_grid` with a `geo_centroid` per cell and the
view's `bounds`, `geo_bounds` to fit the view), through the official
Python client, every answer checked against values computed here from the
same generated points: tiles by the slippy-map formula, bounds by hand.
Runs against Strata and, with `scripts/peers/opensearch --e2e`, against
OpenSearch."""

import math
import random

import elasticsearch
import pytest
from elasticsearch import helpers


@pytest.fixture(scope="module")
def places(es):
    """800 documents with 0, 1 or 2 points (an empty array for some), half
    clustered over Europe, the rest anywhere but the poles."""
    name = "e2e-geo-aggs"
    es.options(ignore_status=404).indices.delete(index=name)
    es.indices.create(index=name, settings={"number_of_shards": 2}, mappings={"properties": {
        "where": {"type": "geo_point"}, "kind": {"type": "keyword"}}})
    rng = random.Random(11)
    docs = []
    for i in range(800):
        points = []
        for _ in range([0, 1, 1, 2][i % 4]):
            if rng.random() < 0.5:
                points.append((rng.uniform(35, 60), rng.uniform(-10, 30)))
            else:
                points.append((rng.uniform(-80, 80), rng.uniform(-179.5, 179.5)))
        d = {"_id": str(i), "kind": "abc"[i % 3]}
        if points:
            d["where"] = [{"lat": lat, "lon": lon} for lat, lon in points]
        elif i % 8 == 0:
            d["where"] = []
        docs.append((d, points))
    ok, errors = helpers.bulk(es, ({"_index": name, **d} for d, _ in docs), refresh=True,
                              chunk_size=500)
    assert (ok, errors) == (len(docs), [])
    yield name, docs
    es.indices.delete(index=name)


def tile(point, zoom):
    lat, lon = point
    n = 1 << zoom
    x = min(int(math.floor((lon + 180) / 360 * n)), n - 1)
    y = math.floor((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return zoom, x, min(max(y, 0), n - 1)


def in_box(point, box):
    (lat, lon), (top, left, bottom, right) = point, box
    lon_ok = left <= lon <= right if left <= right else lon >= left or lon <= right
    return bottom <= lat <= top and lon_ok


def expected_tiles(docs, zoom, box=None, kind=None):
    """Documents per tile (once per tile a document's points inside `box`
    fall in), fullest first, ties by column then row descending."""
    counts = {}
    for d, points in docs:
        if kind is not None and d["kind"] != kind:
            continue
        for t in {tile(p, zoom) for p in points if box is None or in_box(p, box)}:
            counts[t] = counts.get(t, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], -kv[0][1], -kv[0][2]))
    return [("%d/%d/%d" % t, n) for t, n in ordered]


# A grid's shards send their fullest cells only (`shard_size`, by default
# `size` times the shards): the tests ask for all of them, so that
# Elasticsearch's and OpenSearch's counts are exact, as Strata's always are.


def buckets(agg):
    return [(b["key"], b["doc_count"]) for b in agg["buckets"]]


def close(a, b):
    return abs(a - b) < 1e-6


def test_geotile_grid_with_centroids(es, places):
    name, docs = places
    for zoom in (0, 2, 4, 8, 12):
        r = es.search(index=name, size=0, aggs={"t": {
            "geotile_grid": {"field": "where", "precision": zoom, "size": 12, "shard_size": 1000},
            "aggs": {"c": {"geo_centroid": {"field": "where"}}}}})
        agg = r["aggregations"]["t"]
        assert buckets(agg) == expected_tiles(docs, zoom)[:12], zoom
        for b in agg["buckets"]:
            z, x, y = map(int, b["key"].split("/"))
            points = [p for _, ps in docs if (z, x, y) in {tile(q, z) for q in ps} for p in ps]
            assert b["c"]["count"] == len(points)
            assert close(b["c"]["location"]["lat"], sum(p[0] for p in points) / len(points))
            assert close(b["c"]["location"]["lon"], sum(p[1] for p in points) / len(points))


def test_grid_bounds_count_only_points_inside(es, places):
    name, docs = places
    for top, left, bottom, right in ((55, 0, 40, 20), (70, 100, -60, -120)):
        bounds = {"top_left": {"lat": top, "lon": left},
                  "bottom_right": {"lat": bottom, "lon": right}}
        for zoom in (3, 7):
            r = es.search(index=name, size=0, aggs={"t": {"geotile_grid": {
                "field": "where", "precision": zoom, "bounds": bounds}}})
            want = expected_tiles(docs, zoom, (top, left, bottom, right))
            assert buckets(r["aggregations"]["t"]) == want, (bounds, zoom)
        r = es.search(index=name, size=0, aggs={"h": {"geohash_grid": {
            "field": "where", "precision": 2, "bounds": bounds}}})
        inside = sum(1 for _, ps in docs if any(in_box(p, (top, left, bottom, right)) for p in ps))
        counted = sum(n for _, n in buckets(r["aggregations"]["h"]))
        assert inside <= counted <= 2 * inside and inside > 0


def test_geo_bounds_and_per_bucket_aggregations(es, places):
    name, docs = places
    r = es.search(index=name, size=0, aggs={
        "b": {"geo_bounds": {"field": "where"}},
        "u": {"geo_bounds": {"field": "where", "wrap_longitude": False}},
        "k": {"terms": {"field": "kind"}, "aggs": {
            "b": {"geo_bounds": {"field": "where"}},
            "t": {"geotile_grid": {"field": "where", "precision": 3, "size": 5,
                                   "shard_size": 1000}}}},
        "none": {"filter": {"term": {"kind": "nothing"}},
                 "aggs": {"b": {"geo_bounds": {"field": "where"}}}}})
    aggs = r["aggregations"]

    def corners(agg):
        box = agg["bounds"]
        return (box["top_left"]["lat"], box["top_left"]["lon"],
                box["bottom_right"]["lat"], box["bottom_right"]["lon"])

    def box_of(points):
        lats, lons = [p[0] for p in points], [p[1] for p in points]
        return max(lats), min(lons), min(lats), max(lons)

    everything = [p for _, ps in docs for p in ps]
    for got in (corners(aggs["b"]), corners(aggs["u"])):
        assert all(close(g, w) for g, w in zip(got, box_of(everything))), got
    for b in aggs["k"]["buckets"]:
        points = [p for d, ps in docs if d["kind"] == b["key"] for p in ps]
        assert all(close(g, w) for g, w in zip(corners(b["b"]), box_of(points)))
        assert buckets(b["t"]) == expected_tiles(docs, 3, kind=b["key"])[:5]
    assert aggs["none"]["b"] == {}
    # Points east of 170 and west of -170 only: the box wraps the date line.
    r = es.search(index=name, size=0, query={"bool": {"should": [
        {"geo_bounding_box": {"where": {"top": 90, "left": 170, "bottom": -90, "right": 180}}},
        {"geo_bounding_box": {"where": {"top": 90, "left": -180, "bottom": -90, "right": -170}}}],
        "must_not": {"geo_bounding_box": {"where": {"top": 90, "left": -170, "bottom": -90,
                                                     "right": 170}}}}},
        aggs={"b": {"geo_bounds": {"field": "where"}}})
    edge = [p for _, ps in docs if ps and all(abs(q[1]) >= 170 for q in ps) for p in ps]
    assert r["hits"]["total"]["value"] == sum(
        1 for _, ps in docs if ps and all(abs(q[1]) >= 170 for q in ps))
    if edge:
        east = [p for p in edge if p[1] >= 0]
        west = [p for p in edge if p[1] < 0]
        top, _, bottom, _ = box_of(edge)
        want = (top, min(p[1] for p in east), bottom, max(p[1] for p in west)) \
            if east and west else box_of(edge)
        assert all(close(g, w) for g, w in zip(corners(r["aggregations"]["b"]), want))


@pytest.mark.parametrize("aggs", [
    {"t": {"geotile_grid": {"field": "where", "precision": 30}}},
    {"t": {"geotile_grid": {"field": "where", "precision": -1}}},
    {"t": {"geotile_grid": {"field": "where", "size": 0}}},
    {"t": {"geotile_grid": {"field": "kind"}}},
    {"t": {"geotile_grid": {"field": "where", "unknown": 1}}},
    {"b": {"geo_bounds": {"field": "kind"}}},
    {"b": {"geo_bounds": {"field": "where", "unknown": 1}}},
])
def test_bad_geo_aggregations_are_400(es, places, aggs):
    name, _ = places
    with pytest.raises(elasticsearch.BadRequestError):
        es.search(index=name, size=0, aggs=aggs)
