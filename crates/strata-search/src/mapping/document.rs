//! A document's `_source` turned into typed values under the mapping, with
//! the fields dynamic mapping adds. Pure: the caller decides whether to
//! apply the new fields to the index's mapping.

use std::borrow::Cow;

use serde_json::Value;

use super::date::looks_like_date;
use super::geo::parse_points;
use super::{DetectedType, Dynamic, FieldMapping, FieldType, Mappings, TemplateMapping};
use crate::error::{Result, SearchError};
use crate::store::geo_columns::{lat_path, lon_path};

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
    /// The objects of nested fields, each a document of its own, every
    /// one after the objects nested in it (the order they are indexed in,
    /// before the root document).
    pub nested: Vec<NestedDoc>,
    /// Values of nested objects with `include_in_root`, for the root.
    root_extra: Vec<(String, FieldValue)>,
}

/// One object of a nested field.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedDoc {
    /// The nested field's dotted path.
    pub path: String,
    /// Its values, at their full dotted paths (`comments.author`).
    pub values: Vec<(String, FieldValue)>,
}

/// Parses `source` (a JSON object) under `mappings`. Strings move into
/// the values, so `source` is consumed.
/// Every error is a `document_parsing_exception` (as in Elasticsearch 8),
/// except `dynamic: strict` refusals, which keep their own type.
pub fn parse_document(mappings: &Mappings, source: Value) -> Result<ParsedDoc> {
    parse_fields(mappings, source).map_err(|e| match e {
        SearchError::MapperParsing(reason) => SearchError::DocumentParsing(reason),
        other => other,
    })
}

fn parse_fields(mappings: &Mappings, mut source: Value) -> Result<ParsedDoc> {
    let obj = source.as_object_mut().ok_or_else(|| {
        SearchError::DocumentParsing("failed to parse, document is empty or not an object".into())
    })?;
    let mut doc = ParsedDoc::default();
    // One buffer holds the dotted path of the value being walked: each
    // level appends `.key` and truncates back, so walking allocates no path.
    let mut path = String::with_capacity(64);
    for (key, value) in obj {
        path.clear();
        path.push_str(key);
        walk(mappings, &mut path, value, &mut doc)?;
    }
    let extra = std::mem::take(&mut doc.root_extra);
    doc.values.extend(extra);
    Ok(doc)
}

/// The objects of the nested field at `path` (an object or an array of
/// them), each walked into a [`NestedDoc`] of its own.
fn walk_nested(
    mappings: &Mappings,
    path: &mut String,
    value: &mut Value,
    doc: &mut ParsedDoc,
) -> Result<()> {
    let options = mappings.nested_object(path).copied().unwrap_or_default();
    match value {
        Value::Null => Ok(()),
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|v| walk_nested(mappings, path, v, doc)),
        Value::Object(obj) => {
            // The object's values go to a document of their own: the
            // parent's are set aside while it is walked.
            let parent_values = std::mem::take(&mut doc.values);
            let path_now = path.len();
            let mut walked = Ok(());
            for (key, v) in obj {
                path.push('.');
                path.push_str(key);
                walked = walk(mappings, path, v, doc);
                path.truncate(path_now);
                if walked.is_err() {
                    break;
                }
            }
            let values = std::mem::replace(&mut doc.values, parent_values);
            walked?;
            if options.include_in_parent {
                doc.values.extend(values.iter().cloned());
            }
            // The parent is the root when no nested object is above.
            let parent_is_root = mappings.nested_scope_of(path, false).is_none();
            if options.include_in_root && !(options.include_in_parent && parent_is_root) {
                doc.root_extra.extend(values.iter().cloned());
            }
            doc.nested.push(NestedDoc {
                path: path.clone(),
                values,
            });
            Ok(())
        }
        _ => Err(SearchError::MapperParsing(format!(
            "object mapping for [{path}] tried to parse field [{path}] as object, but found a concrete value"
        ))),
    }
}

/// Walks `value` at `path`; `path` is restored to its value on entry
/// before returning (errors aside).
fn walk(
    mappings: &Mappings,
    path: &mut String,
    value: &mut Value,
    doc: &mut ParsedDoc,
) -> Result<()> {
    if path.is_empty() || path.starts_with('.') || path.ends_with('.') || path.contains("..") {
        return Err(SearchError::MapperParsing(format!(
            "field name cannot contain only whitespace or dots: ['{path}']"
        )));
    }
    if value.is_null() {
        return Ok(());
    }
    if mappings.nested_object(path).is_some() {
        return walk_nested(mappings, path, value, doc);
    }
    if let Some(leaf) = leaf_of(mappings, doc, path) {
        return add_leaf_values(path, &leaf, value, doc);
    }
    let path_now = path.len();
    match value {
        Value::Array(items) => {
            // An array takes the mapping its first value would get.
            match items.iter().find(|v| !v.is_null()) {
                Some(first) if !first.is_array() && !first.is_object() => {
                    match dynamic_leaf(mappings, path, first)? {
                        Some(leaf) => {
                            doc.new_fields.push((path.to_string(), leaf.clone()));
                            add_leaf_values(path, &leaf, value, doc)
                        }
                        None => Ok(()),
                    }
                }
                _ => items
                    .iter_mut()
                    .try_for_each(|v| walk(mappings, path, v, doc)),
            }
        }
        Value::Object(obj) => {
            if let Some(leaf) = object_as_leaf(mappings, doc, path)? {
                doc.new_fields.push((path.to_string(), leaf.clone()));
                return add_leaf_values(path, &leaf, value, doc);
            }
            for (key, v) in obj {
                path.push('.');
                path.push_str(key);
                walk(mappings, path, v, doc)?;
                path.truncate(path_now);
            }
            Ok(())
        }
        scalar => match dynamic_leaf(mappings, path, scalar)? {
            Some(leaf) => {
                doc.new_fields.push((path.to_string(), leaf.clone()));
                add_values(path, &leaf, scalar, doc)
            }
            None => Ok(()),
        },
    }
}

/// The values of a mapped leaf: arrays flattened, objects refused.
fn add_leaf_values(
    path: &str,
    leaf: &FieldMapping,
    value: &mut Value,
    doc: &mut ParsedDoc,
) -> Result<()> {
    if leaf.ty == FieldType::GeoPoint {
        return add_points(path, leaf, value, doc);
    }
    match value {
        Value::Null => Ok(()),
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|v| add_leaf_values(path, leaf, v, doc)),
        Value::Object(_) => Err(SearchError::MapperParsing(format!(
            "failed to parse field [{path}]: tried to parse field [{path}] as a concrete value, but found an object"
        ))),
        scalar => add_values(path, leaf, scalar, doc),
    }
}

/// A geo_point value (one point or an array of them) as `path.lat`/`path.lon` pairs.
fn add_points(path: &str, leaf: &FieldMapping, value: &Value, doc: &mut ParsedDoc) -> Result<()> {
    for point in parse_points(value) {
        match point {
            Ok(p) => {
                doc.values.push((lat_path(path), FieldValue::Double(p.lat)));
                doc.values.push((lon_path(path), FieldValue::Double(p.lon)));
            }
            Err(_) if leaf.ignore_malformed => {}
            Err(reason) => {
                return Err(SearchError::MapperParsing(format!(
                    "failed to parse field [{path}] of type [geo_point]: {reason}"
                )))
            }
        }
    }
    Ok(())
}

/// The leaf mapped at `path`: borrowed from the mapping (every field of a
/// document after the first of its kind), or a copy of one this document
/// added.
fn leaf_of<'m>(
    mappings: &'m Mappings,
    doc: &ParsedDoc,
    path: &str,
) -> Option<Cow<'m, FieldMapping>> {
    match mappings.leaf(path) {
        Some(leaf) => Some(Cow::Borrowed(leaf)),
        None => doc
            .new_fields
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, l)| Cow::Owned(l.clone())),
    }
}

fn leaf_name(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// A new object at `path` that a dynamic template maps to a leaf type.
fn object_as_leaf(
    mappings: &Mappings,
    doc: &ParsedDoc,
    path: &str,
) -> Result<Option<FieldMapping>> {
    // Cheapest first: every object of a document after the first of its
    // kind is in the mapping.
    if mappings.dynamic != Dynamic::True || mappings.is_object(path) {
        return Ok(None);
    }
    let below =
        |p: &str| p.len() > path.len() && p.starts_with(path) && p.as_bytes()[path.len()] == b'.';
    if doc.new_fields.iter().any(|(p, _)| below(p)) {
        return Ok(None);
    }
    let Some(template) = mappings.find_template(path, DetectedType::Object) else {
        return Ok(None);
    };
    match template.mapping_for(leaf_name(path), DetectedType::Object)? {
        TemplateMapping::Object => Ok(None),
        TemplateMapping::Field(leaf) => Ok(Some(leaf)),
    }
}

/// The type dynamic mapping detects for a scalar.
fn detect(mappings: &Mappings, value: &Value) -> DetectedType {
    match value {
        Value::Bool(_) => DetectedType::Boolean,
        Value::Number(n) if n.is_i64() || n.is_u64() => DetectedType::Long,
        Value::Number(_) => DetectedType::Double,
        Value::String(s) if mappings.date_detection && looks_like_date(s) => DetectedType::Date,
        _ => DetectedType::String,
    }
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
    let as_object = || {
        SearchError::MapperParsing(format!(
            "object mapping for [{path}] tried to parse field [{path}] as object, but found a concrete value"
        ))
    };
    if mappings.is_object(path) {
        return Err(as_object());
    }
    let ty = detect(mappings, value);
    if let Some(template) = mappings.find_template(path, ty) {
        return match template.mapping_for(leaf_name(path), ty)? {
            TemplateMapping::Field(leaf) => Ok(Some(leaf)),
            TemplateMapping::Object => Err(as_object()),
        };
    }
    let leaf = match ty {
        DetectedType::Boolean => FieldMapping::of(FieldType::Boolean),
        DetectedType::Long => FieldMapping::of(FieldType::Long),
        DetectedType::Double => FieldMapping::of(FieldType::Float),
        DetectedType::Date => FieldMapping::of(FieldType::Date),
        _ => FieldMapping::dynamic_string(),
    };
    Ok(Some(leaf))
}

fn add_values(
    path: &str,
    leaf: &FieldMapping,
    value: &mut Value,
    doc: &mut ParsedDoc,
) -> Result<()> {
    if leaf.fields.is_empty() {
        // The only use of this value: its string moves into the document.
        if let Some(v) = convert_owned(path, leaf, value)? {
            doc.values.push((path.to_string(), v));
        }
        return Ok(());
    }
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

/// [`convert`], taking a string out of `value` instead of copying it
/// (text and keyword fields); `value` is not to be read again.
fn convert_owned(path: &str, leaf: &FieldMapping, value: &mut Value) -> Result<Option<FieldValue>> {
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
            json!({"a": 1, "b": 1.5, "c": "hello", "d": "2024-01-01T00:00:00Z", "e": {"f": true}, "g": [1, 2], "n": null}),
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
            parse_document(&m, json!({"n": "7", "k": "long", "s": 1.26, "ip": "::1"})).unwrap();
        assert!(doc.values.contains(&("n".into(), FieldValue::Long(7))));
        assert!(doc.values.contains(&("s".into(), FieldValue::Double(1.3))));
        assert!(!doc.values.iter().any(|(p, _)| p == "k"));
        assert!(parse_document(&m, json!({"n": 300})).is_err());
        assert!(parse_document(&m, json!({"ip": "x"})).is_err());
        let err = parse_document(&m, json!({"other": 1})).unwrap_err();
        assert_eq!(err.es_type(), "strict_dynamic_mapping_exception");
    }

    #[test]
    fn dynamic_templates_choose_new_mappings() {
        let m = Mappings::parse(&json!({"dynamic_templates": [
            {"ids": {"match_mapping_type": "string", "match": "*_id", "mapping": {"type": "keyword"}}},
            {"longs_as_doubles": {"match_mapping_type": "long", "path_match": "metrics.*", "path_unmatch": "metrics.raw.*", "mapping": {"type": "double"}}},
            {"objects_as_points": {"match_mapping_type": "object", "match": "*_flag", "mapping": {"type": "boolean"}}},
            {"typed": {"match": "t_*", "mapping": {"type": "{dynamic_type}"}}},
            {"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword", "ignore_above": 4}}}
        ]}))
        .unwrap();
        let doc = parse_document(
            &m,
            json!({"user_id": "u-123456", "name": "abcdef", "metrics": {"n": 3, "raw": {"n": 4}},
                    "t_f": 1.5, "t_s": "x", "t_l": [2, 3], "when": "2024-01-01T00:00:00Z", "n": 7}),
        )
        .unwrap();
        let ty = |p: &str| {
            doc.new_fields
                .iter()
                .find(|(q, _)| q == p)
                .map(|(_, l)| l.ty)
        };
        assert_eq!(ty("user_id"), Some(FieldType::Keyword));
        assert_eq!(ty("name"), Some(FieldType::Keyword));
        assert_eq!(ty("metrics.n"), Some(FieldType::Double));
        assert_eq!(ty("metrics.raw.n"), Some(FieldType::Long));
        assert_eq!(ty("t_f"), Some(FieldType::Float));
        assert_eq!(ty("t_s"), Some(FieldType::Text));
        assert_eq!(ty("t_l"), Some(FieldType::Long));
        // No template for dates or plain longs: today's rules.
        assert_eq!(ty("when"), Some(FieldType::Date));
        assert_eq!(ty("n"), Some(FieldType::Long));
        // `ignore_above` from the template applies; the first template wins for user_id.
        assert!(doc
            .values
            .contains(&("user_id".into(), FieldValue::Keyword("u-123456".into()))));
        assert!(!doc.values.iter().any(|(p, _)| p == "name"));
        assert!(!doc.new_fields.iter().any(|(p, _)| p == "name.keyword"));
        // An object a template maps to a leaf is parsed as that leaf.
        let err = parse_document(&m, json!({"x_flag": {"a": 1}})).unwrap_err();
        assert_eq!(err.es_type(), "document_parsing_exception");
        // Templates only apply under dynamic: true.
        let mut strict = m.clone();
        strict.dynamic = Dynamic::False;
        assert!(parse_document(&strict, json!({"user_id": "a"}))
            .unwrap()
            .new_fields
            .is_empty());
    }
}
