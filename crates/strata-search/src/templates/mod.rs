//! Index templates: what a new index gets when its name matches.
//!
//! - Legacy templates (`_template`): `index_patterns`, `order`,
//!   `settings`, `mappings`, `aliases`; every match applies, by ascending
//!   `order` (a higher order overrides).
//! - Composable templates (`_index_template`): `index_patterns`,
//!   `priority`, `template: {settings, mappings, aliases}`, `composed_of`
//!   component templates (`_component_template`). Only the matching one
//!   with the highest priority applies, its components first in the order
//!   listed, then its own `template`; when one matches, legacy templates
//!   are ignored (Elasticsearch 8's rule).
//!
//! [`Templates`] holds all three kinds; the catalog stores it in one file
//! (`templates.json`, replaced atomically). `compose` turns the matching
//! templates into the [`TemplateBody`] layers of a new index; `body` parses
//! and shows the `settings`/`mappings`/`aliases` part they share.

mod body;
mod compose;
mod patterns;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

pub use body::TemplateBody;
pub use patterns::patterns_overlap;

use crate::error::{Result, SearchError};

/// A legacy (`_template`) template.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyTemplate {
    /// Index name patterns (`*` wildcards).
    pub index_patterns: Vec<String>,
    /// Merge order: higher orders override lower ones.
    pub order: i64,
    /// User version number, reported back.
    pub version: Option<i64>,
    /// Settings, mappings, aliases.
    pub(crate) body: TemplateBody,
}

/// A component template (`_component_template`).
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentTemplate {
    /// Settings, mappings, aliases.
    pub(crate) template: TemplateBody,
    /// User version number, reported back.
    pub(crate) version: Option<i64>,
    /// User metadata, reported back.
    pub(crate) meta: Option<Value>,
}

/// A composable (`_index_template`) template.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexTemplate {
    /// Index name patterns (`*` wildcards).
    pub index_patterns: Vec<String>,
    /// Of all matching composable templates, the highest priority wins.
    pub priority: i64,
    /// Component templates applied first, in this order.
    pub composed_of: Vec<String>,
    /// The template's own settings, mappings, aliases (applied last).
    pub(crate) template: TemplateBody,
    /// User version number, reported back.
    pub version: Option<i64>,
    /// User metadata, reported back.
    pub(crate) meta: Option<Value>,
    /// `data_stream: {}`: names matching it are data streams.
    pub data_stream: bool,
}

/// Every template of the node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Templates {
    /// Legacy templates by name.
    pub legacy: BTreeMap<String, LegacyTemplate>,
    /// Composable templates by name.
    pub composable: BTreeMap<String, IndexTemplate>,
    /// Component templates by name.
    pub components: BTreeMap<String, ComponentTemplate>,
}

fn obj<'a>(what: &str, body: &'a Value) -> Result<&'a Map<String, Value>> {
    body.as_object()
        .ok_or_else(|| SearchError::parsing(format!("{what} must be an object")))
}

fn patterns(value: &Value) -> Result<Vec<String>> {
    let list: Vec<String> = match value {
        Value::String(s) => s.split(',').map(|p| p.trim().to_string()).collect(),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    SearchError::parsing("[index_patterns] must be strings".to_string())
                })
            })
            .collect::<Result<_>>()?,
        _ => return Err(SearchError::parsing("[index_patterns] must be a list")),
    };
    Ok(list.into_iter().filter(|p| !p.is_empty()).collect())
}

fn number(key: &str, value: &Value) -> Result<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| SearchError::parsing(format!("[{key}] must be an integer, got [{value}]")))
}

impl LegacyTemplate {
    /// Parses a `PUT _template/<name>` body.
    pub(crate) fn parse(body: &Value) -> Result<LegacyTemplate> {
        let mut out = LegacyTemplate {
            index_patterns: Vec::new(),
            order: 0,
            version: None,
            body: TemplateBody::default(),
        };
        let mut parts = Map::new();
        for (key, value) in obj("template", body)? {
            match key.as_str() {
                "index_patterns" => out.index_patterns = patterns(value)?,
                "order" => out.order = number(key, value)?,
                "version" if value.is_null() => {}
                "version" => out.version = Some(number(key, value)?),
                "settings" | "mappings" | "aliases" => {
                    parts.insert(key.clone(), value.clone());
                }
                other => {
                    return Err(SearchError::parsing(format!(
                        "unknown key [{other}] in the template"
                    )))
                }
            }
        }
        if out.index_patterns.is_empty() {
            return Err(SearchError::ActionValidation(
                "index patterns are missing".into(),
            ));
        }
        out.body = TemplateBody::parse(&Value::Object(parts))?;
        Ok(out)
    }

    /// The `GET _template` form.
    pub fn to_json(&self) -> Value {
        let mut out = json!({"order": self.order, "index_patterns": self.index_patterns});
        if let Some(v) = self.version {
            out["version"] = json!(v);
        }
        if let (Value::Object(o), Value::Object(b)) = (&mut out, self.body.to_json(true)) {
            o.extend(b);
        }
        out
    }
}

impl ComponentTemplate {
    /// Parses a `PUT _component_template/<name>` body.
    pub(crate) fn parse(body: &Value) -> Result<ComponentTemplate> {
        let mut template = None;
        let (mut version, mut meta) = (None, None);
        for (key, value) in obj("component template", body)? {
            match key.as_str() {
                "template" => template = Some(TemplateBody::parse(value)?),
                "version" if value.is_null() => {}
                "version" => version = Some(number(key, value)?),
                "_meta" => meta = Some(value.clone()),
                "deprecated" => {}
                other => {
                    return Err(SearchError::parsing(format!(
                        "[component_template] unknown field [{other}]"
                    )))
                }
            }
        }
        let template = template.ok_or_else(|| SearchError::illegal("Required [template]"))?;
        Ok(ComponentTemplate {
            template,
            version,
            meta,
        })
    }

    /// The `component_template` object of `GET _component_template`.
    pub fn to_json(&self) -> Value {
        let mut out = json!({"template": self.template.to_json(false)});
        if let Some(v) = self.version {
            out["version"] = json!(v);
        }
        if let Some(m) = &self.meta {
            out["_meta"] = m.clone();
        }
        out
    }
}

impl IndexTemplate {
    /// Parses a `PUT _index_template/<name>` body.
    pub(crate) fn parse(body: &Value) -> Result<IndexTemplate> {
        let mut out = IndexTemplate {
            index_patterns: Vec::new(),
            priority: 0,
            composed_of: Vec::new(),
            template: TemplateBody::default(),
            version: None,
            meta: None,
            data_stream: false,
        };
        let mut have_patterns = false;
        for (key, value) in obj("index template", body)? {
            match key.as_str() {
                "index_patterns" => {
                    out.index_patterns = patterns(value)?;
                    have_patterns = true;
                }
                "priority" if value.is_null() => {}
                "priority" => {
                    out.priority = number(key, value)?;
                    if out.priority < 0 {
                        return Err(SearchError::ActionValidation(
                            "index template priority must be >= 0".into(),
                        ));
                    }
                }
                "composed_of" => {
                    out.composed_of = match value {
                        Value::Null => Vec::new(),
                        other => patterns(other)?,
                    }
                }
                "template" => out.template = TemplateBody::parse(value)?,
                "version" if value.is_null() => {}
                "version" => out.version = Some(number(key, value)?),
                "_meta" => out.meta = Some(value.clone()),
                "allow_auto_create" | "deprecated" | "ignore_missing_component_templates" => {}
                "data_stream" if value.is_object() => out.data_stream = true,
                "data_stream" if value.is_null() => {}
                "data_stream" => {
                    return Err(SearchError::parsing("[data_stream] must be an object"))
                }
                other => {
                    return Err(SearchError::parsing(format!(
                        "[index_template] unknown field [{other}]"
                    )))
                }
            }
        }
        if !have_patterns {
            return Err(SearchError::illegal("Required [index_patterns]"));
        }
        Ok(out)
    }

    /// The `index_template` object of `GET _index_template`.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "index_patterns": self.index_patterns,
            "composed_of": self.composed_of,
            "priority": self.priority,
        });
        if !self.template.is_empty() {
            out["template"] = self.template.to_json(false);
        }
        if let Some(v) = self.version {
            out["version"] = json!(v);
        }
        if let Some(m) = &self.meta {
            out["_meta"] = m.clone();
        }
        if self.data_stream {
            out["data_stream"] = json!({"hidden": false, "allow_custom_routing": false});
        }
        out
    }
}

impl Templates {
    /// Reads the stored form.
    pub(crate) fn from_json(value: &Value) -> Result<Templates> {
        let mut t = Templates::default();
        let section = |key: &str| value.get(key).and_then(Value::as_object).cloned();
        for (name, body) in section("legacy").unwrap_or_default() {
            t.legacy.insert(name, LegacyTemplate::parse(&body)?);
        }
        for (name, body) in section("components").unwrap_or_default() {
            t.components.insert(name, ComponentTemplate::parse(&body)?);
        }
        for (name, body) in section("composable").unwrap_or_default() {
            t.composable.insert(name, IndexTemplate::parse(&body)?);
        }
        Ok(t)
    }

    /// The stored form.
    pub fn to_json(&self) -> Value {
        let map = |it: Vec<(String, Value)>| Value::Object(it.into_iter().collect());
        json!({
            "legacy": map(self.legacy.iter().map(|(n, t)| (n.clone(), t.to_json())).collect()),
            "components": map(self.components.iter().map(|(n, t)| (n.clone(), t.to_json())).collect()),
            "composable": map(self.composable.iter().map(|(n, t)| (n.clone(), t.to_json())).collect()),
        })
    }

    /// Adds or replaces composable template `name`, checking its components
    /// exist and that no other template with overlapping patterns has the
    /// same priority.
    pub(crate) fn put_composable(&mut self, name: &str, template: IndexTemplate) -> Result<()> {
        let missing: Vec<&str> = template
            .composed_of
            .iter()
            .filter(|c| !self.components.contains_key(*c))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(SearchError::InvalidIndexTemplate {
                name: name.to_string(),
                reason: format!(
                    "index template [{name}] specifies component templates [{}] that do not exist",
                    missing.join(", ")
                ),
            });
        }
        let clashes: Vec<(&String, &IndexTemplate)> = self
            .composable
            .iter()
            .filter(|(other, t)| {
                other.as_str() != name
                    && t.priority == template.priority
                    && t.index_patterns.iter().any(|a| {
                        template
                            .index_patterns
                            .iter()
                            .any(|b| patterns_overlap(a, b))
                    })
            })
            .collect();
        if !clashes.is_empty() {
            let names: Vec<&str> = clashes.iter().map(|(n, _)| n.as_str()).collect();
            let with: Vec<String> = clashes
                .iter()
                .map(|(n, t)| format!("{n} => [{}]", t.index_patterns.join(", ")))
                .collect();
            return Err(SearchError::illegal(format!(
                "index template [{name}] has index patterns [{}] matching patterns from existing templates [{}] with patterns ({}) that have the same priority [{}], multiple index templates may not match during index creation, please use a different priority",
                template.index_patterns.join(", "),
                names.join(","),
                with.join(","),
                template.priority
            )));
        }
        self.composable.insert(name.to_string(), template);
        Ok(())
    }

    /// Removes component template `name`, refusing while an index template uses it.
    pub(crate) fn remove_component(&mut self, name: &str) -> Result<()> {
        if !self.components.contains_key(name) {
            return Err(SearchError::ResourceNotFound(format!(
                "component template matching [{name}] not found"
            )));
        }
        let users: Vec<&str> = self
            .composable
            .iter()
            .filter(|(_, t)| t.composed_of.iter().any(|c| c == name))
            .map(|(n, _)| n.as_str())
            .collect();
        if !users.is_empty() {
            return Err(SearchError::illegal(format!(
                "component templates [{name}] cannot be removed as they are still in use by index templates [{}]",
                users.join(", ")
            )));
        }
        self.components.remove(name);
        Ok(())
    }
}
