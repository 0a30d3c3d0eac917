//! `date_range`: ranges of a date field whose ends are dates or date math
//! (`now-1d/d`, `2024-01-01||+1M`) in `format` and `time_zone`. The
//! parameters were typed with the request ([`RangeParams`], the ends as
//! written); [`DateRange::parse`] converts the ends, which needs the
//! field's format and the search's "now".
//!
//! tantivy's `range` refuses overlapping ranges, which Elasticsearch
//! allows, so each range is its own one-range tantivy aggregation named
//! `<name>\u{1f}<i>`; [`DateRange::reshape`] gathers them back into
//! Elasticsearch's buckets (`key`, `from`/`to` as epoch ms doubles with
//! `*_as_string`, `doc_count`), sorted by `from` then `to`, keyed when
//! `keyed`.

use serde_json::{json, Map, Value};

use super::agg_filters::KEY_SEPARATOR;
use super::agg_tree::{RangeEdge, RangeParams};
use super::time_zone::TimeZone;
use crate::error::{Result, SearchError};
use crate::mapping::date::{DateFormat, DEFAULT_DATE_FORMAT};
use crate::mapping::{FieldType, Mappings};
use crate::query::date_math;
use crate::store::KEYWORDS;

/// One requested range.
#[derive(Debug, Clone)]
struct Range {
    key: Option<String>,
    from: Option<i64>,
    to: Option<i64>,
}

/// A parsed `date_range`.
#[derive(Debug, Clone)]
pub struct DateRange {
    /// The date field.
    pub field: String,
    ranges: Vec<Range>,
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
            ranges.push(Range {
                key: r.key.clone(),
                from: edge(&r.from)?,
                to: edge(&r.to)?,
            });
        }
        ranges.sort_by_key(|r| (r.from.unwrap_or(i64::MIN), r.to.unwrap_or(i64::MAX)));
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
        self.ranges
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut range = json!({"key": "r"});
                if let Some(f) = r.from {
                    range["from"] = json!(f as f64);
                }
                if let Some(t) = r.to {
                    range["to"] = json!(t as f64);
                }
                let field = format!("{KEYWORDS}.{}", self.field);
                (
                    format!("{name}{KEY_SEPARATOR}{i}"),
                    json!({"range": {"field": field, "ranges": [range]}}),
                )
            })
            .collect()
    }

    fn text(&self, ms: i64) -> String {
        self.format
            .format_in(ms, self.tz.offset_millis(ms), &self.tz.offset_suffix(ms))
    }

    /// Gathers the per-range results of `name` in `result` into
    /// Elasticsearch's buckets; `each` fixes every bucket's sub-aggregations.
    pub fn reshape(
        &self,
        result: &mut Value,
        name: &str,
        mut each: impl FnMut(&mut Value) -> Result<()>,
    ) -> Result<()> {
        let Some(obj) = result.as_object_mut() else {
            return Ok(());
        };
        let mut buckets = Vec::with_capacity(self.ranges.len());
        for (i, r) in self.ranges.iter().enumerate() {
            let part = obj.remove(&format!("{name}{KEY_SEPARATOR}{i}"));
            let found = part
                .as_ref()
                .and_then(|p| p.get("buckets"))
                .and_then(Value::as_array)
                .and_then(|b| b.iter().find(|b| b["key"] == "r").cloned());
            let mut bucket = found.unwrap_or_else(|| json!({"doc_count": 0}));
            if let Some(b) = bucket.as_object_mut() {
                for k in ["key", "from", "to", "from_as_string", "to_as_string"] {
                    b.remove(k);
                }
            }
            let from_text = r.from.map(|f| self.text(f));
            let to_text = r.to.map(|t| self.text(t));
            let key = r.key.clone().unwrap_or_else(|| {
                format!(
                    "{}-{}",
                    from_text.as_deref().unwrap_or("*"),
                    to_text.as_deref().unwrap_or("*")
                )
            });
            bucket["key"] = json!(key);
            if let (Some(f), Some(text)) = (r.from, from_text) {
                bucket["from"] = json!(f as f64);
                bucket["from_as_string"] = json!(text);
            }
            if let (Some(t), Some(text)) = (r.to, to_text) {
                bucket["to"] = json!(t as f64);
                bucket["to_as_string"] = json!(text);
            }
            each(&mut bucket)?;
            buckets.push(bucket);
        }
        let buckets = if self.keyed {
            let mut keyed = Map::new();
            for b in buckets {
                let k = b["key"].as_str().unwrap_or_default().to_string();
                keyed.insert(k, b);
            }
            Value::Object(keyed)
        } else {
            Value::Array(buckets)
        };
        obj.insert(name.to_string(), json!({ "buckets": buckets }));
        Ok(())
    }
}
