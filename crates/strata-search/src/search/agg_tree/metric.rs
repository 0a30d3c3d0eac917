//! [`MetricParams`]: the parameters of the numeric metrics computed by
//! tantivy (`min`, `max`, `avg`, `sum`, `value_count`, `stats`,
//! `extended_stats`), typed when the request is parsed, and tantivy's
//! request built from them. Unknown and malformed parameters are the
//! parse's errors; `format` and `value_type` are accepted and, as before,
//! change nothing.

use serde_json::{Map, Value};

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
        let obj = body.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[{kind_name}] of [{name}] must be an object"))
        })?;
        let mut field = None;
        let mut params = MetricParams {
            field: String::new(),
            missing: None,
            sigma: None,
        };
        for (key, value) in obj {
            match key.as_str() {
                "field" => match value {
                    Value::String(f) => field = Some(f.clone()),
                    other => {
                        return Err(SearchError::parsing(format!(
                        "[field] of [{kind_name}] aggregation [{name}] must be a string, got [{other}]"
                    )))
                    }
                },
                "missing" => params.missing = Some(number(kind_name, name, key, value)?),
                "sigma" if kind == AggKind::ExtendedStats => {
                    let sigma = number(kind_name, name, key, value)?;
                    if sigma < 0.0 {
                        return Err(SearchError::illegal(format!(
                            "[sigma] must be greater than or equal to 0. Found [{sigma}] in [{name}]"
                        )));
                    }
                    params.sigma = Some(sigma);
                }
                "format" | "value_type" if value.is_string() => {}
                "script" => return Err(SearchError::illegal("scripts are not supported")),
                // Elasticsearch 8's declarative parsers' error.
                other => {
                    return Err(SearchError::FieldParse {
                        reason: format!("[{kind_name}] unknown field [{other}]"),
                        cause: None,
                    })
                }
            }
        }
        params.field = field.ok_or_else(|| {
            SearchError::illegal(format!(
                "Required one of fields [field, script], but none were specified (aggregation [{name}])"
            ))
        })?;
        Ok(params)
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

/// A number, written as one or as a numeric string (as Elasticsearch
/// takes them).
pub(super) fn number(kind: &str, name: &str, key: &str, value: &Value) -> Result<f64> {
    value
        .as_f64()
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        .filter(|n: &f64| n.is_finite())
        .ok_or_else(|| {
            SearchError::parsing(format!(
                "[{key}] of [{kind}] aggregation [{name}] must be a number, got [{value}]"
            ))
        })
}
