"""Runners and parameter sources of Strata's small eventdata-like track.

The operations are those of Rally's eventdata track (bulk through a
parameter source, rollover, Kibana-style `_msearch` dashboards with a named
time zone), written small so the end-to-end suite runs them in seconds.
Every `_msearch` item that carries an error counts as a failed request.
"""

import json
import random

# 2024-03-31 is the day Europe/London starts summer time: the histograms
# cross the change.
START_MS = 1711839600000
SPAN_MS = 6 * 3600 * 1000
CODES = [200, 200, 200, 201, 301, 304, 404, 500, 503]


class LogsBulk:
    def __init__(self, track, params, **kwargs):
        self._index = params["index"]
        self._size = params.get("bulk-size", 500)
        self._random = random.Random(7)

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        lines = []
        for _ in range(self._size):
            lines.append('{"index": {"_index": "%s"}}' % self._index)
            ts = START_MS + self._random.randrange(SPAN_MS)
            code = self._random.choice(CODES)
            lines.append(json.dumps({
                "@timestamp": ts,
                "message": "GET /item/%d HTTP/1.1" % self._random.randrange(1000),
                "response_code": code,
                "bytes": self._random.randrange(100, 50000),
                "agent": self._random.choice(["curl", "firefox", "chrome"]),
            }))
        return {"body": "\n".join(lines) + "\n", "action-metadata-present": True,
                "bulk-size": self._size, "unit": "docs"}


def _histogram(interval, sub=None):
    h = {"date_histogram": {"field": "@timestamp", "fixed_interval": interval,
                            "time_zone": "Europe/London", "min_doc_count": 1}}
    if sub:
        h["aggs"] = sub
    return h


def _range(lo, hi):
    return {"range": {"@timestamp": {"gte": lo, "lte": hi, "format": "epoch_millis"}}}


class KibanaDashboard:
    def __init__(self, track, params, **kwargs):
        self._index = params["index"]

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        lo, hi = START_MS, START_MS + SPAN_MS
        header = {"index": self._index, "ignore_unavailable": True}
        bodies = [
            {"size": 0, "query": {"bool": {"must": [_range(lo, hi)]}},
             "aggs": {"2": _histogram("30s", {"1": {"sum": {"field": "bytes"}}})}},
            {"size": 0, "query": {"bool": {"must": [
                {"query_string": {"query": "response_code:[400 TO 600]", "analyze_wildcard": True}},
                _range(lo, hi)]}},
             "aggs": {"2": _histogram("3h", {"3": {"terms": {"field": "response_code", "size": 10}}})}},
            {"size": 0, "query": {"bool": {"must": [_range(lo, hi)]}},
             "aggs": {"2": _histogram("1m", {"3": {"filters": {"filters": {
                 "200s": {"query_string": {"query": "response_code:[200 TO 300]"}},
                 "500s": {"query_string": {"query": "response_code:[500 TO 600]"}}}}}})}},
            # Nothing matches: Kibana's dashboards over an empty time range.
            {"size": 0, "query": {"bool": {"must": [_range(0, 1000)]}},
             "aggs": {"2": _histogram("30s")}},
            {"size": 20, "sort": [{"@timestamp": {"order": "desc", "unmapped_type": "boolean"}}],
             "docvalue_fields": ["@timestamp"], "query": {"bool": {"must": [_range(lo, hi)]}},
             "aggs": {"2": _histogram("10m")}},
        ]
        body = []
        for b in bodies:
            body.extend([header, b])
        return {"body": body}


async def kibana(es, params):
    result = await es.msearch(body=params["body"])
    errors = [r["error"] for r in result["responses"] if "error" in r]
    if errors:
        return {"weight": 1, "unit": "ops", "success": False,
                "error-type": "kibana", "error-description": json.dumps(errors[0])[:500]}
    return {"weight": 1, "unit": "ops", "success": True}


async def rollover(es, params):
    await es.indices.rollover(alias=params["alias"], body=params["body"])
    return {"weight": 1, "unit": "ops", "success": True}


def register(registry):
    registry.register_param_source("strata-logs-bulk", LogsBulk)
    registry.register_param_source("strata-kibana", KibanaDashboard)
    registry.register_runner("strata-kibana", kibana, async_runner=True)
    registry.register_runner("strata-rollover", rollover, async_runner=True)
