//! The buckets of `range` and `date_range`, shared by both: tantivy's
//! `range` adds buckets of its own between the requested ranges and
//! refuses overlapping ranges, both of which Elasticsearch does not, so
//! each requested range is its own one-range tantivy aggregation named
//! `<name>\u{1f}<i>` ([`tantivy_requests`]) and [`gather`] puts them back
//! as Elasticsearch's buckets: exactly the requested ranges, sorted by
//! `from` then `to` ([`sort`]), a document counted in every range it
//! falls in, keyed when `keyed`. How a bucket's `key` and ends are
//! written (numbers, dates, formats) is the caller's.

use serde_json::{json, Map, Value};

use super::agg_filters::KEY_SEPARATOR;
use crate::error::Result;

/// One requested range, its ends converted to numbers (a date's as epoch
/// milliseconds). Invariant: the ends are finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    /// Its `key` as written (`None`: made of its ends).
    pub key: Option<String>,
    /// Its inclusive start (`None`: unbounded).
    pub from: Option<f64>,
    /// Its exclusive end (`None`: unbounded).
    pub to: Option<f64>,
    /// Its documents include those without the field (a numeric range
    /// holding its `missing` value): its part is a filter aggregation the
    /// caller made, whose result is the bucket itself.
    pub or_missing: bool,
}

impl Bounds {
    /// Whether `x` is within `[from, to)`.
    pub fn holds(&self, x: f64) -> bool {
        self.from.is_none_or(|f| f <= x) && self.to.is_none_or(|t| x < t)
    }
}

/// Sorts `ranges` as Elasticsearch orders its buckets: by `from` (an
/// unbounded one first), then by `to` (an unbounded one last); equal
/// ranges keep the request's order (the sort is stable).
pub fn sort(ranges: &mut [Bounds]) {
    ranges.sort_by(|a, b| {
        let from = |r: &Bounds| r.from.unwrap_or(f64::NEG_INFINITY);
        let to = |r: &Bounds| r.to.unwrap_or(f64::INFINITY);
        from(a).total_cmp(&from(b)).then(to(a).total_cmp(&to(b)))
    });
}

/// The name of range `i`'s own aggregation of the aggregation `name`.
pub fn part_name(name: &str, i: usize) -> String {
    format!("{name}{KEY_SEPARATOR}{i}")
}

/// One tantivy `range` aggregation per range of `ranges` over the
/// fast-field `column`: (name, request), the range keyed `"r"`.
pub fn tantivy_requests(name: &str, column: &str, ranges: &[Bounds]) -> Vec<(String, Value)> {
    ranges
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut range = json!({"key": "r"});
            if let Some(f) = r.from {
                range["from"] = json!(f);
            }
            if let Some(t) = r.to {
                range["to"] = json!(t);
            }
            (
                part_name(name, i),
                json!({"range": {"field": column, "ranges": [range]}}),
            )
        })
        .collect()
}

/// Replaces the per-range results of `name` in `result` (as
/// [`tantivy_requests`] named them, for the same `ranges`) by the one
/// aggregation `name` of Elasticsearch's buckets: range `i`'s bucket is
/// its part's (sub-aggregations included; `doc_count` 0 when tantivy
/// answered nothing), stripped of tantivy's `key`, ends and strings, then
/// given them by `write` (which must set `key`), then fixed by `each`.
/// Keyed buckets are an object by key.
pub fn gather(
    result: &mut Value,
    name: &str,
    ranges: &[Bounds],
    keyed: bool,
    write: impl Fn(&Bounds, &mut Value),
    mut each: impl FnMut(&mut Value) -> Result<()>,
) -> Result<()> {
    let Some(obj) = result.as_object_mut() else {
        return Ok(());
    };
    let mut buckets = Vec::with_capacity(ranges.len());
    for (i, r) in ranges.iter().enumerate() {
        let part = obj.remove(&part_name(name, i));
        let found = if r.or_missing {
            part.filter(Value::is_object)
        } else {
            part.as_ref()
                .and_then(|p| p.get("buckets"))
                .and_then(Value::as_array)
                .and_then(|b| b.iter().find(|b| b["key"] == "r").cloned())
        };
        let mut bucket = found.unwrap_or_else(|| json!({"doc_count": 0}));
        if let Some(b) = bucket.as_object_mut() {
            for k in ["key", "from", "to", "from_as_string", "to_as_string"] {
                b.remove(k);
            }
        }
        write(r, &mut bucket);
        each(&mut bucket)?;
        buckets.push(bucket);
    }
    let buckets = if keyed {
        let mut by_key = Map::new();
        for b in buckets {
            let k = b["key"].as_str().unwrap_or_default().to_string();
            by_key.insert(k, b);
        }
        Value::Object(by_key)
    } else {
        Value::Array(buckets)
    };
    obj.insert(name.to_string(), json!({ "buckets": buckets }));
    Ok(())
}

/// The default key of a range: `<from>-<to>`, an unbounded end `*`.
pub fn default_key(from: Option<&str>, to: Option<&str>) -> String {
    format!("{}-{}", from.unwrap_or("*"), to.unwrap_or("*"))
}
