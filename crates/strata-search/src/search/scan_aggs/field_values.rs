//! A scanned metric on one field's values (`percentiles`,
//! `percentile_ranks`): the request's `format` and `missing` read against
//! the field's mapping ([`FieldMetric`]), and the scan of the matching
//! documents' values into a [`SpanDigest`], whose offsets from its first
//! values' smallest keep the error a share of the data's span, not of the
//! values' distance from zero (the epoch, for a date).
//!
//! Numbers are read as doubles, dates as epoch milliseconds, booleans as
//! 0 and 1 (each value then also written `true` or `false`, as
//! Elasticsearch's boolean format writes any value but 0 `true`); keyword
//! and ip fields are refused in Elasticsearch's words.
//! An unmapped field has no values (only `missing` counts).

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::Mappings;
use crate::query::date_math;
use crate::search::agg_tree::MissingValue;
use crate::search::decimal_format::DecimalFormat;
use crate::search::index_query::now_millis;
use crate::search::percentiles::SpanDigest;
use crate::search::time_zone::TimeZone;

/// How a value is also written (`_as_string`), as Elasticsearch 8 picks
/// a values source's format.
#[derive(Debug, Clone)]
enum Written {
    /// A date field: the aggregation's `format`, else the field's.
    Date(DateFormat),
    /// A number with the aggregation's `format`.
    Decimal(DecimalFormat),
    /// A boolean field (its `format` is always Elasticsearch's boolean
    /// one): a value other than 0 is `true`.
    Bool,
    /// A number without one: no strings.
    Raw,
}

/// A metric's reading of one field.
#[derive(Debug, Clone)]
pub(crate) struct FieldMetric {
    field: String,
    /// `None`: the field is unmapped.
    kind: Option<ValueKind>,
    written: Written,
    /// `missing`, as a number (a date's in epoch milliseconds).
    missing: Option<f64>,
}

impl FieldMetric {
    /// The `field` of the aggregation `name` of type `agg` (whose
    /// parameters gave `format` and `missing`: on a date field a number is
    /// epoch milliseconds, text a date in the format or date math from
    /// now; elsewhere a number).
    pub(crate) fn new(
        agg: &str,
        name: &str,
        field: &str,
        mappings: &Mappings,
        format: Option<&str>,
        missing: Option<&MissingValue>,
    ) -> Result<FieldMetric> {
        let kind = ValueKind::of(mappings, field, agg)?;
        let leaf = mappings.leaf(field);
        let (written, missing) = match (kind, leaf) {
            (Some(ValueKind::Str), _) => {
                let ty = leaf.map_or("keyword", |l| l.ty.name());
                return Err(SearchError::illegal(format!(
                    "Field [{field}] of type [{ty}] is not supported for aggregation [{agg}]"
                )));
            }
            (Some(ValueKind::Date), Some(leaf)) => {
                let format = match format {
                    Some(text) => DateFormat::from_request(text)?,
                    None => leaf.date_format(),
                };
                let missing = match missing {
                    None => None,
                    Some(MissingValue::Number(ms)) => Some(*ms),
                    Some(MissingValue::Date(text)) => {
                        let ms =
                            date_math::eval(text, now_millis(), TimeZone::UTC, &format, false)?;
                        Some(ms as f64)
                    }
                };
                (Written::Date(format), missing)
            }
            (Some(ValueKind::Bool), _) => {
                let missing = missing.map(|m| m.number(agg, name)).transpose()?;
                (Written::Bool, missing)
            }
            _ => {
                let written = match format {
                    Some(pattern) => Written::Decimal(DecimalFormat::parse(pattern)?),
                    None => Written::Raw,
                };
                let missing = missing.map(|m| m.number(agg, name)).transpose()?;
                (written, missing)
            }
        };
        Ok(FieldMetric {
            field: field.to_string(),
            kind,
            written,
            missing,
        })
    }

    /// `value` written in the format (`_as_string`), if the reply has
    /// strings: a date's whole milliseconds (truncated, as Elasticsearch
    /// casts the double) in UTC; a number in its `format`.
    pub(crate) fn text(&self, value: f64) -> Option<String> {
        match &self.written {
            Written::Date(format) => Some(format.format_in(value as i64, 0, "Z")),
            Written::Decimal(format) => Some(format.format(value)),
            Written::Bool => Some((value != 0.0).to_string()),
            Written::Raw => None,
        }
    }

    /// Whether the reply has strings ([`FieldMetric::text`] gives some).
    pub(crate) fn writes_text(&self) -> bool {
        !matches!(self.written, Written::Raw)
    }

    /// The field read, with the kind its columns are read as (an
    /// unmapped field reads as absent, whatever the kind).
    pub(crate) fn column(&self) -> (String, ValueKind) {
        (self.field.clone(), self.kind.unwrap_or(ValueKind::Double))
    }

    /// Whether no document can give a value (an unmapped field without
    /// `missing`): no scan is needed.
    pub(crate) fn reads_nothing(&self) -> bool {
        self.kind.is_none() && self.missing.is_none()
    }

    /// Adds one document's `values` of the field (`missing` when it has
    /// none) to `digest`.
    #[inline]
    pub(crate) fn add(&self, values: &[Key], digest: &mut SpanDigest) {
        if values.is_empty() {
            if let Some(m) = self.missing {
                digest.add(m);
            }
            return;
        }
        values
            .iter()
            .filter_map(Key::num)
            .for_each(|v| digest.add(v));
    }

    /// [`FieldMetric::add`] for values read as numbers.
    #[inline]
    pub(crate) fn add_nums(&self, values: &[f64], digest: &mut SpanDigest) {
        if values.is_empty() {
            if let Some(m) = self.missing {
                digest.add(m);
            }
            return;
        }
        values.iter().for_each(|&v| digest.add(v));
    }

    /// Whether its values read as numbers from a numeric column (a
    /// number or date field, or an unmapped one); a boolean's do not.
    pub(crate) fn reads_numbers(&self) -> bool {
        matches!(
            self.kind,
            None | Some(ValueKind::Long | ValueKind::Double | ValueKind::Date)
        )
    }

    /// The values of the documents matching `env`'s query (`missing` for
    /// each without one), for the aggregation `name`; what the digest
    /// holds is reserved on the search's memory account.
    pub(crate) fn scan(&self, env: &ScanEnv<'_>, name: &str) -> Result<SpanDigest> {
        if self.reads_nothing() {
            return Ok(SpanDigest::default());
        }
        let scan = DigestScan {
            metric: self.clone(),
        };
        let digest = env.scan(env.query, scan)?;
        env.req
            .memory
            .reserve(digest.held_bytes(), &format!("<agg [{name}]>"))?;
        Ok(digest)
    }
}

/// The scan: a field's values (or `missing`) into a [`SpanDigest`] (each
/// part's offsets from its own first values' smallest).
struct DigestScan {
    metric: FieldMetric,
}

impl Scan for DigestScan {
    type Acc = SpanDigest;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        vec![self.metric.column()]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut SpanDigest) {
        self.metric.add(&values[0], acc);
    }

    fn merge(&self, into: &mut SpanDigest, part: SpanDigest) {
        into.merge(part);
    }
}
