//! A document's `_source` turned into typed values under the mapping, with
//! the fields dynamic mapping adds. Pure: the caller decides whether to
//! apply the new fields to the index's mapping.

use std::borrow::Cow;

use serde_json::Value;

use super::geo::parse_points;
use super::{FieldMapping, FieldType, Mappings};
use crate::error::{Result, SearchError};
use crate::store::geo_codes::{Axis, Latitude, Longitude};
use crate::store::geo_columns::{lat_code_path, lon_code_path};

mod convert;
mod dynamic;

use convert::convert_owned;
pub use convert::{convert, FieldValue};
use dynamic::{dynamic_leaf, object_as_leaf};

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
            if let Some(leaf) = object_as_leaf(mappings, &doc.new_fields, path)? {
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

/// A geo_point value (one point or an array of them) as pairs of codes
/// (`store::geo_columns`).
fn add_points(path: &str, leaf: &FieldMapping, value: &Value, doc: &mut ParsedDoc) -> Result<()> {
    for point in parse_points(value) {
        match point {
            Ok(p) => {
                let (lat, lon) = (Latitude::encode(p.lat), Longitude::encode(p.lon));
                doc.values
                    .push((lat_code_path(path), FieldValue::Long(lat.into())));
                doc.values
                    .push((lon_code_path(path), FieldValue::Long(lon.into())));
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

/// A scalar's value for a mapped leaf and for each of its multi-fields.
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

#[cfg(test)]
mod tests;
