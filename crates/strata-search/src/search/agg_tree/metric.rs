//! [`MetricParams`]: the parameters of the numeric metrics computed by
//! tantivy (`min`, `max`, `avg`, `sum`, `value_count`, `stats`,
//! `extended_stats`), typed when the request is parsed, and tantivy's
//! request built from them. Unknown and malformed parameters are the
//! parse's errors; `value_type` is accepted and changes nothing; `format`
//! is kept for a date field's `min` and `max` `value_as_string`.

use serde_json::{Map, Value};

use super::source::{number, object_of, unknown_key, SourceParams};
use super::AggKind;
use crate::error::{Result, SearchError};

/// The parameters of one numeric metric.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricParams {
    /// The field whose values are summarised.
    pub field: String,
    /// The value documents without one count as.
    pub missing: Option<f64>,
    /// `extended_stats`: the width of the `std_deviation_bounds`.
    pub sigma: Option<f64>,
    /// `format`: how the `*_as_string` values are written (a date
    /// pattern on a date field, else a `DecimalFormat` one:
    /// `metric_format`).
    pub format: Option<String>,
}

impl MetricParams {
    /// Whether `kind`'s parameters are typed here.
    pub fn covers(kind: AggKind) -> bool {
        use AggKind::*;
        matches!(
            kind,
            Min | Max | Avg | Sum | ValueCount | Stats | ExtendedStats
        )
    }

    /// The parameters `body` of `kind` aggregation `name`.
    pub fn parse(kind: AggKind, name: &str, body: &Value) -> Result<MetricParams> {
        let kind_name = kind.name();
        let mut source = SourceParams::default();
        let mut sigma = None;
        for (key, value) in object_of(kind_name, name, body)? {
            if source.read(kind_name, name, key, value)? {
                continue;
            }
            match key.as_str() {
                "sigma" if kind == AggKind::ExtendedStats => {
                    let s = number(kind_name, name, key, value)?;
                    if s < 0.0 {
                        return Err(SearchError::illegal(format!(
                            "[sigma] must be greater than or equal to 0. Found [{s}] in [{name}]"
                        )));
                    }
                    sigma = Some(s);
                }
                other => return Err(unknown_key(kind_name, other)),
            }
        }
        let format = source.format().map(str::to_string);
        let (field, missing) = source.finish(name)?;
        Ok(MetricParams {
            field,
            missing,
            sigma,
            format,
        })
    }

    /// tantivy's parameters, over the column `column` (the field's schema
    /// path).
    pub fn tantivy_request(&self, column: &str) -> Value {
        let mut out = Map::new();
        out.insert("field".into(), Value::from(column));
        if let Some(missing) = self.missing {
            out.insert("missing".into(), Value::from(missing));
        }
        if let Some(sigma) = self.sigma {
            out.insert("sigma".into(), Value::from(sigma));
        }
        Value::Object(out)
    }
}
