//! `date_range`: ranges of a date field whose ends are dates or date math
//! (`now-1d/d`, `2024-01-01||+1M`) in `format` and `time_zone`. The
//! parameters were typed with the request ([`RangeParams`], the ends as
//! written); [`DateRange::parse`] converts the ends, which needs the
//! field's format and the search's "now".
//!
//! Each range is its own one-range tantivy aggregation and
//! [`DateRange::reshape`] gathers them back (`range_buckets`, shared with
//! the numeric `range`), writing Elasticsearch's buckets: `key`,
//! `from`/`to` as epoch ms doubles with `*_as_string`, `doc_count`.

use serde_json::{json, Value};

use super::agg_tree::{RangeEdge, RangeParams};
use super::range_buckets::{self, default_key, Bounds};
use super::time_zone::TimeZone;
use crate::error::{Result, SearchError};
use crate::mapping::date::{DateFormat, DEFAULT_DATE_FORMAT};
use crate::mapping::{FieldType, Mappings};
use crate::query::date_math;
use crate::store::KEYWORDS;

/// A parsed `date_range`.
#[derive(Debug, Clone)]
pub struct DateRange {
    /// The date field.
    pub field: String,
    /// The ranges, their ends whole epoch milliseconds, sorted
    /// (`range_buckets::sort`).
    ranges: Vec<Bounds>,
    format: DateFormat,
    tz: TimeZone,
    keyed: bool,
}

impl DateRange {
    /// The `date_range` (or `range` on a date field) `name` of parameters
    /// `params` (typed by the tree's parse): its ends converted in the
    /// field's format, or `format`, and `time_zone`.
    pub fn parse(
        name: &str,
        params: &RangeParams,
        mappings: &Mappings,
        now: i64,
    ) -> Result<DateRange> {
        let field = params.field.as_str();
        // `range` takes these; on a date field they are refused, in
        // `date_range`'s words.
        for (k, written) in [
            ("missing", params.missing.is_some()),
            ("value_type", params.value_type.is_some()),
        ] {
            if written {
                return Err(SearchError::parsing(format!(
                    "[date_range] unknown field [{k}] in [{name}]"
                )));
            }
        }
        let format = match &params.format {
            Some(f) => DateFormat::parse(f)?,
            None => mappings
                .leaf(field)
                .filter(|l| l.ty == FieldType::Date)
                .map(|l| l.date_format())
                .unwrap_or(DateFormat::parse(DEFAULT_DATE_FORMAT)?),
        };
        let tz = params.time_zone.unwrap_or(TimeZone::UTC);
        let edge = |e: &Option<RangeEdge>| -> Result<Option<i64>> {
            match e {
                None => Ok(None),
                Some(RangeEdge::Number(n)) => Ok(Some(*n as i64)),
                Some(RangeEdge::Text(s)) => date_math::eval(s, now, tz, &format, false).map(Some),
            }
        };
        let mut ranges = Vec::with_capacity(params.ranges.len());
        for r in &params.ranges {
            ranges.push(Bounds {
                key: r.key.clone(),
                from: edge(&r.from)?.map(|ms| ms as f64),
                to: edge(&r.to)?.map(|ms| ms as f64),
                or_missing: false,
            });
        }
        range_buckets::sort(&mut ranges);
        Ok(DateRange {
            field: field.to_string(),
            ranges,
            format,
            tz,
            keyed: params.keyed(),
        })
    }

    /// One tantivy `range` aggregation per range: (name, request).
    pub fn tantivy_requests(&self, name: &str) -> Vec<(String, Value)> {
        let column = format!("{KEYWORDS}.{}", self.field);
        range_buckets::tantivy_requests(name, &column, &self.ranges)
    }

    fn text(&self, ms: i64) -> String {
        self.format
            .format_in(ms, self.tz.offset_millis(ms), &self.tz.offset_suffix(ms))
    }

    /// Writes `r`'s `key`, `from`/`to` and their strings into `bucket`.
    fn write(&self, r: &Bounds, bucket: &mut Value) {
        // The ends are whole milliseconds (`parse`).
        let from = r.from.map(|f| (f, self.text(f as i64)));
        let to = r.to.map(|t| (t, self.text(t as i64)));
        let key = r.key.clone().unwrap_or_else(|| {
            default_key(
                from.as_ref().map(|(_, s)| s.as_str()),
                to.as_ref().map(|(_, s)| s.as_str()),
            )
        });
        bucket["key"] = json!(key);
        for (k, end) in [("from", from), ("to", to)] {
            if let Some((ms, text)) = end {
                bucket[k] = json!(ms);
                bucket[format!("{k}_as_string")] = json!(text);
            }
        }
    }

    /// Gathers the per-range results of `name` in `result` into
    /// Elasticsearch's buckets; `each` fixes every bucket's sub-aggregations.
    pub fn reshape(
        &self,
        result: &mut Value,
        name: &str,
        each: impl FnMut(&mut Value) -> Result<()>,
    ) -> Result<()> {
        range_buckets::gather(
            result,
            name,
            &self.ranges,
            self.keyed,
            |r, b| self.write(r, b),
            each,
        )
    }
}
