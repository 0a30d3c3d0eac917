//! The Kibana dashboards of the eventdata track as `_msearch` requests, and the time
//! windows they are run over.
//!
//! - `traffic`: heavy aggregations over every document in the window (geohash grid with
//!   centroids, response-code classes per time bucket, top URLs, bytes per bucket, browsers
//!   and operating systems with their versions, 4xx/5xx per bucket, top countries with
//!   body-size percentiles);
//! - `content_issues`: 404s only (distinct clients, top clients, URLs and referrers, a time
//!   histogram);
//! - `discover`: the newest 500 documents with a time histogram.
//!
//! Windows end at the newest document. "Current" windows are the last 15, 30 or 60 minutes
//! of simulated time; "relative" windows are the newest 25, 50 or 75% of the data's span.
//! Every search sends `request_cache: false` so repeated iterations measure the search, not
//! the shard request cache.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One of the dashboards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dashboard {
    /// Heavy aggregations over all matching documents.
    Traffic,
    /// 404 responses only.
    ContentIssues,
    /// 500 hits sorted by time, with a histogram.
    Discover,
}

impl Dashboard {
    /// All dashboards in report order.
    pub const ALL: [Dashboard; 3] = [
        Dashboard::Traffic,
        Dashboard::ContentIssues,
        Dashboard::Discover,
    ];

    /// The dashboard's name in the track.
    pub fn name(self) -> &'static str {
        match self {
            Dashboard::Traffic => "traffic",
            Dashboard::ContentIssues => "content_issues",
            Dashboard::Discover => "discover",
        }
    }
}

/// Whether a window follows the newest data or covers a share of all data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowKind {
    /// The last minutes of simulated time.
    Current,
    /// The newest share of the data's time span.
    Relative,
}

/// A time window, relative to the data it is applied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// The last `n` minutes before the newest document.
    CurrentMinutes(u32),
    /// The newest `n` percent of the span from the oldest to the newest document.
    RelativePercent(u32),
}

impl Window {
    /// The windows of the benchmark: current 15/30/60 minutes, relative 25/50/75%.
    pub const ALL: [Window; 6] = [
        Window::CurrentMinutes(15),
        Window::CurrentMinutes(30),
        Window::CurrentMinutes(60),
        Window::RelativePercent(25),
        Window::RelativePercent(50),
        Window::RelativePercent(75),
    ];

    /// `current` or `relative`.
    pub fn kind(self) -> WindowKind {
        match self {
            Window::CurrentMinutes(_) => WindowKind::Current,
            Window::RelativePercent(_) => WindowKind::Relative,
        }
    }

    /// A label such as `current-15m` or `relative-50%`.
    pub fn label(self) -> String {
        match self {
            Window::CurrentMinutes(m) => format!("current-{m}m"),
            Window::RelativePercent(p) => format!("relative-{p}%"),
        }
    }

    /// The `[gte, lte]` range in epoch ms over data from `oldest_ms` to `newest_ms`.
    pub fn range(self, oldest_ms: i64, newest_ms: i64) -> (i64, i64) {
        let span = (newest_ms - oldest_ms).max(0);
        let length = match self {
            Window::CurrentMinutes(m) => i64::from(m) * 60_000,
            Window::RelativePercent(p) => span * i64::from(p) / 100,
        };
        (newest_ms - length, newest_ms)
    }
}

/// Kibana's automatic histogram interval: the largest of the usual intervals that gives at
/// most 100 buckets while aiming for about 50. Returned as a `fixed_interval`.
pub fn histogram_interval(window_ms: i64) -> &'static str {
    const INTERVALS: [(&str, i64); 12] = [
        ("1s", 1),
        ("5s", 5),
        ("10s", 10),
        ("30s", 30),
        ("1m", 60),
        ("5m", 300),
        ("10m", 600),
        ("30m", 1_800),
        ("1h", 3_600),
        ("3h", 10_800),
        ("12h", 43_200),
        ("1d", 86_400),
    ];
    let secs = window_ms as f64 / 1000.0;
    let (target, most) = (secs / 50.0, secs / 100.0);
    let above = INTERVALS.iter().position(|&(_, len)| len as f64 >= target);
    match above {
        None => INTERVALS[INTERVALS.len() - 1].0,
        Some(0) => INTERVALS[0].0,
        Some(at) if INTERVALS[at - 1].1 as f64 > most => INTERVALS[at - 1].0,
        Some(at) => INTERVALS[at].0,
    }
}

/// What a dashboard's searches share: index, window, histogram time zone.
#[derive(Debug, Clone)]
pub struct SearchScope<'a> {
    /// Index (or pattern) searched.
    pub index: &'a str,
    /// Window start, epoch ms (inclusive).
    pub gte_ms: i64,
    /// Window end, epoch ms (inclusive).
    pub lte_ms: i64,
    /// `time_zone` of date histograms.
    pub time_zone: &'a str,
    /// `preference`, shared by a dashboard's searches as Kibana does.
    pub preference: u64,
}

impl SearchScope<'_> {
    fn header(&self) -> Value {
        json!({
            "index": self.index,
            "ignore_unavailable": true,
            "preference": self.preference.to_string(),
            "request_cache": false
        })
    }

    fn histogram(&self) -> Value {
        json!({
            "field": "@timestamp",
            "fixed_interval": histogram_interval(self.lte_ms - self.gte_ms),
            "time_zone": self.time_zone,
            "min_doc_count": 1
        })
    }

    /// Kibana's search body around `aggs`, matching `extra` plus the time range.
    fn search(&self, extra: &[Value], aggs: Value) -> Value {
        let mut must = vec![
            json!({ "match_all": {} }),
            json!({ "query_string": { "query": "*", "analyze_wildcard": true, "default_field": "*" } }),
        ];
        must.extend(extra.iter().cloned());
        must.push(json!({ "range": { "@timestamp": {
            "gte": self.gte_ms, "lte": self.lte_ms, "format": "epoch_millis"
        } } }));
        json!({
            "size": 0,
            "aggs": aggs,
            "query": { "bool": { "must": must, "filter": [], "should": [], "must_not": [] } },
            "version": true,
            "stored_fields": ["*"],
            "script_fields": {},
            "docvalue_fields": ["@timestamp"],
            "_source": { "excludes": [] },
            "highlight": {
                "pre_tags": ["@kibana-highlighted-field@"],
                "post_tags": ["@/kibana-highlighted-field@"],
                "fields": { "*": {} },
                "fragment_size": 2_147_483_647
            }
        })
    }
}

const FIELD: &str = "nginx.access.";

fn field(name: &str) -> String {
    format!("{FIELD}{name}")
}

fn terms(name: &str, size: u32) -> Value {
    json!({ "field": field(name), "size": size, "order": { "_count": "desc" } })
}

fn code_range(low: u32, high: u32) -> Value {
    let query = format!("{FIELD}response_code: [{low} TO {high}]");
    json!({ "query_string": { "query": query, "analyze_wildcard": true, "default_field": "*" } })
}

/// The searches of `dashboard` over `scope`, in the order Kibana sends them.
pub fn searches(dashboard: Dashboard, scope: &SearchScope<'_>) -> Vec<Value> {
    let histogram = scope.histogram();
    match dashboard {
        Dashboard::Traffic => {
            let location = field("geoip.location");
            let classes: serde_json::Map<String, Value> =
                [(200, 300), (300, 400), (400, 500), (500, 600)]
                    .into_iter()
                    .map(|(low, high)| (format!("{}s", low), code_range(low, high)))
                    .collect();
            vec![
                scope.search(&[], json!({ "filter_agg": {
                    "filter": { "geo_bounding_box": { location.clone(): {
                        "top_left": { "lat": 90, "lon": -180 },
                        "bottom_right": { "lat": -90, "lon": 180 }
                    } } },
                    "aggs": { "2": {
                        "geohash_grid": { "field": location, "precision": 2 },
                        "aggs": { "3": { "geo_centroid": { "field": field("geoip.location") } } }
                    } }
                } })),
                scope.search(&[], json!({ "2": {
                    "date_histogram": histogram,
                    "aggs": { "3": { "filters": { "filters": classes } } }
                } })),
                scope.search(&[], json!({ "2": { "terms": terms("url", 10) } })),
                scope.search(&[], json!({ "2": {
                    "date_histogram": histogram,
                    "aggs": { "1": { "sum": { "field": field("body_sent.bytes") } } }
                } })),
                scope.search(&[], json!({ "2": {
                    "terms": terms("user_agent.name", 5),
                    "aggs": { "3": { "terms": terms("user_agent.major", 5) } }
                } })),
                scope.search(&[], json!({ "2": {
                    "terms": terms("user_agent.os_name", 5),
                    "aggs": { "3": { "terms": terms("user_agent.os_major", 5) } }
                } })),
                scope.search(&[code_range(400, 600)], json!({ "2": {
                    "date_histogram": histogram,
                    "aggs": { "3": { "terms": terms("response_code", 10) } }
                } })),
                scope.search(&[], json!({
                    "2": { "terms": terms("geoip.country_name", 10) },
                    "3": { "percentiles": { "field": field("body_sent.bytes"), "percents": [50, 95, 99] } }
                })),
            ]
        }
        Dashboard::ContentIssues => {
            let not_found =
                [json!({ "match_phrase": { field("response_code"): { "query": 404 } } })];
            vec![
                scope.search(
                    &not_found,
                    json!({ "2": { "cardinality": { "field": field("remote_ip") } } }),
                ),
                scope.search(
                    &not_found,
                    json!({ "2": { "terms": terms("remote_ip", 20) } }),
                ),
                scope.search(&not_found, json!({ "2": { "terms": terms("url", 20) } })),
                scope.search(
                    &not_found,
                    json!({ "2": { "terms": terms("referrer", 20) } }),
                ),
                scope.search(&not_found, json!({ "2": { "date_histogram": histogram } })),
            ]
        }
        Dashboard::Discover => {
            let mut search = scope.search(&[], json!({ "2": { "date_histogram": histogram } }));
            search["size"] = json!(500);
            search["sort"] =
                json!([{ "@timestamp": { "order": "desc", "unmapped_type": "boolean" } }]);
            vec![search]
        }
    }
}

/// The `_msearch` body of a dashboard (header and body line per search, newline-terminated)
/// and the number of searches in it.
pub fn msearch_body(dashboard: Dashboard, scope: &SearchScope<'_>) -> (Vec<u8>, usize) {
    let searches = searches(dashboard, scope);
    let header = scope.header().to_string();
    let mut body = Vec::with_capacity(searches.len() * 1024);
    for search in &searches {
        body.extend_from_slice(header.as_bytes());
        body.push(b'\n');
        body.extend_from_slice(search.to_string().as_bytes());
        body.push(b'\n');
    }
    (body, searches.len())
}

#[cfg(test)]
#[path = "queries_tests.rs"]
mod tests;
