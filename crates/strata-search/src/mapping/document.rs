//! A document's `_source` turned into typed values under the mapping, with
//! the fields dynamic mapping adds. Pure: the caller decides whether to
//! apply the new fields to the index's mapping.

use serde_json::Value;

use super::date::looks_like_date;
use super::{Dynamic, FieldMapping, FieldType, Mappings};
use crate::error::{Result, SearchError};

/// One indexed value.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// Analyzed text.
    Text(String),
    /// An exact string (keyword and ip fields).
    Keyword(String),
    /// An integer.
    Long(i64),
    /// A float.
    Double(f64),
    /// A date in epoch milliseconds.
    Date(i64),
    /// A boolean.
    Bool(bool),
}

/// The typed values of one document.
#[derive(Debug, Default)]
pub struct ParsedDoc {
    /// `(dotted path, value)`, several per path for arrays and multi-fields.
    pub values: Vec<(String, FieldValue)>,
    /// Fields dynamic mapping adds, in the order first seen.
    pub new_fields: Vec<(String, FieldMapping)>,
}

/// Parses `source` (a JSON object) under `mappings`.
pub fn parse_document(mappings: &Mappings, source: &Value) -> Result<ParsedDoc> {
    let obj = source.as_object().ok_or_else(|| {
        SearchError::MapperParsing("failed to parse, document is empty or not an object".into())
    })?;
    let mut doc = ParsedDoc::default();
    for (key, value) in obj {
        walk(mappings, key, value, &mut doc)?;
    }
    Ok(doc)
}

fn walk(mappings: &Mappings, path: &str, value: &Value, doc: &mut ParsedDoc) -> Result<()> {
    if path.is_empty() || path.starts_with('.') || path.ends_with('.') || path.contains("..") {
        return Err(SearchError::MapperParsing(format!(
            "field name cannot contain only whitespace or dots: ['{path}']"
        )));
    }
    match value {
        Value::Null => Ok(()),
        Value::Array(items) => items.iter().try_for_each(|v| walk(mappings, path, v, doc)),
        Value::Object(obj) => {
            if leaf_of(mappings, doc, path).is_some() {
                return Err(SearchError::MapperParsing(format!(
                    "failed to parse field [{path}]: tried to parse field [{path}] as a concrete value, but found an object"
                )));
            }
            for (key, v) in obj {
                walk(mappings, &format!("{path}.{key}"), v, doc)?;
            }
            Ok(())
        }
        scalar => {
            let leaf = match leaf_of(mappings, doc, path) {
                Some(leaf) => leaf,
                None => match dynamic_leaf(mappings, path, scalar)? {
                    Some(leaf) => {
                        doc.new_fields.push((path.to_string(), leaf.clone()));
                        leaf
                    }
                    None => return Ok(()),
                },
            };
            add_values(path, &leaf, scalar, doc)
        }
    }
}

fn leaf_of(mappings: &Mappings, doc: &ParsedDoc, path: &str) -> Option<FieldMapping> {
    mappings.leaf(path).cloned().or_else(|| {
        doc.new_fields
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, l)| l.clone())
    })
}

fn dynamic_leaf(mappings: &Mappings, path: &str, value: &Value) -> Result<Option<FieldMapping>> {
    match mappings.dynamic {
        Dynamic::False => return Ok(None),
        Dynamic::Strict => {
            return Err(SearchError::StrictDynamicMapping(format!(
            "mapping set to strict, dynamic introduction of [{path}] within [_doc] is not allowed"
        )))
        }
        Dynamic::True => {}
    }
    if mappings.is_object(path) {
        return Err(SearchError::MapperParsing(format!(
            "object mapping for [{path}] tried to parse field [{path}] as object, but found a concrete value"
        )));
    }
    let leaf = match value {
        Value::Bool(_) => FieldMapping::of(FieldType::Boolean),
        Value::Number(n) if n.is_i64() || n.is_u64() => FieldMapping::of(FieldType::Long),
        Value::Number(_) => FieldMapping::of(FieldType::Float),
        Value::String(s) if mappings.date_detection && looks_like_date(s) => {
            FieldMapping::of(FieldType::Date)
        }
        _ => FieldMapping::dynamic_string(),
    };
    Ok(Some(leaf))
}

fn add_values(path: &str, leaf: &FieldMapping, value: &Value, doc: &mut ParsedDoc) -> Result<()> {
    if let Some(v) = convert(path, leaf, value)? {
        doc.values.push((path.to_string(), v));
    }
    for (sub, sub_leaf) in &leaf.fields {
        let sub_path = format!("{path}.{sub}");
        if let Some(v) = convert(&sub_path, sub_leaf, value)? {
            doc.values.push((sub_path, v));
        }
    }
    Ok(())
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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
            if leaf.ignore_above.is_some_and(|n| s.chars().count() > n) {
                return Ok(None);
            }
            FieldValue::Keyword(s)
        }
        FieldType::Ip => {
            let s = value.as_str().ok_or_else(fail)?;
            let ip: std::net::IpAddr = s.trim().parse().map_err(|_| fail())?;
            FieldValue::Keyword(ip.to_string())
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
        FieldType::Date => FieldValue::Date(leaf.date_format().parse_value(value)?),
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

fn f64_to_i64(f: f64) -> Option<i64> {
    (f.is_finite() && f >= i64::MIN as f64 && f <= i64::MAX as f64).then_some(f as i64)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn dynamic_mapping_types() {
        let m = Mappings::default();
        let doc = parse_document(
            &m,
            &json!({"a": 1, "b": 1.5, "c": "hello", "d": "2024-01-01T00:00:00Z", "e": {"f": true}, "g": [1, 2], "n": null}),
        )
        .unwrap();
        let types: Vec<_> = doc
            .new_fields
            .iter()
            .map(|(p, l)| (p.as_str(), l.ty))
            .collect();
        assert!(types.contains(&("a", FieldType::Long)));
        assert!(types.contains(&("b", FieldType::Float)));
        assert!(types.contains(&("c", FieldType::Text)));
        assert!(types.contains(&("d", FieldType::Date)));
        assert!(types.contains(&("e.f", FieldType::Boolean)));
        assert!(doc
            .values
            .contains(&("c.keyword".into(), FieldValue::Keyword("hello".into()))));
        assert_eq!(doc.values.iter().filter(|(p, _)| p == "g").count(), 2);
    }

    #[test]
    fn mapped_conversions_and_errors() {
        let m = Mappings::parse(&json!({"dynamic": "strict", "properties": {
            "n": {"type": "byte"}, "k": {"type": "keyword", "ignore_above": 3},
            "s": {"type": "scaled_float", "scaling_factor": 10}, "ip": {"type": "ip"}
        }}))
        .unwrap();
        let doc =
            parse_document(&m, &json!({"n": "7", "k": "long", "s": 1.26, "ip": "::1"})).unwrap();
        assert!(doc.values.contains(&("n".into(), FieldValue::Long(7))));
        assert!(doc.values.contains(&("s".into(), FieldValue::Double(1.3))));
        assert!(!doc.values.iter().any(|(p, _)| p == "k"));
        assert!(parse_document(&m, &json!({"n": 300})).is_err());
        assert!(parse_document(&m, &json!({"ip": "x"})).is_err());
        let err = parse_document(&m, &json!({"other": 1})).unwrap_err();
        assert_eq!(err.es_type(), "strict_dynamic_mapping_exception");
    }
}
