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
//! `missing` is a date read as the ends are (`format`, `time_zone`, date
//! math): documents without the field count in each range holding it.

use serde_json::{json, Value};

use super::agg_tree::{RangeEdge, RangeParams};
use super::range_buckets::{self, default_key, Bounds, FieldRanges};
use super::time_zone::TimeZone;
use crate::error::{Result, SearchError};
use crate::mapping::date::{DateFormat, DEFAULT_DATE_FORMAT};
use crate::mapping::{FieldType, Mappings};
use crate::query::date_math;

/// A parsed `date_range`.
#[derive(Debug, Clone)]
pub struct DateRange {
    /// The date field's ranges, their ends and `missing` whole epoch
    /// milliseconds.
    pub ranges: FieldRanges,
    format: DateFormat,
    tz: TimeZone,
    keyed: bool,
}

impl DateRange {
    /// The `date_range` (or `range` on a date field) `name` of parameters
    /// `params` (typed by the tree's parse): its ends converted in the
    /// field's format, or `format`, and `time_zone`; so is `missing`.
    pub fn parse(
        name: &str,
        params: &RangeParams,
        mappings: &Mappings,
        now: i64,
    ) -> Result<DateRange> {
        let field = params.field.as_str();
        // `range` takes it; on a date field it is refused, in
        // `date_range`'s words.
        if params.value_type.is_some() {
            return Err(SearchError::parsing(format!(
                "[date_range] unknown field [value_type] in [{name}]"
            )));
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
        // Elasticsearch parses `missing` as its text in the format (a
        // number too: `epoch_millis` in the default format takes it).
        let missing = match &params.missing {
            None => None,
            Some(Value::String(s)) => Some(date_math::eval(s, now, tz, &format, false)?),
            Some(Value::Number(n)) => {
                Some(date_math::eval(&n.to_string(), now, tz, &format, false)?)
            }
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[date_range] [missing] [{other}] of [{name}] is not a date"
                )))
            }
        }
        .map(|ms| ms as f64);
        let mut ranges = Vec::with_capacity(params.ranges.len());
        for r in &params.ranges {
            ranges.push(Bounds {
                key: r.key.clone(),
                from: edge(&r.from)?.map(|ms| ms as f64),
                to: edge(&r.to)?.map(|ms| ms as f64),
                or_missing: false,
            });
        }
        Ok(DateRange {
            ranges: FieldRanges::new(field, true, ranges, missing),
            format,
            tz,
            keyed: params.keyed(),
        })
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
            &self.ranges.ranges,
            self.keyed,
            |r, b| self.write(r, b),
            each,
        )
    }
}
