//! A JSON scalar converted to the value indexed for a mapped field:
//! numbers range-checked, dates parsed, keywords over `ignore_above`
//! dropped.

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::mapping::{FieldMapping, FieldType};

/// One indexed value.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// Analyzed text.
    Text(String),
    /// An exact string (keyword fields).
    Keyword(String),
    /// An address in its canonical text (ip fields): a column value only,
    /// never a term of new indices (`query::ip_range`).
    Ip(String),
    /// An integer.
    Long(i64),
    /// A float.
    Double(f64),
    /// A date in epoch milliseconds.
    Date(i64),
    /// A boolean.
    Bool(bool),
}

/// The indexed value of a JSON scalar for a field; `None` when it is not indexed
/// (a keyword over `ignore_above`).
pub fn convert(path: &str, leaf: &FieldMapping, value: &Value) -> Result<Option<FieldValue>> {
    let fail = || {
        SearchError::MapperParsing(format!(
            "failed to parse field [{path}] of type [{}]. Preview of field's value: '{}'",
            leaf.ty.name(),
            scalar_text(value)
        ))
    };
    let v = match leaf.ty {
        FieldType::Text => FieldValue::Text(scalar_text(value)),
        FieldType::Keyword => {
            let s = scalar_text(value);
            if over_ignore_above(leaf, &s) {
                return Ok(None);
            }
            FieldValue::Keyword(s)
        }
        FieldType::Ip => {
            let s = value.as_str().ok_or_else(fail)?;
            let ip: std::net::IpAddr = s.trim().parse().map_err(|_| fail())?;
            FieldValue::Ip(ip.to_string())
        }
        ty if ty.is_integer() => {
            let n = match value {
                Value::Number(n) => n
                    .as_i64()
                    .or_else(|| n.as_f64().map(f64::trunc).and_then(f64_to_i64)),
                Value::String(s) => s.trim().parse::<i64>().ok().or_else(|| {
                    s.trim()
                        .parse::<f64>()
                        .ok()
                        .map(f64::trunc)
                        .and_then(f64_to_i64)
                }),
                _ => None,
            }
            .ok_or_else(fail)?;
            let (lo, hi) = ty.integer_range();
            if n < lo || n > hi {
                return Err(fail());
            }
            FieldValue::Long(n)
        }
        ty if ty.is_float() => {
            let mut f = match value {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            }
            .filter(|f| f.is_finite())
            .ok_or_else(fail)?;
            if let Some(sf) = leaf.scaling_factor {
                f = (f * sf).round() / sf;
            }
            FieldValue::Double(f)
        }
        FieldType::Date => FieldValue::Date(leaf.date_parser().parse_value(value)?),
        FieldType::Boolean => match value {
            Value::Bool(b) => FieldValue::Bool(*b),
            Value::String(s) if s == "true" => FieldValue::Bool(true),
            Value::String(s) if s == "false" || s.is_empty() => FieldValue::Bool(false),
            _ => return Err(fail()),
        },
        _ => return Err(fail()),
    };
    Ok(Some(v))
}

/// [`convert`], taking a string out of `value` instead of copying it
/// (text and keyword fields); `value` is not to be read again.
pub(super) fn convert_owned(
    path: &str,
    leaf: &FieldMapping,
    value: &mut Value,
) -> Result<Option<FieldValue>> {
    if let (FieldType::Text | FieldType::Keyword, Value::String(s)) = (leaf.ty, &mut *value) {
        if leaf.ty == FieldType::Keyword && over_ignore_above(leaf, s) {
            return Ok(None);
        }
        let s = std::mem::take(s);
        return Ok(Some(if leaf.ty == FieldType::Text {
            FieldValue::Text(s)
        } else {
            FieldValue::Keyword(s)
        }));
    }
    convert(path, leaf, value)
}

/// A keyword longer than `ignore_above` characters is not indexed.
fn over_ignore_above(leaf: &FieldMapping, s: &str) -> bool {
    // Bytes bound characters from above: most strings need no count.
    leaf.ignore_above
        .is_some_and(|n| s.len() > n && s.chars().count() > n)
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn f64_to_i64(f: f64) -> Option<i64> {
    (f.is_finite() && f >= i64::MIN as f64 && f <= i64::MAX as f64).then_some(f as i64)
}
