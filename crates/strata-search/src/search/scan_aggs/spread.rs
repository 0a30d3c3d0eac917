//! `boxplot` and `median_absolute_deviation` of a numeric field, at any
//! depth: the matching documents' values (every value of a multi-valued
//! field; `missing` for a document without one) go to the digest
//! `percentiles` uses ([`SpanDigest`], read by `field_values.rs`), and
//! are read as Elasticsearch 8.15 reads its t-digest for these two
//! (`percentiles/spread.rs`: exact up to 2,000 values). Below the buckets
//! of a `terms`, `histogram`, `date_histogram` or `range` they are filled
//! for every bucket in one scan, with the percentiles (`bucket_digests`).
//!
//! Elasticsearch registers both for numeric fields only: keyword, ip,
//! date and boolean fields are refused in its words (`Field [f] of type
//! [date] is not supported for aggregation [boxplot]`); an unmapped
//! field has no values (only `missing` counts).
//!
//! Replies are Elasticsearch 8's: a boxplot's `min`, `max`, `q1`, `q2`,
//! `q3`, `lower`, `upper` as Jackson writes doubles (an empty one's
//! `"Infinity"`, `"-Infinity"` and `"NaN"`), then with a `format` each
//! `*_as_string`; a median absolute deviation's `value` (`null` when no
//! document had a value) and with a `format` its `value_as_string`.
//!
//! Memory: the digest's bytes are reserved on the search's account.

use serde_json::{json, Map, Value};

use super::env::ScanEnv;
use super::field_values::FieldMetric;
use super::values::ValueKind;
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::agg_tree::{MissingValue, SpreadKind, SpreadParams};
use crate::search::java_double::java_number;
use crate::search::percentiles::{median_absolute_deviation, BoxplotStats, SpanDigest};

/// A parsed `boxplot` or `median_absolute_deviation` over the mapping.
pub(crate) struct Spread {
    kind: SpreadKind,
    metric: FieldMetric,
}

impl Spread {
    /// The aggregation `name` with `params`, over the field's type in
    /// `mappings`.
    pub(crate) fn new(name: &str, params: &SpreadParams, mappings: &Mappings) -> Result<Spread> {
        let agg = params.kind.name();
        let field = &params.field;
        if let Some(ValueKind::Date | ValueKind::Bool) = ValueKind::of(mappings, field, agg)? {
            let ty = mappings.leaf(field).map_or("date", |l| l.ty.name());
            return Err(SearchError::illegal(format!(
                "Field [{field}] of type [{ty}] is not supported for aggregation [{agg}]"
            )));
        }
        let missing = params.missing.map(MissingValue::Number);
        let metric = FieldMetric::new(
            agg,
            name,
            field,
            mappings,
            params.format.as_deref(),
            missing.as_ref(),
        )?;
        Ok(Spread {
            kind: params.kind,
            metric,
        })
    }

    pub(crate) fn run(self, env: &ScanEnv<'_>, name: &str) -> Result<Value> {
        let digest = self.metric.scan(env, name)?;
        Ok(self.render(&digest))
    }

    /// The field this reads.
    pub(crate) fn metric(&self) -> &FieldMetric {
        &self.metric
    }

    /// The reply of `digest`'s values.
    pub(crate) fn render(&self, digest: &SpanDigest) -> Value {
        match self.kind {
            SpreadKind::Boxplot => self.boxplot(&BoxplotStats::of(digest)),
            SpreadKind::MedianAbsoluteDeviation => self.mad(median_absolute_deviation(digest)),
        }
    }

    fn boxplot(&self, stats: &BoxplotStats) -> Value {
        let named = stats.named();
        let mut out = Map::new();
        for (key, v) in named {
            out.insert(key.into(), java_number(v));
        }
        for (key, v) in named {
            if let Some(text) = self.metric.text(v) {
                out.insert(format!("{key}_as_string"), json!(text));
            }
        }
        Value::Object(out)
    }

    fn mad(&self, value: Option<f64>) -> Value {
        let mut out = Map::new();
        out.insert("value".into(), value.map_or(Value::Null, java_number));
        if let Some(text) = value.and_then(|v| self.metric.text(v)) {
            out.insert("value_as_string".into(), json!(text));
        }
        Value::Object(out)
    }
}
