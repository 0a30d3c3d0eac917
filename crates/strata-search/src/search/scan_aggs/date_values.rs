//! A scanned metric on a date field (`percentiles`, `percentile_ranks`):
//! the request's `format` and `missing` read against the field's mapping
//! ([`DateMetric`]), and the scan of the field's values (epoch
//! milliseconds) into a [`SpanDigest`] whose base is the smallest date
//! the field's columns hold, so the digest's error is a share of the
//! data's span, not of the epoch.

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::Result;
use crate::mapping::date::DateFormat;
use crate::mapping::FieldMapping;
use crate::query::date_math;
use crate::search::agg_tree::MissingValue;
use crate::search::index_query::now_millis;
use crate::search::percentiles::SpanDigest;
use crate::search::time_zone::TimeZone;

/// A metric's reading of a date field, as Elasticsearch 8 resolves a
/// values source's format and `missing`.
#[derive(Debug, Clone)]
pub(crate) struct DateMetric {
    field: String,
    /// How values are written: the aggregation's `format`, else the
    /// field's (whose first pattern writes).
    format: DateFormat,
    /// `missing`, in epoch milliseconds.
    missing: Option<f64>,
}

impl DateMetric {
    /// The date `field` (mapped as `leaf`) read with the request's
    /// `format` and `missing` (a number is epoch milliseconds; text is a
    /// date in the format, or date math from now).
    pub(crate) fn new(
        field: &str,
        leaf: &FieldMapping,
        format: Option<&str>,
        missing: Option<&MissingValue>,
    ) -> Result<DateMetric> {
        let format = match format {
            Some(text) => DateFormat::from_request(text)?,
            None => leaf.date_format(),
        };
        let missing = match missing {
            None => None,
            Some(MissingValue::Number(ms)) => Some(*ms),
            Some(MissingValue::Date(text)) => {
                let ms = date_math::eval(text, now_millis(), TimeZone::UTC, &format, false)?;
                Some(ms as f64)
            }
        };
        Ok(DateMetric {
            field: field.to_string(),
            format,
            missing,
        })
    }

    /// `value` written as a date (`_as_string`): its whole milliseconds
    /// (truncated, as Elasticsearch casts the double) in the format, UTC.
    pub(crate) fn text(&self, value: f64) -> String {
        self.format.format_in(value as i64, 0, "Z")
    }

    /// The values of the documents matching `env`'s query (`missing` for
    /// each without one), for the aggregation `name`; what the digest
    /// holds is reserved on the search's memory account.
    pub(crate) fn scan(&self, env: &ScanEnv<'_>, name: &str) -> Result<SpanDigest> {
        let smallest = env.column_min(&self.field);
        let base = match (smallest, self.missing) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(0.0),
        };
        let scan = DateScan {
            field: self.field.clone(),
            missing: self.missing,
            base,
        };
        let digest = env.scan(env.query, scan)?;
        env.req
            .memory
            .reserve(digest.held_bytes(), &format!("<agg [{name}]>"))?;
        Ok(digest)
    }
}

/// The scan: a date field's values (or `missing`) into a [`SpanDigest`]
/// of offsets from `base`.
struct DateScan {
    field: String,
    missing: Option<f64>,
    base: f64,
}

impl Scan for DateScan {
    type Acc = SpanDigest;

    fn start(&self) -> SpanDigest {
        SpanDigest::new(self.base)
    }

    fn fields(&self) -> Vec<(String, ValueKind)> {
        vec![(self.field.clone(), ValueKind::Date)]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut SpanDigest) {
        if values[0].is_empty() {
            if let Some(m) = self.missing {
                acc.add(m);
            }
            return;
        }
        values[0]
            .iter()
            .filter_map(Key::num)
            .for_each(|v| acc.add(v));
    }

    fn merge(&self, into: &mut SpanDigest, part: SpanDigest) {
        into.merge(part);
    }
}
