//! Mappings: which fields an index has and how each is indexed.
//!
//! A mapping is a tree of objects (`properties`) whose leaves are
//! [`FieldMapping`]s; [`Mappings::leaf`] looks a leaf up by its dotted path
//! (`nginx.access.url`, multi-fields as `message.keyword`). Dynamic mapping
//! adds leaves as documents bring new fields (`document.rs`).
//!
//! - `field`: one leaf's type and parameters.
//! - `date`: date formats and epoch-millisecond conversion.
//! - `document`: a `_source` turned into typed values under the mapping.
//! - `dynamic_template`: `dynamic_templates`, choosing the mapping of new fields.
//! - `geo`: `geo_point` input forms and geohashes.
//! - `nested`: `type: nested` objects, indexed as documents of their own.
//! - `property`: the property tree ([`Property`]) parsed, flattened and
//!   written back (a leaf: it names no [`Mappings`]).
//! - `shape`: what the mapping limits count over the tree (a leaf).

pub mod date;
pub mod document;
pub mod dynamic_template;
mod field;
pub mod geo;
pub mod nested;
mod property;
mod shape;

use std::collections::BTreeMap;

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;
use serde_json::{json, Map, Value};

pub(crate) use dynamic_template::{DetectedType, DynamicTemplate, TemplateMapping};
pub(crate) use field::FieldMapping;
pub use field::FieldType;
pub(crate) use nested::NestedObject;
pub use property::Property;
use property::{flatten, parse_properties, properties_json};
pub(crate) use shape::MappingShape;

use crate::error::{Result, SearchError};

/// What happens to fields the mapping does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dynamic {
    /// Add them to the mapping (the default).
    True,
    /// Keep them in `_source` only.
    False,
    /// Reject the document.
    Strict,
}

/// An index's mapping.
#[derive(Debug, Clone)]
pub struct Mappings {
    properties: BTreeMap<String, Property>,
    /// The root `dynamic` setting.
    pub(crate) dynamic: Dynamic,
    /// Whether dynamic mapping maps date-like strings to `date`.
    pub(crate) date_detection: bool,
    /// `dynamic_templates`, in order (the first match wins).
    dynamic_templates: Vec<DynamicTemplate>,
    /// Leaves by dotted path (multi-fields too), in order; hashed for indexing's lookups.
    leaves: IndexMap<String, FieldMapping, FxBuildHasher>,
    /// The objects mapped `type: nested`, by dotted path.
    nested: BTreeMap<String, NestedObject>,
    /// The `runtime` section: runtime field definitions by name, checked
    /// by the index (`script::fields`) and used by its searches.
    runtime: Map<String, Value>,
}

impl Default for Mappings {
    fn default() -> Self {
        Mappings {
            properties: BTreeMap::new(),
            dynamic: Dynamic::True,
            date_detection: true,
            dynamic_templates: Vec::new(),
            leaves: IndexMap::default(),
            nested: BTreeMap::new(),
            runtime: Map::new(),
        }
    }
}

impl Mappings {
    /// Parses a `mappings` body (`{"properties": ..., "dynamic": ..., "date_detection": ...}`).
    pub(crate) fn parse(body: &Value) -> Result<Mappings> {
        let mut mappings = Mappings::default();
        mappings.merge_json(body)?;
        Ok(mappings)
    }

    /// Merges a `PUT _mapping` body: new fields are added; a field may not
    /// change type; a dynamic template replaces the one of the same name in
    /// place, or is appended.
    pub(crate) fn merge_json(&mut self, body: &Value) -> Result<()> {
        let obj = body.as_object().ok_or_else(|| {
            SearchError::MapperParsing("Failed to parse mapping: expected an object".into())
        })?;
        let mut next = self.clone();
        for (key, value) in obj {
            match key.as_str() {
                "properties" => {
                    let mut nested = Vec::new();
                    let props = parse_properties("", value, &mut nested)?;
                    for (path, object) in nested {
                        next.add_nested(&path, object)?;
                    }
                    for (path, leaf) in flatten(&props, "") {
                        next.add_leaf(&path, leaf)?;
                    }
                }
                "dynamic" => next.dynamic = parse_dynamic(value)?,
                "dynamic_templates" => {
                    let entries = value.as_array().ok_or_else(|| {
                        SearchError::MapperParsing(format!(
                            "Dynamic template syntax error. An array of named objects is expected, got [{value}]"
                        ))
                    })?;
                    for entry in entries {
                        let template = DynamicTemplate::parse(entry)?;
                        match next
                            .dynamic_templates
                            .iter_mut()
                            .find(|t| t.name == template.name)
                        {
                            Some(existing) => *existing = template,
                            None => next.dynamic_templates.push(template),
                        }
                    }
                }
                "runtime" => {
                    let fields = value.as_object().ok_or_else(|| {
                        SearchError::MapperParsing("[runtime] must be an object".into())
                    })?;
                    for (name, def) in fields {
                        // As Elasticsearch: `null` removes the field.
                        if def.is_null() {
                            next.runtime.remove(name);
                        } else {
                            next.runtime.insert(name.clone(), def.clone());
                        }
                    }
                }
                "date_detection" => {
                    next.date_detection = value.as_bool().ok_or_else(|| {
                        SearchError::MapperParsing("[date_detection] must be a boolean".into())
                    })?
                }
                "_source" if value.get("enabled") != Some(&Value::Bool(false)) => {}
                other => {
                    return Err(SearchError::MapperParsing(format!(
                        "Root mapping definition has unsupported parameters:  [{other} : {value}]"
                    )))
                }
            }
        }
        *self = next;
        Ok(())
    }

    /// Adds (or confirms) the leaf at `path`, creating parent objects.
    pub(crate) fn add_leaf(&mut self, path: &str, leaf: FieldMapping) -> Result<()> {
        if let Some(existing) = self.leaves.get(path) {
            if !existing.compatible_with(&leaf) {
                return Err(SearchError::IllegalArgument(format!(
                    "mapper [{path}] cannot be changed from type [{}] to [{}]",
                    existing.ty.name(),
                    leaf.ty.name()
                )));
            }
        }
        let mut node = &mut self.properties;
        let parts: Vec<&str> = path.split('.').collect();
        let (last, parents) = parts.split_last().ok_or_else(|| {
            SearchError::MapperParsing("field name cannot be an empty string".into())
        })?;
        for (i, part) in parents.iter().enumerate() {
            let entry = node
                .entry((*part).to_string())
                .or_insert_with(|| Property::Object(BTreeMap::new()));
            node = match entry {
                Property::Object(children) => children,
                Property::Field(_) => {
                    return Err(SearchError::MapperParsing(format!(
                        "Could not dynamically add mapping for field [{path}]. Existing mapping for [{}] must be of type object but found [field].",
                        parts[..=i].join(".")
                    )))
                }
            };
        }
        if let Some(Property::Object(_)) = node.get(*last) {
            return Err(SearchError::MapperParsing(format!(
                "can't merge a non object mapping [{path}] with an object mapping"
            )));
        }
        self.leaves.insert(path.to_string(), leaf.clone());
        for (sub, sub_leaf) in &leaf.fields {
            self.leaves
                .insert(format!("{path}.{sub}"), sub_leaf.clone());
        }
        self.leaves.sort_unstable_keys(); // new paths went to the end
        node.insert((*last).to_string(), Property::Field(leaf));
        Ok(())
    }

    /// Declares the object at `path` nested (creating it and the objects
    /// above it). An existing plain object, or a leaf, cannot become
    /// nested, nor a nested object plain, as in Elasticsearch.
    pub(crate) fn add_nested(&mut self, path: &str, object: NestedObject) -> Result<()> {
        if self.leaves.contains_key(path) {
            return Err(SearchError::MapperParsing(format!(
                "can't merge a non object mapping [{path}] with an object mapping"
            )));
        }
        if self.is_object(path) && !self.nested.contains_key(path) {
            return Err(SearchError::IllegalArgument(format!(
                "can't merge a non-nested mapping [{path}] with a nested mapping"
            )));
        }
        let mut node = &mut self.properties;
        for (i, part) in path.split('.').enumerate() {
            let entry = node
                .entry(part.to_string())
                .or_insert_with(|| Property::Object(BTreeMap::new()));
            node = match entry {
                Property::Object(children) => children,
                Property::Field(_) => {
                    let above: Vec<&str> = path.split('.').take(i + 1).collect();
                    return Err(SearchError::MapperParsing(format!(
                        "Could not dynamically add mapping for field [{path}]. Existing mapping for [{}] must be of type object but found [field].",
                        above.join(".")
                    )));
                }
            };
        }
        self.nested.insert(path.to_string(), object);
        Ok(())
    }

    /// The nested object at exactly `path`, if `path` is one.
    pub(crate) fn nested_object(&self, path: &str) -> Option<&NestedObject> {
        self.nested.get(path)
    }

    /// Whether the mapping has any nested object (then every search is
    /// narrowed to root documents).
    pub(crate) fn has_nested(&self) -> bool {
        !self.nested.is_empty()
    }

    /// The nested objects' paths, sorted.
    pub(crate) fn nested_paths(&self) -> impl Iterator<Item = &String> {
        self.nested.keys()
    }

    /// The deepest nested object strictly above `path` (or `path` itself
    /// when `inclusive`), if any: the nested scope a field belongs to.
    pub(crate) fn nested_scope_of(&self, path: &str, inclusive: bool) -> Option<&str> {
        let mut best = None;
        for (dot, _) in path.match_indices('.') {
            if let Some((p, _)) = self.nested.get_key_value(&path[..dot]) {
                best = Some(p.as_str());
            }
        }
        if inclusive {
            if let Some((p, _)) = self.nested.get_key_value(path) {
                best = Some(p.as_str());
            }
        }
        best
    }

    /// The leaf at a dotted path (multi-fields included).
    pub fn leaf(&self, path: &str) -> Option<&FieldMapping> {
        self.leaves.get(path)
    }

    /// The `runtime` section, if any.
    pub(crate) fn runtime_section(&self) -> Option<Value> {
        (!self.runtime.is_empty()).then(|| Value::Object(self.runtime.clone()))
    }

    /// Every leaf path, sorted.
    pub fn leaf_paths(&self) -> impl Iterator<Item = (&String, &FieldMapping)> {
        self.leaves.iter()
    }

    /// The first dynamic template for a new field at `path` detected as `ty`.
    pub(crate) fn find_template(&self, path: &str, ty: DetectedType) -> Option<&DynamicTemplate> {
        self.dynamic_templates.iter().find(|t| t.matches(path, ty))
    }

    /// True when `path` is an object in the mapping.
    pub(crate) fn is_object(&self, path: &str) -> bool {
        let mut node = &self.properties;
        let mut found = false;
        for part in path.split('.') {
            match node.get(part) {
                Some(Property::Object(children)) => {
                    node = children;
                    found = true;
                }
                _ => return false,
            }
        }
        found
    }

    /// The counts the mapping limits check: fields and objects, the
    /// deepest object, the longest field name. One walk, no recursion.
    pub(crate) fn shape(&self) -> MappingShape {
        shape::shape_of(&self.properties)
    }

    /// The mapping as Elasticsearch writes it.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        if self.dynamic != Dynamic::True {
            let d = if self.dynamic == Dynamic::Strict {
                json!("strict")
            } else {
                json!(false)
            };
            out.insert("dynamic".into(), d);
        }
        if !self.date_detection {
            out.insert("date_detection".into(), json!(false));
        }
        if !self.dynamic_templates.is_empty() {
            let templates = self.dynamic_templates.iter().map(DynamicTemplate::to_json);
            out.insert(
                "dynamic_templates".into(),
                Value::Array(templates.collect()),
            );
        }
        if !self.runtime.is_empty() {
            out.insert("runtime".into(), Value::Object(self.runtime.clone()));
        }
        if !self.properties.is_empty() {
            out.insert(
                "properties".into(),
                properties_json(&self.properties, "", &self.nested),
            );
        }
        Value::Object(out)
    }
}

fn parse_dynamic(value: &Value) -> Result<Dynamic> {
    match value {
        Value::Bool(true) => Ok(Dynamic::True),
        Value::Bool(false) => Ok(Dynamic::False),
        Value::String(s) if s == "true" => Ok(Dynamic::True),
        Value::String(s) if s == "false" => Ok(Dynamic::False),
        Value::String(s) if s == "strict" => Ok(Dynamic::Strict),
        other => Err(SearchError::MapperParsing(format!(
            "Could not convert [dynamic] to boolean or \"strict\": [{other}]"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_nested_dotted_and_multi_fields() {
        let m = Mappings::parse(&json!({"properties": {
            "a.b": {"type": "keyword", "ignore_above": 5},
            "msg": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
            "geo": {"properties": {"n": {"type": "long"}}}
        }}))
        .unwrap();
        assert_eq!(m.leaf("a.b").unwrap().ignore_above, Some(5));
        assert_eq!(m.leaf("msg.raw").unwrap().ty, FieldType::Keyword);
        assert_eq!(m.leaf("geo.n").unwrap().ty, FieldType::Long);
        assert!(m.is_object("geo"));
        let back = m.to_json();
        assert_eq!(
            back["properties"]["a"]["properties"]["b"]["type"],
            "keyword"
        );
    }

    #[test]
    fn rejects_unknown_types_params_and_type_changes() {
        assert!(Mappings::parse(&json!({"properties": {"x": {"type": "nope"}}})).is_err());
        assert!(
            Mappings::parse(&json!({"properties": {"x": {"type": "long", "bogus": 1}}})).is_err()
        );
        let mut m = Mappings::parse(&json!({"properties": {"x": {"type": "long"}}})).unwrap();
        let err = m
            .merge_json(&json!({"properties": {"x": {"type": "keyword"}}}))
            .unwrap_err();
        assert_eq!(err.es_type(), "illegal_argument_exception");
    }
}
