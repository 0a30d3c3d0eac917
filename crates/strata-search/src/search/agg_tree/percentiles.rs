//! [`PercentilesParams`]: a `percentiles` aggregation's parameters, typed
//! when the request is parsed, as Elasticsearch 8 reads them: `percents`
//! sorted (a result lists them in that order), each within 0..=100, and
//! not empty; `keyed` a boolean; `missing` a number, or on a date field a
//! date or date math ([`MissingValue`]); `format` kept for a date field's
//! `_as_string` values (on a number, a `DecimalFormat` pattern).
//! `tdigest` (Elasticsearch's default sketch) is read and checked
//! ([`check_tdigest`]: a `compression` below 0 is refused in
//! Elasticsearch's words) but its settings change nothing: answers come
//! from Strata's digest (`percentiles/`), exact up to 2,000 values as
//! Elasticsearch's is at any compression. `hdr` is refused rather than
//! ignored (Elasticsearch's HDR histogram answers differently).

use serde_json::{Map, Value};

use super::source::{number, object_of, unknown_key, MissingValue, SourceParams};
use crate::error::{Result, SearchError};
use crate::search::java_double::java_double;

/// The percents a request that names none gets (Elasticsearch's default).
const DEFAULT_PERCENTS: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

/// The parameters of one `percentiles` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct PercentilesParams {
    /// The field whose values are ranked.
    pub field: String,
    /// The percents, ascending.
    pub percents: Vec<f64>,
    /// Whether the result is an object keyed by percent (else a list).
    pub keyed: bool,
    /// The value documents without one count as.
    pub missing: Option<MissingValue>,
    /// `format`: how a date field's values are written (else the field's
    /// format); not read on other fields.
    pub format: Option<String>,
}

impl PercentilesParams {
    /// The parameters `body` of the `percentiles` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<PercentilesParams> {
        const KIND: &str = "percentiles";
        let mut source = SourceParams::dated();
        let (mut percents, mut keyed) = (DEFAULT_PERCENTS.to_vec(), true);
        for (key, value) in object_of(KIND, name, body)? {
            if source.read(KIND, name, key, value)? {
                continue;
            }
            match key.as_str() {
                "percents" => percents = parse_percents(name, value)?,
                "keyed" => {
                    keyed = value.as_bool().ok_or_else(|| {
                        SearchError::parsing(format!(
                            "[keyed] of [percentiles] aggregation [{name}] must be a boolean, got [{value}]"
                        ))
                    })?;
                }
                "tdigest" => check_tdigest(KIND, name, value)?,
                "hdr" => {
                    return Err(SearchError::illegal(format!(
                        "[hdr] of [percentiles] aggregation [{name}] is not supported by this server: percentiles are computed as Elasticsearch's t-digest computes them"
                    )))
                }
                other => return Err(unknown_key(KIND, other)),
            }
        }
        let (field, missing, format) = source.finish_dated(name)?;
        Ok(PercentilesParams {
            field,
            percents,
            keyed,
            missing,
            format,
        })
    }

    /// tantivy's parameters for the aggregation `name` on a field that is
    /// not a date, over the column `column` (the field's schema path); a
    /// `missing` that is not a number is refused here.
    pub fn tantivy_request(&self, name: &str, column: &str) -> Result<Value> {
        let mut out = Map::new();
        out.insert("field".into(), Value::from(column));
        out.insert("percents".into(), Value::from(self.percents.clone()));
        out.insert("keyed".into(), Value::from(self.keyed));
        if let Some(missing) = &self.missing {
            let n = missing.number("percentiles", name)?;
            out.insert("missing".into(), Value::from(n));
        }
        Ok(Value::Object(out))
    }
}

/// Checks the `tdigest` object of the `kind` aggregation `name`:
/// `compression` a number at least 0, `execution_hint` a string.
pub(super) fn check_tdigest(kind: &str, name: &str, value: &Value) -> Result<()> {
    for (key, v) in object_of("tdigest", name, value)? {
        match key.as_str() {
            "compression" => {
                let c = number(kind, name, "compression", v)?;
                if c < 0.0 {
                    return Err(SearchError::illegal(format!(
                        "[compression] must be greater than or equal to 0. Found [{}] in [{name}]",
                        java_double(c)
                    )));
                }
            }
            "execution_hint" if v.is_string() => {}
            other => return Err(unknown_key("tdigest", other)),
        }
    }
    Ok(())
}

/// `percents`: numbers (or numeric strings) within 0..=100, sorted; errors
/// in Elasticsearch's words, under its builder's parse failure.
fn parse_percents(name: &str, value: &Value) -> Result<Vec<f64>> {
    let list = value.as_array().ok_or_else(|| {
        SearchError::parsing(format!(
            "[percents] of [percentiles] aggregation [{name}] must be an array, got [{value}]"
        ))
    })?;
    let mut percents = list
        .iter()
        .map(|p| number("percentiles", name, "percents", p))
        .collect::<Result<Vec<f64>>>()?;
    let built = |message: String| SearchError::FieldParse {
        reason: "Failed to build [percentiles] after last required field arrived".into(),
        cause: Some(Box::new(SearchError::illegal(message))),
    };
    if percents.is_empty() {
        return Err(built(format!("[percents] must not be empty: [{name}]")));
    }
    percents.sort_by(f64::total_cmp);
    if let Some(bad) = percents.iter().find(|p| !(0.0..=100.0).contains(*p)) {
        return Err(built(format!(
            "percent must be in [0,100], got [{}]: [{name}]",
            java_double(*bad)
        )));
    }
    Ok(percents)
}
