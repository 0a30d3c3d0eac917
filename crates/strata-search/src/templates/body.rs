//! [`TemplateBody`]: the `settings`, `mappings` and `aliases` a template
//! (or a create-index request) gives a new index, validated when parsed so
//! a bad template is refused when stored, not when an index is created.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::aliases::AliasMeta;
use crate::catalog::validate_alias_name;
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::settings::{flat_keys, IndexSettings};

/// Settings, mappings and aliases of a template or create request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TemplateBody {
    /// Settings by full dotted key (`index.number_of_shards`), values as strings.
    pub(crate) settings: BTreeMap<String, Value>,
    /// The mapping as written, if any.
    pub mappings: Option<Value>,
    /// Alias definitions by alias name (`{index}` stands for the new index's name).
    pub(crate) aliases: BTreeMap<String, Value>,
}

impl TemplateBody {
    /// Parses `{settings, mappings, aliases}` (each optional).
    pub(crate) fn parse(body: &Value) -> Result<TemplateBody> {
        let mut out = TemplateBody::default();
        let obj = match body {
            Value::Null => return Ok(out),
            Value::Object(o) => o,
            _ => return Err(SearchError::parsing("template must be an object")),
        };
        for (key, value) in obj {
            match key.as_str() {
                "settings" => out.settings = normalize_settings(value)?,
                "mappings" if value.is_null() => {}
                "mappings" => {
                    Mappings::parse(value)?;
                    out.mappings = Some(value.clone());
                }
                "aliases" => out.aliases = parse_aliases(value)?,
                "lifecycle" | "data_stream_options" => {}
                other => {
                    return Err(SearchError::parsing(format!(
                        "[template] unknown field [{other}]"
                    )))
                }
            }
        }
        // Refuse unknown or out-of-range settings now, as Elasticsearch does.
        IndexSettings::new(0, String::new()).apply(&settings_value(&out.settings), true)?;
        Ok(out)
    }

    /// Whether nothing is set.
    pub(crate) fn is_empty(&self) -> bool {
        self.settings.is_empty() && self.mappings.is_none() && self.aliases.is_empty()
    }

    /// The settings in the flat form [`IndexSettings::apply`] reads.
    pub fn settings_value(&self) -> Value {
        settings_value(&self.settings)
    }

    /// The body as `GET` shows it; `legacy` templates show every key even
    /// when empty, composable ones only those that are set.
    pub fn to_json(&self, legacy: bool) -> Value {
        let mut out = Map::new();
        if legacy || !self.settings.is_empty() {
            out.insert(
                "settings".into(),
                crate::dotted::nest(self.settings.iter().map(|(k, v)| (k.as_str(), v.clone()))),
            );
        }
        if legacy || self.mappings.is_some() {
            out.insert(
                "mappings".into(),
                self.mappings.clone().unwrap_or_else(|| json!({})),
            );
        }
        if legacy || !self.aliases.is_empty() {
            let aliases: Map<String, Value> = self
                .aliases
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            out.insert("aliases".into(), Value::Object(aliases));
        }
        Value::Object(out)
    }

    /// Lays `over` on top of `self`: settings by key, aliases by name,
    /// mappings merged recursively (a field whose type changes is replaced).
    pub fn merge(&mut self, over: &TemplateBody) {
        for (k, v) in &over.settings {
            self.settings.insert(k.clone(), v.clone());
        }
        for (k, v) in &over.aliases {
            self.aliases.insert(k.clone(), v.clone());
        }
        if let Some(m) = &over.mappings {
            match &mut self.mappings {
                Some(base) => merge_mappings(base, m),
                None => self.mappings = Some(m.clone()),
            }
        }
    }
}

/// Settings body to flat `index.`-prefixed keys with string values; nulls dropped.
fn normalize_settings(body: &Value) -> Result<BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    for (key, value) in flat_keys(body)? {
        let key = if key.starts_with("index.") {
            key
        } else {
            format!("index.{key}")
        };
        let text = match value {
            Value::Null => continue,
            Value::String(s) => s,
            other => other.to_string(),
        };
        out.insert(key, Value::String(text));
    }
    Ok(out)
}

fn settings_value(settings: &BTreeMap<String, Value>) -> Value {
    Value::Object(
        settings
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

fn parse_aliases(value: &Value) -> Result<BTreeMap<String, Value>> {
    let obj = match value {
        Value::Null => return Ok(BTreeMap::new()),
        Value::Object(o) => o,
        _ => return Err(SearchError::parsing("[aliases] must be an object")),
    };
    let mut out = BTreeMap::new();
    for (name, def) in obj {
        if !name.contains("{index}") {
            validate_alias_name(name)?;
        }
        out.insert(name.clone(), AliasMeta::parse(name, def)?.to_json());
    }
    Ok(out)
}

/// Recursive mapping merge: objects key by key; under `properties`, a
/// field whose `type` differs is replaced whole; `dynamic_templates`
/// entries replace those of the same name, others are appended.
pub fn merge_mappings(base: &mut Value, over: &Value) {
    let (Value::Object(b), Value::Object(o)) = (&mut *base, over) else {
        *base = over.clone();
        return;
    };
    for (key, value) in o {
        match (key.as_str(), b.get_mut(key)) {
            ("dynamic_templates", Some(Value::Array(existing))) => {
                for entry in value.as_array().into_iter().flatten() {
                    let name = entry.as_object().and_then(|e| e.keys().next().cloned());
                    let same = existing
                        .iter()
                        .position(|e| e.as_object().and_then(|e| e.keys().next().cloned()) == name);
                    match same {
                        Some(at) => existing[at] = entry.clone(),
                        None => existing.push(entry.clone()),
                    }
                }
            }
            ("properties", Some(Value::Object(fields))) => {
                for (field, def) in value.as_object().into_iter().flatten() {
                    match fields.get_mut(field) {
                        Some(current)
                            if current.get("type").is_none()
                                || def.get("type").is_none()
                                || current.get("type") == def.get("type") =>
                        {
                            merge_mappings(current, def)
                        }
                        _ => {
                            fields.insert(field.clone(), def.clone());
                        }
                    }
                }
            }
            (_, Some(current)) if current.is_object() && value.is_object() => {
                merge_mappings(current, value)
            }
            _ => {
                b.insert(key.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_merge_settings_aliases_and_fields() {
        let mut base = TemplateBody::parse(&json!({
            "settings": {"number_of_shards": 2, "index": {"refresh_interval": "5s"}},
            "mappings": {"properties": {"a": {"type": "keyword"}, "b": {"type": "long"}}},
            "aliases": {"all": {}}
        }))
        .unwrap();
        let over = TemplateBody::parse(&json!({
            "settings": {"index.number_of_shards": "3"},
            "mappings": {"properties": {"a": {"type": "text"}, "c": {"type": "date"}}},
            "aliases": {"{index}-alias": {"is_write_index": true}}
        }))
        .unwrap();
        base.merge(&over);
        assert_eq!(base.settings["index.number_of_shards"], json!("3"));
        assert_eq!(base.settings["index.refresh_interval"], json!("5s"));
        let props = &base.mappings.as_ref().unwrap()["properties"];
        assert_eq!(props["a"]["type"], "text");
        assert_eq!(props["b"]["type"], "long");
        assert_eq!(props["c"]["type"], "date");
        assert_eq!(base.aliases.len(), 2);
        assert_eq!(
            base.to_json(true)["settings"]["index"]["number_of_shards"],
            "3"
        );
    }

    #[test]
    fn bad_bodies_are_refused() {
        assert!(TemplateBody::parse(&json!({"settings": {"index.bogus": 1}})).is_err());
        assert!(TemplateBody::parse(&json!({"aliases": {"_bad": {}}})).is_err());
        assert!(TemplateBody::parse(&json!({"frob": {}})).is_err());
    }
}
