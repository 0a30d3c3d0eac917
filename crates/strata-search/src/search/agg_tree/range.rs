//! [`RangeParams`]: the parameters of `range` and `date_range`, typed when
//! the request is parsed: `field` (required; `script` refused), `ranges`
//! (at least one; each a [`RangeSpec`]: `key`, `from`, `to`), `keyed`,
//! `format`, `missing` (kept as written: a number or a date, as the
//! field is); `date_range` also takes `time_zone`, `range` also
//! `value_type` (accepted as written, unused: on a date field it is
//! refused, as `date_range` refuses it).
//!
//! The ends of a range are kept as written ([`RangeEdge`]): on a date
//! field a string is a date, or date math, in the field's format (or
//! `format`), on a numeric field a number, so converting them needs the
//! mapping and is the translation's (`date_range`, `number_range`) or the runtime
//! fields' (`runtime_aggs`). `format` is kept as written for `range` (a
//! date format only on a date field) and checked here for `date_range`.

use serde_json::{Map, Value};

use super::AggKind;
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::search::time_zone::TimeZone;

/// One end of a range, as written.
#[derive(Debug, Clone, PartialEq)]
pub enum RangeEdge {
    /// A JSON number.
    Number(f64),
    /// A string: a number, or on a date field a date or date math.
    Text(String),
}

impl RangeEdge {
    /// As a number: a JSON number, or a string of one (blanks around it
    /// ignored); `None` for any other string.
    pub fn number(&self) -> Option<f64> {
        match self {
            RangeEdge::Number(n) => Some(*n),
            RangeEdge::Text(s) => s.trim().parse().ok(),
        }
    }
}

/// One requested range.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeSpec {
    /// Its `key` (`None`: the key is made of its ends).
    pub key: Option<String>,
    /// Its inclusive start (`None`: unbounded).
    pub from: Option<RangeEdge>,
    /// Its exclusive end (`None`: unbounded).
    pub to: Option<RangeEdge>,
}

/// The parameters of one `range` or `date_range` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeParams {
    /// The field.
    pub field: String,
    /// The ranges, in request order (at least one).
    pub ranges: Vec<RangeSpec>,
    /// `keyed` as written (`None`: not written, not keyed).
    pub keyed: Option<bool>,
    /// `format` as written.
    pub format: Option<String>,
    /// `date_range`'s `time_zone` (`None`: UTC).
    pub time_zone: Option<TimeZone>,
    /// `missing` as written (read by `number_range` and `date_range`).
    pub missing: Option<Value>,
    /// `range`'s `value_type` as written (unused).
    pub value_type: Option<String>,
}

impl RangeParams {
    /// Whether `kind` has these parameters.
    pub fn covers(kind: AggKind) -> bool {
        matches!(kind, AggKind::Range | AggKind::DateRange)
    }

    /// Whether the buckets are keyed.
    pub fn keyed(&self) -> bool {
        self.keyed.unwrap_or(false)
    }

    /// The optional parameters written beyond `field` and `ranges`, by
    /// name (what an aggregation on a runtime field refuses).
    pub fn options_written(&self) -> impl Iterator<Item = &'static str> + '_ {
        [
            ("keyed", self.keyed.is_some()),
            ("format", self.format.is_some()),
            ("time_zone", self.time_zone.is_some()),
            ("missing", self.missing.is_some()),
            ("value_type", self.value_type.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, written)| written.then_some(k))
    }

    /// The parameters `body` of the `kind` (`range` or `date_range`)
    /// aggregation `name`.
    pub fn parse(kind: AggKind, name: &str, body: &Value) -> Result<RangeParams> {
        let date = kind == AggKind::DateRange;
        let kind = kind.name();
        let obj = body.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[{kind}] of [{name}] must be an object"))
        })?;
        let Some(field) = obj.get("field").and_then(Value::as_str) else {
            return Err(SearchError::illegal(format!(
                "Required one of fields [field, script], but none were specified (aggregation [{name}])"
            )));
        };
        if obj.contains_key("script") {
            return Err(SearchError::illegal("scripts are not supported"));
        }
        let bad = |k: &str, v: &Value| {
            SearchError::parsing(format!("[{kind}] of [{name}]: bad [{k}] value [{v}]"))
        };
        let mut out = RangeParams {
            field: field.to_string(),
            ranges: Vec::new(),
            keyed: None,
            format: None,
            time_zone: None,
            missing: None,
            value_type: None,
        };
        for (k, v) in obj {
            match (k.as_str(), date) {
                ("field" | "ranges", _) => {}
                ("format", _) => {
                    let f = v.as_str().ok_or_else(|| bad(k, v))?;
                    if date {
                        DateFormat::parse(f)?;
                    }
                    out.format = Some(f.to_string());
                }
                ("time_zone", true) => {
                    let tz = v.as_str().ok_or_else(|| bad(k, v))?;
                    out.time_zone = Some(TimeZone::parse(tz)?);
                }
                ("keyed", _) => out.keyed = Some(v.as_bool().ok_or_else(|| bad(k, v))?),
                ("missing", _) => out.missing = Some(v.clone()),
                ("value_type", false) => {
                    out.value_type = Some(v.as_str().ok_or_else(|| bad(k, v))?.to_string())
                }
                (_, true) => {
                    return Err(SearchError::parsing(format!(
                        "[date_range] unknown field [{k}] in [{name}]"
                    )))
                }
                (_, false) => {
                    return Err(SearchError::FieldParse {
                        reason: format!("[range] unknown field [{k}]"),
                        cause: None,
                    })
                }
            }
        }
        let list = obj
            .get("ranges")
            .and_then(Value::as_array)
            .filter(|l| !l.is_empty())
            .ok_or_else(|| {
                SearchError::illegal(format!(
                    "No [ranges] specified for the [{name}] aggregation"
                ))
            })?;
        for r in list {
            let r = r.as_object().ok_or_else(|| bad("ranges", r))?;
            out.ranges.push(spec(r, &bad)?);
        }
        Ok(out)
    }
}

/// One entry of `ranges`; `bad` is the error for a value of the wrong type.
fn spec(r: &Map<String, Value>, bad: &dyn Fn(&str, &Value) -> SearchError) -> Result<RangeSpec> {
    if let Some(k) = r
        .keys()
        .find(|k| !matches!(k.as_str(), "from" | "to" | "key"))
    {
        return Err(SearchError::parsing(format!("[range] unknown field [{k}]")));
    }
    let edge = |e: &str| -> Result<Option<RangeEdge>> {
        match r.get(e) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(RangeEdge::Text(s.clone()))),
            Some(v @ Value::Number(n)) => n
                .as_f64()
                .map(|f| Some(RangeEdge::Number(f)))
                .ok_or_else(|| bad(e, v)),
            Some(other) => Err(bad(e, other)),
        }
    };
    let key = match r.get("key") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(bad("key", other)),
    };
    Ok(RangeSpec {
        key,
        from: edge("from")?,
        to: edge("to")?,
    })
}

#[cfg(test)]
#[path = "range_tests.rs"]
mod tests;
