//! Index aliases: secondary names for one or more indices, each link with
//! an optional filter (a query applied when searching through the alias),
//! routing values and the `is_write_index` flag.
//!
//! [`Aliases`] is the node's whole alias table (alias → index → link). The
//! catalog keeps it in one file (`aliases.json`), replaced atomically, so
//! a `POST /_aliases` request or a rollover changes every link at once, as
//! Elasticsearch's cluster-state update does. This module knows nothing of
//! indices themselves: the catalog checks that targets exist.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::error::{Result, SearchError};

/// One link from an alias to an index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AliasMeta {
    /// Query every search through the alias is filtered by.
    pub filter: Option<Value>,
    /// Routing of writes through the alias (kept and reported; a single
    /// node routes by id whatever it says).
    pub index_routing: Option<String>,
    /// Routing of searches through the alias (kept and reported).
    pub search_routing: Option<String>,
    /// Whether writes through the alias go to this index.
    pub is_write_index: Option<bool>,
    /// Whether wildcards skip the alias (kept and reported).
    pub is_hidden: Option<bool>,
}

impl AliasMeta {
    /// Parses an alias definition: `filter`, `routing`, `index_routing`,
    /// `search_routing`, `is_write_index`, `is_hidden`. `Null` is an empty
    /// definition. Other keys are refused.
    pub fn parse(alias: &str, body: &Value) -> Result<AliasMeta> {
        let mut meta = AliasMeta::default();
        let obj = match body {
            Value::Null => return Ok(meta),
            Value::Object(o) => o,
            other => {
                return Err(SearchError::parsing(format!(
                    "alias [{alias}] must be an object, got [{other}]"
                )))
            }
        };
        for (key, value) in obj {
            if meta.set(alias, key, value)? {
                continue;
            }
            return Err(SearchError::illegal(format!(
                "Unsupported field [{key}] in alias [{alias}]"
            )));
        }
        Ok(meta)
    }

    /// Applies one definition key; `false` when `key` is not one.
    pub(crate) fn set(&mut self, alias: &str, key: &str, value: &Value) -> Result<bool> {
        match key {
            "filter" => match value {
                Value::Object(o) if !o.is_empty() => self.filter = Some(value.clone()),
                Value::Object(_) | Value::Null => self.filter = None,
                _ => {
                    return Err(SearchError::illegal(format!(
                        "failed to parse filter for alias [{alias}]"
                    )))
                }
            },
            "routing" => {
                let r = routing(alias, key, value)?;
                self.index_routing = r.clone();
                self.search_routing = r;
            }
            "index_routing" => self.index_routing = routing(alias, key, value)?,
            "search_routing" => self.search_routing = routing(alias, key, value)?,
            "is_write_index" => self.is_write_index = flag(alias, key, value)?,
            "is_hidden" => self.is_hidden = flag(alias, key, value)?,
            _ => return Ok(false),
        }
        if self
            .index_routing
            .as_deref()
            .is_some_and(|r| r.contains(','))
        {
            return Err(SearchError::illegal(format!(
                "alias [{alias}] has several index routing values associated with it"
            )));
        }
        Ok(true)
    }

    /// The definition as `GET _alias` shows it (only the keys that are set).
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        if let Some(f) = &self.filter {
            out.insert("filter".into(), f.clone());
        }
        if let Some(r) = &self.index_routing {
            out.insert("index_routing".into(), json!(r));
        }
        if let Some(r) = &self.search_routing {
            out.insert("search_routing".into(), json!(r));
        }
        if let Some(w) = self.is_write_index {
            out.insert("is_write_index".into(), json!(w));
        }
        if let Some(h) = self.is_hidden {
            out.insert("is_hidden".into(), json!(h));
        }
        Value::Object(out)
    }
}

fn routing(alias: &str, key: &str, value: &Value) -> Result<Option<String>> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Number(n) => Ok(Some(n.to_string())),
        other => Err(SearchError::illegal(format!(
            "[{key}] of alias [{alias}] must be a string, got [{other}]"
        ))),
    }
}

fn flag(alias: &str, key: &str, value: &Value) -> Result<Option<bool>> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::String(s) if s == "true" || s == "false" => Ok(Some(s == "true")),
        other => Err(SearchError::illegal(format!(
            "[{key}] of alias [{alias}] must be a boolean, got [{other}]"
        ))),
    }
}

/// Every alias of the node: alias name → index name → link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Aliases {
    by_alias: BTreeMap<String, BTreeMap<String, AliasMeta>>,
}

impl Aliases {
    /// Reads the stored form (`{"aliases": {alias: {index: definition}}}`).
    pub(crate) fn from_json(value: &Value) -> Result<Aliases> {
        let mut table = Aliases::default();
        if let Some(all) = value.get("aliases").and_then(Value::as_object) {
            for (alias, targets) in all {
                for (index, def) in targets.as_object().into_iter().flatten() {
                    table.put(index, alias, AliasMeta::parse(alias, def)?);
                }
            }
        }
        Ok(table)
    }

    /// The stored form.
    pub(crate) fn to_json(&self) -> Value {
        let all: Map<String, Value> = self
            .by_alias
            .iter()
            .map(|(alias, targets)| {
                let t: Map<String, Value> = targets
                    .iter()
                    .map(|(index, meta)| (index.clone(), meta.to_json()))
                    .collect();
                (alias.clone(), Value::Object(t))
            })
            .collect();
        json!({ "aliases": all })
    }

    /// Whether `name` is an alias.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.by_alias.contains_key(name)
    }

    /// Every alias name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.by_alias.keys()
    }

    /// The indices `alias` points at, with each link; `None` if no such alias.
    pub fn targets(&self, alias: &str) -> Option<&BTreeMap<String, AliasMeta>> {
        self.by_alias.get(alias)
    }

    /// The aliases of `index`, by alias name.
    pub fn of_index(&self, index: &str) -> BTreeMap<String, AliasMeta> {
        self.by_alias
            .iter()
            .filter_map(|(alias, targets)| targets.get(index).map(|m| (alias.clone(), m.clone())))
            .collect()
    }

    /// Adds or replaces the link `alias` → `index`.
    pub fn put(&mut self, index: &str, alias: &str, meta: AliasMeta) {
        self.by_alias
            .entry(alias.to_string())
            .or_default()
            .insert(index.to_string(), meta);
    }

    /// Removes the link `alias` → `index`; whether there was one.
    pub(crate) fn remove(&mut self, index: &str, alias: &str) -> bool {
        let Some(targets) = self.by_alias.get_mut(alias) else {
            return false;
        };
        let removed = targets.remove(index).is_some();
        if targets.is_empty() {
            self.by_alias.remove(alias);
        }
        removed
    }

    /// Removes every link to `index` (the index is gone).
    pub(crate) fn drop_index(&mut self, index: &str) {
        self.by_alias.retain(|_, targets| {
            targets.remove(index);
            !targets.is_empty()
        });
    }

    /// The index writes through `alias` go to: the one link marked
    /// `is_write_index: true`, or the only index if its link does not say
    /// `false`. `Ok(None)` when `alias` is not an alias; an error when it
    /// has no write index.
    pub(crate) fn write_index(&self, alias: &str) -> Result<Option<&str>> {
        let Some(targets) = self.by_alias.get(alias) else {
            return Ok(None);
        };
        if let Some((index, _)) = targets.iter().find(|(_, m)| m.is_write_index == Some(true)) {
            return Ok(Some(index));
        }
        if targets.len() == 1 {
            if let Some((index, meta)) = targets.iter().next() {
                if meta.is_write_index != Some(false) {
                    return Ok(Some(index));
                }
            }
        }
        Err(SearchError::illegal(format!(
            "no write index is defined for alias [{alias}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index"
        )))
    }

    /// Checks the invariant a change must keep: at most one write index per alias.
    pub(crate) fn validate(&self) -> Result<()> {
        for (alias, targets) in &self.by_alias {
            let writers: Vec<&str> = targets
                .iter()
                .filter(|(_, m)| m.is_write_index == Some(true))
                .map(|(i, _)| i.as_str())
                .collect();
            if writers.len() > 1 {
                return Err(SearchError::illegal(format!(
                    "alias [{alias}] has more than one write index [{}]",
                    writers.join(",")
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_index_rules() {
        let mut a = Aliases::default();
        a.put("i1", "w", AliasMeta::default());
        assert_eq!(a.write_index("w").unwrap(), Some("i1"));
        assert_eq!(a.write_index("other").unwrap(), None);
        a.put("i2", "w", AliasMeta::default());
        assert!(a.write_index("w").is_err());
        let writer = AliasMeta {
            is_write_index: Some(true),
            ..AliasMeta::default()
        };
        a.put("i2", "w", writer.clone());
        assert_eq!(a.write_index("w").unwrap(), Some("i2"));
        a.put("i1", "w", writer);
        assert!(a.validate().is_err());
        a.drop_index("i1");
        a.drop_index("i2");
        assert!(!a.contains("w"));
        let mut single = Aliases::default();
        let off = AliasMeta {
            is_write_index: Some(false),
            ..AliasMeta::default()
        };
        single.put("i", "r", off);
        assert!(single.write_index("r").is_err());
    }

    #[test]
    fn definitions_parse_and_round_trip() {
        let meta = AliasMeta::parse(
            "a",
            &json!({"filter": {"term": {"x": 1}}, "routing": 1, "is_write_index": true}),
        )
        .unwrap();
        assert_eq!(meta.index_routing.as_deref(), Some("1"));
        assert_eq!(meta.search_routing.as_deref(), Some("1"));
        let mut table = Aliases::default();
        table.put("i", "a", meta.clone());
        let back = Aliases::from_json(&table.to_json()).unwrap();
        assert_eq!(back, table);
        assert!(AliasMeta::parse("a", &json!({"bogus": 1})).is_err());
        assert!(AliasMeta::parse("a", &json!({"index_routing": "1,2"})).is_err());
        assert!(AliasMeta::parse("a", &json!({"is_write_index": "maybe"})).is_err());
    }
}
