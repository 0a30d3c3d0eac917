//! [`SpreadParams`]: the parameters of a `boxplot` or a
//! `median_absolute_deviation`, typed when the request is parsed, as
//! Elasticsearch 8 reads them: `field` (required), `missing` a number,
//! `format` (a `DecimalFormat` pattern for the `_as_string` values),
//! `compression` a number (boxplot's at least 0, default 100;
//! median_absolute_deviation's above 0, default 1000: refused otherwise
//! in Elasticsearch's words), `execution_hint` `default` or
//! `high_accuracy`. Scripts are refused. `compression` and
//! `execution_hint` are read and checked but change nothing: answers come
//! from Strata's digest (`percentiles/spread.rs`), exact up to 2,000
//! values whatever the compression (Elasticsearch's default digest is
//! exact up to 20 times it: 2,000 values for a boxplot at its default,
//! 20,000 for a median absolute deviation).

use serde_json::Value;

use super::source::{number, object_of, unknown_key, SourceParams};
use crate::error::{Result, SearchError};
use crate::search::java_double::java_double;

/// Which of the two kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpreadKind {
    /// `boxplot`.
    Boxplot,
    /// `median_absolute_deviation`.
    MedianAbsoluteDeviation,
}

impl SpreadKind {
    /// The Elasticsearch name.
    pub fn name(self) -> &'static str {
        match self {
            SpreadKind::Boxplot => "boxplot",
            SpreadKind::MedianAbsoluteDeviation => "median_absolute_deviation",
        }
    }
}

/// The parameters of one `boxplot` or `median_absolute_deviation`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpreadParams {
    /// Which of the two kinds.
    pub kind: SpreadKind,
    /// The field whose values are read.
    pub field: String,
    /// The value documents without one count as.
    pub missing: Option<f64>,
    /// `format`: how the values are also written (`_as_string`).
    pub format: Option<String>,
}

impl SpreadParams {
    /// The parameters `body` of the `kind` aggregation `name`.
    pub fn parse(kind: SpreadKind, name: &str, body: &Value) -> Result<SpreadParams> {
        let agg = kind.name();
        let mut source = SourceParams::default();
        for (key, value) in object_of(agg, name, body)? {
            if source.read(agg, name, key, value)? {
                continue;
            }
            match key.as_str() {
                "compression" => check_compression(kind, name, number(agg, name, key, value)?)?,
                "execution_hint" => check_hint(agg, name, value)?,
                other => return Err(unknown_key(agg, other)),
            }
        }
        let format = source.format().map(str::to_string);
        let (field, missing) = source.finish(name)?;
        Ok(SpreadParams {
            kind,
            field,
            missing,
            format,
        })
    }
}

/// Elasticsearch's bounds on `compression`: at least 0 for a boxplot,
/// above 0 for a median absolute deviation.
fn check_compression(kind: SpreadKind, name: &str, c: f64) -> Result<()> {
    let (ok, bound) = match kind {
        SpreadKind::Boxplot => (c >= 0.0, "greater than or equal to 0"),
        SpreadKind::MedianAbsoluteDeviation => (c > 0.0, "greater than 0"),
    };
    if ok {
        return Ok(());
    }
    Err(SearchError::illegal(format!(
        "[compression] must be {bound}. Found [{}] in [{name}]",
        java_double(c)
    )))
}

/// `execution_hint`: `default` or `high_accuracy` (Elasticsearch's
/// `TDigestExecutionHint`).
fn check_hint(agg: &str, name: &str, value: &Value) -> Result<()> {
    match value.as_str() {
        Some("default" | "high_accuracy") => Ok(()),
        Some(other) => Err(SearchError::illegal(format!(
            "Invalid execution_hint [{other}], valid values are [default, high_accuracy]"
        ))),
        None => Err(SearchError::parsing(format!(
            "[execution_hint] of [{agg}] aggregation [{name}] must be a string, got [{value}]"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{SpreadKind, SpreadParams};
    use crate::error::Result;

    fn box_of(body: Value) -> Result<SpreadParams> {
        SpreadParams::parse(SpreadKind::Boxplot, "b", &body)
    }

    fn mad_of(body: Value) -> Result<SpreadParams> {
        SpreadParams::parse(SpreadKind::MedianAbsoluteDeviation, "mad", &body)
    }

    #[test]
    fn parameters_are_read() {
        let p = box_of(json!({"field": "n", "missing": "7", "format": "0.0",
                              "compression": 200, "execution_hint": "high_accuracy"}))
        .unwrap();
        assert_eq!(
            (p.field.as_str(), p.missing, p.format.as_deref()),
            ("n", Some(7.0), Some("0.0"))
        );
        let p = mad_of(json!({"field": "n", "compression": 500})).unwrap();
        assert_eq!(
            (p.kind, p.missing, p.format),
            (SpreadKind::MedianAbsoluteDeviation, None, None)
        );
        // A boxplot's compression may be 0.
        assert!(box_of(json!({"field": "n", "compression": 0})).is_ok());
    }

    #[test]
    fn refusals_in_elasticsearchs_words() {
        let message = |r: Result<SpreadParams>| r.unwrap_err().to_string();
        assert!(message(mad_of(json!({"field": "n", "compression": 0})))
            .contains("[compression] must be greater than 0. Found [0.0] in [mad]"));
        assert!(message(mad_of(json!({"field": "n", "compression": -1})))
            .contains("[compression] must be greater than 0. Found [-1.0] in [mad]"));
        assert!(message(box_of(json!({"field": "n", "compression": -1})))
            .contains("[compression] must be greater than or equal to 0. Found [-1.0] in [b]"));
        assert!(message(mad_of(
            json!({"field": "n", "execution_hint": "no_such_hint"})
        ))
        .contains(
            "Invalid execution_hint [no_such_hint], valid values are [default, high_accuracy]"
        ));
        for bad in [
            json!({"field": "n", "script": "1"}),
            json!({"field": "n", "percents": [50]}),
            json!({"field": "n", "missing": "x"}),
            json!({"field": "n", "execution_hint": 1}),
            json!({"field": 1}),
            json!({"missing": 1}),
            json!([]),
        ] {
            assert!(box_of(bad.clone()).is_err(), "{bad}");
            assert!(mad_of(bad.clone()).is_err(), "{bad}");
        }
    }
}
