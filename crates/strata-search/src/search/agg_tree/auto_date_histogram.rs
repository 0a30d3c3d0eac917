//! [`AutoDateHistogramParams`]: an `auto_date_histogram` aggregation's
//! parameters, typed when the request is parsed: `field`, `buckets` (the
//! target count, default 10, within Elasticsearch's ceiling of
//! `search.max_buckets` over the largest inner interval), `minimum_interval`
//! (the finest rounding allowed), `time_zone`, `format` and `missing` (a
//! date as written: epoch milliseconds or date math, read later with the
//! field's format). Scripts and any other key are refused, in
//! Elasticsearch's words.
//!
//! Its rounding is chosen from the dates of the documents it sees: at the
//! top level the query's (`search::auto_date`); below a bucket each
//! parent bucket's own, as Elasticsearch chooses it per parent bucket
//! (there it runs once per bucket, `deferred`).

use serde_json::{Map, Value};

use super::source::{checked_field, object_of, unknown_key};
use super::DateValue;
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::search::auto_date::{self, LEVELS};
use crate::search::bucket_limit;
use crate::search::time_zone::TimeZone;

/// The parameters of one `auto_date_histogram` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoDateHistogramParams {
    /// The date field.
    pub field: String,
    /// The most buckets wanted (at least 1).
    pub buckets: i64,
    /// Index in [`LEVELS`] of the finest rounding allowed.
    pub first_level: usize,
    /// The zone buckets start in.
    pub time_zone: TimeZone,
    /// `format`, when the request names one (else the field's).
    pub format: Option<DateFormat>,
    /// The date documents without the field count at.
    pub missing: Option<DateValue>,
}

impl AutoDateHistogramParams {
    /// The parameters `body` of the `auto_date_histogram` `name`.
    pub fn parse(name: &str, body: &Value) -> Result<Self> {
        const KIND: &str = "auto_date_histogram";
        let params: &Map<String, Value> = object_of(KIND, name, body)?;
        checked_field(name, params)?;
        let bad = |k: &str, v: &Value| {
            SearchError::illegal(format!(
                "[{KIND}] parameter [{k}] with value [{v}] of [{name}] is not supported"
            ))
        };
        let mut out = AutoDateHistogramParams {
            field: String::new(),
            buckets: 10,
            first_level: 0,
            time_zone: TimeZone::UTC,
            format: None,
            missing: None,
        };
        for (k, v) in params {
            match k.as_str() {
                "field" => out.field = v.as_str().unwrap_or_default().to_string(),
                "buckets" => {
                    // An int, as Elasticsearch's parser reads one (numeric
                    // strings too); its setter refuses 0 and below.
                    let n = v
                        .as_i64()
                        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                        .filter(|n| i32::try_from(*n).is_ok())
                        .ok_or_else(|| bad(k, v))?;
                    if n <= 0 {
                        return Err(SearchError::field_parse(
                            KIND,
                            "buckets",
                            SearchError::illegal(format!(
                                "buckets must be greater than 0 for [{name}]"
                            )),
                        ));
                    }
                    out.buckets = n;
                }
                "minimum_interval" => {
                    if let Some(text) = v.as_str() {
                        out.first_level = auto_date::level_named(text).ok_or_else(|| {
                            let names: Vec<&str> = LEVELS.iter().rev().map(|l| l.name).collect();
                            SearchError::field_parse(
                                KIND,
                                "minimum_interval",
                                SearchError::illegal(format!(
                                    "minimum_interval must be one of [[{}]]",
                                    names.join(", ")
                                )),
                            )
                        })?;
                    } else if !v.is_null() {
                        return Err(bad(k, v));
                    }
                }
                "time_zone" => {
                    out.time_zone = TimeZone::parse(v.as_str().ok_or_else(|| bad(k, v))?)?
                }
                "format" => {
                    out.format = Some(DateFormat::parse(v.as_str().ok_or_else(|| bad(k, v))?)?)
                }
                "missing" => {
                    out.missing = Some(match v {
                        Value::Number(n) => {
                            DateValue::Millis(n.as_f64().ok_or_else(|| bad(k, v))? as i64)
                        }
                        Value::String(s) => DateValue::Math(s.clone()),
                        _ => return Err(bad(k, v)),
                    })
                }
                _ => return Err(unknown_key(KIND, k)),
            }
        }
        // Elasticsearch's ceiling: every bucket may be split into the
        // largest inner interval of the roundings below the last.
        let widest = auto_date::widest_inner(out.first_level);
        let ceiling = (bucket_limit::max_buckets() as i64) / widest;
        if out.buckets > ceiling {
            return Err(SearchError::illegal(format!(
                "buckets must be less than {ceiling}"
            )));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::tests::assert_refusals;
    use super::super::{AggTree, TypedParams};
    use super::AutoDateHistogramParams;
    use crate::search::agg_tree::DateValue;

    fn parsed(params: Value) -> AutoDateHistogramParams {
        let tree = AggTree::parse(json!({"a": {"auto_date_histogram": params}})).unwrap();
        match &tree.nodes()[0].typed {
            TypedParams::AutoDateHistogram(p) => p.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parameters_are_typed() {
        let p = parsed(json!({"field": "ts"}));
        assert_eq!((p.buckets, p.first_level, p.missing), (10, 0, None));
        let p = parsed(
            json!({"field": "ts", "buckets": "3", "minimum_interval": "day",
                              "time_zone": "+01:00", "format": "yyyy", "missing": 5}),
        );
        assert_eq!((p.buckets, p.first_level), (3, 3));
        assert_eq!(p.missing, Some(DateValue::Millis(5)));
        assert!(p.format.is_some());
        assert_eq!(
            parsed(json!({"field": "ts", "minimum_interval": null})).first_level,
            0
        );
    }

    #[test]
    fn bad_parameters_are_refused() {
        let cases = [
            (
                json!({"field": "ts", "buckets": 0}),
                "[auto_date_histogram] failed to parse field [buckets]",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "ts", "minimum_interval": "week"}),
                "[auto_date_histogram] failed to parse field [minimum_interval]",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "ts", "interval": "1d"}),
                "[auto_date_histogram] unknown field [interval]",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "ts", "buckets": 100000}),
                "buckets must be less than 2184",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "ts", "script": "x"}),
                "scripts are not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"buckets": 3}),
                "Required one of fields [field, script], but none were specified (aggregation [a])",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("a", "auto_date_histogram", &cases);
    }
}
