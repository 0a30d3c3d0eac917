//! The buckets of `range` and `date_range`, shared by both: tantivy's
//! `range` adds buckets of its own between the requested ranges and
//! refuses overlapping ranges, both of which Elasticsearch does not, so
//! each requested range is its own one-range tantivy aggregation named
//! `<name>\u{1f}<i>` ([`tantivy_requests`]) and [`gather`] puts them back
//! as Elasticsearch's buckets: exactly the requested ranges, sorted by
//! `from` then `to` ([`sort`]), a document counted in every range it
//! falls in, keyed when `keyed`. How a bucket's `key` and ends are
//! written (numbers, dates, formats) is the caller's. `missing`: documents
//! without the field count in each range holding the value
//! ([`FieldRanges`]), through a filter aggregation for such a range.

use serde_json::{json, Map, Value};

use super::agg_filters::{self, KEY_SEPARATOR};
use crate::error::Result;
use crate::mapping::Mappings;
use crate::store::KEYWORDS;

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
    /// Its documents include those without the field (the range holds
    /// the `missing` value, [`FieldRanges`]): its part is a filter
    /// aggregation, whose result is the bucket itself.
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
fn sort(ranges: &mut [Bounds]) {
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

/// The ranges of a `range` or `date_range` over one field, with its
/// `missing`: what both build their aggregations and bucket filters from.
#[derive(Debug, Clone)]
pub struct FieldRanges {
    /// The field.
    pub field: String,
    /// A date field (its ends are then epoch milliseconds in a query).
    date: bool,
    /// Sorted ([`sort`]), those holding `missing` marked.
    pub ranges: Vec<Bounds>,
    /// What documents without the field count as.
    missing: Option<f64>,
}

impl FieldRanges {
    /// `ranges` of `field`, sorted, each holding `missing` marked.
    pub fn new(field: &str, date: bool, mut ranges: Vec<Bounds>, missing: Option<f64>) -> Self {
        for r in &mut ranges {
            r.or_missing = missing.is_some_and(|m| r.holds(m));
        }
        sort(&mut ranges);
        FieldRanges {
            field: field.to_string(),
            date,
            ranges,
            missing,
        }
    }

    /// One aggregation per range: (name, request), as [`gather`] reads
    /// them back. A range holding `missing` is a filter aggregation over
    /// its range or the documents without the field (tantivy's range has
    /// no `missing`); the others are one-range tantivy `range`s over the
    /// field's column, the range keyed `"r"`.
    pub fn tantivy_requests(
        &self,
        name: &str,
        mappings: &Mappings,
        now: i64,
    ) -> Vec<(String, Value)> {
        let column = format!("{KEYWORDS}.{}", self.field);
        let part = |r: &Bounds| {
            if r.or_missing {
                return agg_filters::filter_request(mappings, &self.query(r), now);
            }
            let mut range = json!({"key": "r"});
            if let Some(f) = r.from {
                range["from"] = json!(f);
            }
            if let Some(t) = r.to {
                range["to"] = json!(t);
            }
            json!({"range": {"field": column, "ranges": [range]}})
        };
        self.ranges
            .iter()
            .enumerate()
            .map(|(i, r)| (part_name(name, i), part(r)))
            .collect()
    }

    /// Whether some range holds `missing` (its documents are then not
    /// selected by the field's values alone).
    pub fn counts_missing(&self) -> bool {
        self.ranges.iter().any(|r| r.or_missing)
    }

    /// The query selecting the documents of the bucket from `from` to `to`
    /// (as a reply writes them): the range, or also the documents without
    /// the field when the range holds `missing`.
    pub fn bucket_query(&self, from: Option<f64>, to: Option<f64>) -> Value {
        let mut r = Bounds {
            key: None,
            from,
            to,
            or_missing: false,
        };
        r.or_missing = self.missing.is_some_and(|m| r.holds(m));
        self.query(&r)
    }

    /// The query of range `r`'s documents.
    fn query(&self, r: &Bounds) -> Value {
        let within = range_query(&self.field, r.from, r.to, self.date);
        if !r.or_missing {
            return within;
        }
        json!({"bool": {"minimum_should_match": 1, "should": [
            within,
            {"bool": {"must_not": [{"exists": {"field": self.field}}]}}
        ]}})
    }
}

/// The `range` query of `field` from `from` (inclusive) to `to`
/// (exclusive); a date field's ends as whole epoch milliseconds.
pub fn range_query(field: &str, from: Option<f64>, to: Option<f64>, date: bool) -> Value {
    let mut bounds = json!({});
    if let Some(f) = from {
        bounds["gte"] = json!(f);
    }
    if let Some(t) = to {
        bounds["lt"] = json!(t);
    }
    if date {
        bounds["format"] = json!("epoch_millis");
        for k in ["gte", "lt"] {
            if let Some(v) = bounds.get(k).and_then(Value::as_f64) {
                bounds[k] = json!(v as i64);
            }
        }
    }
    json!({"range": { field: bounds }})
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
