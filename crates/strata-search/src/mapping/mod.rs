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

pub mod date;
pub mod document;
pub mod dynamic_template;
mod field;
pub mod geo;
pub mod nested;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

pub use dynamic_template::{DetectedType, DynamicTemplate, TemplateMapping};
pub use field::{FieldMapping, FieldType};
pub use nested::NestedObject;

use crate::error::{Result, SearchError};

/// What happens to fields the mapping does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dynamic {
    /// Add them to the mapping (the default).
    True,
    /// Keep them in `_source` only.
    False,
    /// Reject the document.
    Strict,
}

/// A node of the mapping tree.
#[derive(Debug, Clone)]
pub enum Property {
    /// An object with sub-properties.
    Object(BTreeMap<String, Property>),
    /// A leaf field.
    Field(FieldMapping),
}

/// An index's mapping.
#[derive(Debug, Clone)]
pub struct Mappings {
    properties: BTreeMap<String, Property>,
    /// The root `dynamic` setting.
    pub dynamic: Dynamic,
    /// Whether dynamic mapping maps date-like strings to `date`.
    pub date_detection: bool,
    /// `dynamic_templates`, in order (the first match wins).
    dynamic_templates: Vec<DynamicTemplate>,
    leaves: BTreeMap<String, FieldMapping>,
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
            leaves: BTreeMap::new(),
            nested: BTreeMap::new(),
            runtime: Map::new(),
        }
    }
}

impl Mappings {
    /// Parses a `mappings` body (`{"properties": ..., "dynamic": ..., "date_detection": ...}`).
    pub fn parse(body: &Value) -> Result<Mappings> {
        let mut mappings = Mappings::default();
        mappings.merge_json(body)?;
        Ok(mappings)
    }

    /// Merges a `PUT _mapping` body: new fields are added; a field may not
    /// change type; a dynamic template replaces the one of the same name in
    /// place, or is appended.
    pub fn merge_json(&mut self, body: &Value) -> Result<()> {
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
    pub fn add_leaf(&mut self, path: &str, leaf: FieldMapping) -> Result<()> {
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
        node.insert((*last).to_string(), Property::Field(leaf));
        Ok(())
    }

    /// The leaf at a dotted path (multi-fields included).
    pub fn leaf(&self, path: &str) -> Option<&FieldMapping> {
        self.leaves.get(path)
    }

    /// The `runtime` section, if any.
    pub fn runtime_section(&self) -> Option<Value> {
        (!self.runtime.is_empty()).then(|| Value::Object(self.runtime.clone()))
    }

    /// Every leaf path, sorted.
    pub fn leaf_paths(&self) -> impl Iterator<Item = (&String, &FieldMapping)> {
        self.leaves.iter()
    }

    /// The first dynamic template for a new field at `path` detected as `ty`.
    pub fn find_template(&self, path: &str, ty: DetectedType) -> Option<&DynamicTemplate> {
        self.dynamic_templates.iter().find(|t| t.matches(path, ty))
    }

    /// True when `path` is an object in the mapping.
    pub fn is_object(&self, path: &str) -> bool {
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
    pub fn shape(&self) -> MappingShape {
        let mut shape = MappingShape::default();
        let mut deepest_dots = None;
        let mut stack: Vec<(String, &BTreeMap<String, Property>)> =
            vec![(String::new(), &self.properties)];
        while let Some((prefix, props)) = stack.pop() {
            for (name, prop) in props {
                shape.note_name(name);
                let path = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}.{name}")
                };
                shape.fields += 1;
                match prop {
                    Property::Field(leaf) => {
                        for sub in leaf.fields.keys() {
                            shape.note_name(sub);
                            shape.fields += 1;
                        }
                    }
                    Property::Object(children) => {
                        let dots = path.matches('.').count();
                        if deepest_dots.is_none_or(|d| dots > d) {
                            deepest_dots = Some(dots);
                            shape.deepest_object = Some(path.clone());
                        }
                        stack.push((path, children));
                    }
                }
            }
        }
        shape
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

/// What [`Mappings::shape`] counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MappingShape {
    /// Fields, multi-fields and objects (Elasticsearch's total fields).
    pub fields: u64,
    /// The path of an object nested deepest, if any.
    pub deepest_object: Option<String>,
    /// The longest field or object name (one level, not a path).
    pub longest_name: String,
}

impl MappingShape {
    fn note_name(&mut self, name: &str) {
        if name.chars().count() > self.longest_name.chars().count() {
            self.longest_name = name.to_string();
        }
    }

    /// The shallowest object whose depth passes `limit`, if any (the
    /// root is depth 1, an object `a.b` depth 3, as Elasticsearch counts).
    pub fn deepest_object_beyond(&self, limit: u64) -> Option<String> {
        let path = self.deepest_object.as_deref()?;
        let depth = path.matches('.').count() as u64 + 2;
        if depth <= limit {
            return None;
        }
        let keep = usize::try_from(limit.max(1)).unwrap_or(usize::MAX);
        Some(path.split('.').take(keep).collect::<Vec<_>>().join("."))
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

/// Parses `properties` found at `prefix`; the nested objects met are
/// added to `nested` (dotted path, options).
fn parse_properties(
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

fn flatten(props: &BTreeMap<String, Property>, prefix: &str) -> Vec<(String, FieldMapping)> {
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

fn properties_json(
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
