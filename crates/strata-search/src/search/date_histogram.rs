//! `date_histogram` on tantivy's aggregations, in one of two forms:
//!
//! - Intervals of constant length in a fixed-offset zone (fixed intervals,
//!   and `second` ... `week` in UTC or `+02:00`) become a millisecond
//!   `histogram` whose `offset` puts bucket starts on local boundaries.
//! - Months, quarters, years, and anything in a zone with daylight saving,
//!   become a `range` aggregation with one range per calendar bucket
//!   between the data's bounds (found by a min/max pass over the query,
//!   [`bound_fields`]), widened by `extended_bounds` and cut by
//!   `hard_bounds`.
//!
//! `missing` is computed by `missing_bucket` (one more filter aggregation).
//! Either way [`DateHistogram::reshape`] gives Elasticsearch's buckets:
//! `key` (epoch ms of the bucket start), `key_as_string` in the zone and
//! `format`, `doc_count`, keyed by `key_as_string` when `keyed`.
//!
//! An `auto_date_histogram` becomes one of these too (`auto_date`),
//! computed as ranges: each bucket a run of `group` rounding units from
//! its first bucket's start, and its `interval` shown beside the buckets.

use serde_json::{json, Map, Value};

use super::agg_tree::{AggNode, TypedParams};
use super::bucket_limit::{self, max_buckets, CANDIDATES_PER_BUCKET};
use super::calendar::{CalendarUnit, Rounding};
use super::missing_bucket::MissingBucket;
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::{FieldType, Mappings};
use crate::store::KEYWORDS;

mod parse;

/// A parsed `date_histogram`.
#[derive(Debug, Clone)]
pub struct DateHistogram {
    /// The date field.
    pub field: String,
    /// Bucket boundaries.
    pub rounding: Rounding,
    min_doc_count: u64,
    extended: (Option<i64>, Option<i64>),
    hard: (Option<i64>, Option<i64>),
    keyed: bool,
    format: DateFormat,
    /// Computed as ranges (needs the data's bounds).
    pub by_ranges: bool,
    /// `missing`: the date documents without the field count at.
    pub missing: Option<i64>,
    /// Rounding units per bucket: 1, or an `auto_date_histogram`'s inner
    /// interval (its buckets are runs of this many units from `anchor`).
    pub(crate) group: i64,
    /// The first bucket's start when `group` is above 1.
    pub(crate) anchor: i64,
    /// An `auto_date_histogram`'s `interval` (`7d`), shown beside its
    /// buckets.
    pub(crate) interval: Option<String>,
}

impl DateHistogram {
    /// An `auto_date_histogram`'s histogram (`auto_date`): buckets of
    /// `group.0` units of `rounding` from `group.1` (the first bucket's
    /// start), every one between the data's bounds shown, computed as
    /// ranges; `interval` is shown beside them.
    pub(crate) fn auto(
        field: &str,
        rounding: Rounding,
        format: DateFormat,
        missing: Option<i64>,
        group: (i64, i64),
        interval: String,
    ) -> DateHistogram {
        DateHistogram {
            field: field.to_string(),
            rounding,
            min_doc_count: 0,
            extended: (None, None),
            hard: (None, None),
            keyed: false,
            format,
            by_ranges: true,
            missing,
            group: group.0.max(1),
            anchor: group.1,
            interval: Some(interval),
        }
    }

    /// The tantivy request; `data` is the field's (min, max) under the
    /// query, needed when `by_ranges`.
    pub fn tantivy_request(&self, data: Option<(i64, i64)>) -> Result<Value> {
        let field = format!("{KEYWORDS}.{}", self.field);
        if !self.by_ranges {
            let r = &self.rounding;
            let interval = r
                .unit
                .and_then(CalendarUnit::fixed_millis)
                .unwrap_or(r.fixed);
            let week_base = if r.unit == Some(CalendarUnit::Week) {
                4 * 86_400_000
            } else {
                0
            };
            // Zone-free intervals (see `parse`) start on UTC multiples.
            let shift = if r.tz.is_fixed() {
                r.tz.offset_millis(0)
            } else {
                0
            };
            let offset = (week_base - shift + r.offset).rem_euclid(interval);
            let mut h = json!({"field": field, "interval": interval as f64,
                               "min_doc_count": self.min_doc_count});
            if offset != 0 {
                h["offset"] = json!(offset as f64);
            }
            // Elasticsearch fills `extended_bounds` only with empty buckets
            // shown (`min_doc_count: 0`); tantivy refuses the two together.
            let extended = if self.min_doc_count == 0 {
                self.extended
            } else {
                (None, None)
            };
            for (name, (lo, hi)) in [("extended_bounds", extended), ("hard_bounds", self.hard)] {
                if lo.is_some() || hi.is_some() {
                    let lo = lo.map_or(f64::MIN, |v| v as f64);
                    let hi = hi.map_or(f64::MAX, |v| v as f64);
                    h[name] = json!({"min": lo, "max": hi});
                }
            }
            return Ok(json!({ "histogram": h }));
        }
        let mut ranges: Vec<Value> = self
            .starts(data)?
            .into_iter()
            .map(
                |(from, to)| json!({"key": from.to_string(), "from": from as f64, "to": to as f64}),
            )
            .collect();
        if ranges.is_empty() {
            // No data and no extended bounds: no bucket. tantivy's range
            // aggregation needs a range (it indexes the first one), so
            // give it one that `reshape` drops, its key being no start.
            ranges.push(json!({"key": "none", "from": 0.0, "to": 1.0}));
        }
        Ok(json!({"range": {"field": field, "ranges": ranges, "keyed": false}}))
    }

    /// The (start, end) of every bucket to compute, in order.
    fn starts(&self, data: Option<(i64, i64)>) -> Result<Vec<(i64, i64)>> {
        let mut lo = data.map(|d| d.0);
        let mut hi = data.map(|d| d.1);
        if self.min_doc_count == 0 {
            if let Some(e) = self.extended.0 {
                lo = Some(lo.map_or(e, |l| l.min(e)));
            }
            if let Some(e) = self.extended.1 {
                hi = Some(hi.map_or(e, |h| h.max(e)));
            }
        }
        lo = lo.map(|l| self.hard.0.map_or(l, |h| l.max(h)));
        hi = hi.map(|x| self.hard.1.map_or(x, |h| x.min(h)));
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Ok(Vec::new());
        };
        // Every range is returned with `min_doc_count: 0`, so the limit is
        // on them; otherwise only those with documents are, and the empty
        // ones are bounded for memory only (`CANDIDATES_PER_BUCKET`).
        let cap = if self.min_doc_count == 0 {
            max_buckets()
        } else {
            bucket_limit::max_created()
        };
        let mut out = Vec::new();
        let mut start = self.rounding.round_down(lo);
        while start <= hi {
            let end = self.bucket_end(start);
            out.push((start, end));
            if out.len() > cap {
                return Err(if self.min_doc_count == 0 {
                    bucket_limit::too_many(None)
                } else {
                    SearchError::illegal(format!(
                        "Trying to create too many buckets: [date_histogram] on [{}] would examine more than [{cap}] calendar buckets ({CANDIDATES_PER_BUCKET} times [{}]) between the first and last matching dates; narrow the query's time range or widen the interval",
                        self.field,
                        bucket_limit::SETTING
                    ))
                });
            }
            start = end;
        }
        Ok(out)
    }

    /// The bucket `missing` falls in, as a [`MissingBucket`], with the
    /// request widened (`extended_bounds`, when `min_doc_count` is 0) so
    /// the buckets up to it are computed; `None` without `missing` or
    /// when `hard_bounds` leave it out.
    pub fn missing_bucket(&mut self) -> Option<MissingBucket> {
        let value = self.missing?;
        let outside =
            self.hard.0.is_some_and(|lo| value < lo) || self.hard.1.is_some_and(|hi| value > hi);
        if outside {
            return None;
        }
        let start = self.bucket_of(value);
        let asked = (
            self.extended
                .0
                .map(|lo| self.rounding.round_down(lo) as f64),
            self.extended
                .1
                .map(|hi| self.rounding.round_down(hi) as f64),
        );
        let widened = self.min_doc_count == 0;
        if widened {
            self.extended = (
                Some(self.extended.0.map_or(value, |lo| lo.min(value))),
                Some(self.extended.1.map_or(value, |hi| hi.max(value))),
            );
        }
        Some(MissingBucket {
            start: start as f64,
            end: self.bucket_end(start) as f64,
            min_doc_count: self.min_doc_count,
            widened,
            asked,
        })
    }

    /// A bucket key as `key_as_string` shows it.
    pub fn key_as_string(&self, key: i64) -> String {
        let tz = self.rounding.tz;
        self.format
            .format_in(key, tz.offset_millis(key), &tz.offset_suffix(key))
    }

    /// The end (exclusive) of the bucket starting at `key`.
    pub fn bucket_end(&self, key: i64) -> i64 {
        (0..self.group.max(1)).fold(key, |start, _| self.rounding.next(start))
    }

    /// The start of the bucket holding `value`: its rounding's, or with
    /// `group` above 1 the run (from `anchor`) holding it; a value before
    /// the anchor, or more runs on than buckets may be created, stays in
    /// its own unit's bucket (translation puts the anchor at or before
    /// every value it asks about).
    fn bucket_of(&self, value: i64) -> i64 {
        let unit = self.rounding.round_down(value);
        if self.group <= 1 || value < self.anchor {
            return unit;
        }
        let mut start = self.anchor;
        for _ in 0..bucket_limit::max_created() {
            let end = self.bucket_end(start);
            if end > value {
                return start;
            }
            start = end;
        }
        unit
    }

    /// Rewrites tantivy's buckets into Elasticsearch's (sub-aggregations
    /// are left for the caller).
    pub fn reshape(&self, agg: &mut Value) {
        let buckets = match agg.get_mut("buckets").map(Value::take) {
            Some(Value::Array(b)) => b,
            Some(Value::Object(m)) => m.into_iter().map(|(_, v)| v).collect(),
            _ => Vec::new(),
        };
        let mut out = Vec::with_capacity(buckets.len());
        for mut bucket in buckets {
            let key = match bucket.get("key") {
                Some(Value::String(s)) => match s.parse::<i64>() {
                    Ok(k) => k,
                    Err(_) => continue, // a range tantivy added to fill a gap
                },
                Some(k) => k.as_f64().map_or(0, |f| f as i64),
                None => continue,
            };
            let count = bucket.get("doc_count").and_then(Value::as_u64).unwrap_or(0);
            if self.by_ranges && count < self.min_doc_count {
                continue;
            }
            if let Some(obj) = bucket.as_object_mut() {
                for k in ["from", "to", "from_as_string", "to_as_string"] {
                    obj.remove(k);
                }
            }
            bucket["key_as_string"] = json!(self.key_as_string(key));
            bucket["key"] = json!(key);
            out.push(bucket);
        }
        let interval = self.interval.clone();
        agg["buckets"] = if self.keyed {
            let mut keyed = Map::new();
            for b in out {
                let k = b["key_as_string"].as_str().unwrap_or_default().to_string();
                keyed.insert(k, b);
            }
            Value::Object(keyed)
        } else {
            Value::Array(out)
        };
        if let Some(interval) = interval {
            agg["interval"] = json!(interval);
        }
    }
}

/// The date fields whose `date_histogram`s (at any depth of `aggs`) and
/// `auto_date_histogram`s need the data's bounds.
pub fn bound_fields(aggs: &[AggNode], mappings: &Mappings, now: i64, out: &mut Vec<String>) {
    auto_bound_fields(aggs, mappings, out);
    date_bound_fields(aggs, mappings, now, out);
}

/// The fields of the top-level `auto_date_histogram`s of `aggs` (one
/// below a bucket runs per bucket, with bounds of its own).
fn auto_bound_fields(aggs: &[AggNode], mappings: &Mappings, out: &mut Vec<String>) {
    for node in aggs {
        if let TypedParams::AutoDateHistogram(params) = &node.typed {
            // Always, on a date field: its rounding is chosen from the
            // bounds (another type is refused by translation, an unmapped
            // field has no bounds).
            let date = mappings
                .leaf(&params.field)
                .is_some_and(|l| l.ty == FieldType::Date);
            if date && !out.iter().any(|f| f == &params.field) {
                out.push(params.field.clone());
            }
        }
    }
}

/// The fields of `date_histogram`s at any depth of `aggs` computed as
/// ranges.
fn date_bound_fields(aggs: &[AggNode], mappings: &Mappings, now: i64, out: &mut Vec<String>) {
    for node in aggs {
        if let TypedParams::DateHistogram(params) = &node.typed {
            // One whose dates do not resolve fails translation instead.
            let resolved = DateHistogram::resolve(params, mappings, now);
            let field = &params.field;
            if resolved.is_ok_and(|h| h.by_ranges) && !out.iter().any(|f| f == field) {
                out.push(field.clone());
            }
        }
        date_bound_fields(&node.subs, mappings, now, out);
    }
}
