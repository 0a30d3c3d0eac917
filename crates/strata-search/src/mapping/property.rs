//! The mapping's property tree: objects holding properties, leaves
//! holding [`FieldMapping`]s. A `properties` body is parsed into it
//! (dotted names become objects, nested objects are reported with their
//! options), flattened into leaf paths, and written back as JSON.
//!
//! A leaf of `mapping`: plain functions over the tree, naming no
//! `Mappings`, which holds the tree and calls them.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::field::FieldMapping;
use super::nested::NestedObject;
use crate::error::{Result, SearchError};

/// A node of the mapping tree.
#[derive(Debug, Clone)]
pub enum Property {
    /// An object with sub-properties.
    Object(BTreeMap<String, Property>),
    /// A leaf field.
    Field(FieldMapping),
}

/// Parses `properties` found at `prefix`; the nested objects met are
/// added to `nested` (dotted path, options).
pub(super) fn parse_properties(
    prefix: &str,
    value: &Value,
    nested: &mut Vec<(String, NestedObject)>,
) -> Result<BTreeMap<String, Property>> {
    let obj = value.as_object().ok_or_else(|| {
        SearchError::MapperParsing("Failed to parse mapping: [properties] must be an object".into())
    })?;
    let mut out = BTreeMap::new();
    for (name, body) in obj {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let body = body.as_object().ok_or_else(|| {
            SearchError::MapperParsing(format!(
                "Expected map for property [fields] on field [{path}] but got a {body}"
            ))
        })?;
        let is_nested = body.get("type").is_some_and(|t| t == "nested");
        let is_object = match body.get("type") {
            None => true,
            Some(t) => t == "object" || is_nested,
        };
        let prop = if is_object {
            if is_nested {
                // The path as written: dotted names are objects below.
                let full = path.clone();
                nested.push((full, NestedObject::parse(&path, body)?));
            }
            for key in body.keys() {
                let nested_key = is_nested && NestedObject::PARAMS.contains(&key.as_str());
                if !nested_key && !matches!(key.as_str(), "type" | "properties" | "dynamic") {
                    let ty = if is_nested { "nested" } else { "object" };
                    return Err(SearchError::MapperParsing(format!(
                        "unknown parameter [{key}] on mapper [{path}] of type [{ty}]"
                    )));
                }
            }
            let children = match body.get("properties") {
                Some(p) => parse_properties(&path, p, nested)?,
                None => BTreeMap::new(),
            };
            Property::Object(children)
        } else {
            Property::Field(FieldMapping::parse(&path, body)?)
        };
        // Dotted names in mappings are objects: `a.b` is `a` { `b` }.
        insert_dotted(&mut out, name, prop);
    }
    Ok(out)
}

fn insert_dotted(into: &mut BTreeMap<String, Property>, name: &str, prop: Property) {
    match name.split_once('.') {
        None => {
            into.insert(name.to_string(), prop);
        }
        Some((head, rest)) => {
            let entry = into
                .entry(head.to_string())
                .or_insert_with(|| Property::Object(BTreeMap::new()));
            if let Property::Object(children) = entry {
                insert_dotted(children, rest, prop);
            }
        }
    }
}

pub(super) fn flatten(
    props: &BTreeMap<String, Property>,
    prefix: &str,
) -> Vec<(String, FieldMapping)> {
    let mut out = Vec::new();
    for (name, prop) in props {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        match prop {
            Property::Field(f) => out.push((path, f.clone())),
            Property::Object(children) => out.extend(flatten(children, &path)),
        }
    }
    out
}

pub(super) fn properties_json(
    props: &BTreeMap<String, Property>,
    prefix: &str,
    nested: &BTreeMap<String, NestedObject>,
) -> Value {
    let map: Map<String, Value> = props
        .iter()
        .map(|(name, prop)| {
            let v = match prop {
                Property::Field(f) => f.to_json(),
                Property::Object(children) => {
                    let path = if prefix.is_empty() {
                        name.clone()
                    } else {
                        format!("{prefix}.{name}")
                    };
                    let mut out = match nested.get(&path) {
                        Some(object) => object.to_json(),
                        None => json!({}),
                    };
                    if !children.is_empty() || nested.get(&path).is_none() {
                        out["properties"] = properties_json(children, &path, nested);
                    }
                    out
                }
            };
            (name.clone(), v)
        })
        .collect();
    Value::Object(map)
}
