//! Cluster settings (`GET|PUT /_cluster/settings`). One setting is known:
//! `action.destructive_requires_name` (default `true`, as in
//! Elasticsearch 8: deleting indices by wildcard or `_all` is refused).
//! Persistent values are kept in `<root>/cluster_settings.json` (replaced
//! atomically); transient ones last until the node stops and win over
//! persistent ones. Unknown settings are refused rather than ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde_json::{json, Map, Value};
use strata_search::{durable_json, SearchError};

use crate::error::{EsError, Result};

/// The one setting this node knows.
pub const DESTRUCTIVE_REQUIRES_NAME: &str = "action.destructive_requires_name";

type Flat = BTreeMap<String, String>;

/// Persistent and transient cluster settings.
#[derive(Debug)]
pub struct ClusterSettings {
    path: PathBuf,
    persistent: Mutex<Flat>,
    transient: Mutex<Flat>,
}

impl ClusterSettings {
    /// Loads the persistent settings under `root`.
    pub fn open(root: &Path) -> Result<ClusterSettings, SearchError> {
        let path = root.join("cluster_settings.json");
        let mut persistent = Flat::new();
        if let Some(Value::Object(map)) = durable_json::load(&path)? {
            for (k, v) in map {
                if let Value::String(s) = v {
                    persistent.insert(k, s);
                }
            }
        }
        Ok(ClusterSettings {
            path,
            persistent: Mutex::new(persistent),
            transient: Mutex::new(Flat::new()),
        })
    }

    /// Whether deleting indices needs concrete names.
    pub fn destructive_requires_name(&self) -> bool {
        let key = DESTRUCTIVE_REQUIRES_NAME;
        let value = self
            .transient
            .lock()
            .get(key)
            .cloned()
            .or_else(|| self.persistent.lock().get(key).cloned());
        value.is_none_or(|v| v != "false")
    }

    /// The `GET /_cluster/settings` body (`flat`: dotted keys).
    pub fn to_json(&self, flat: bool) -> Value {
        json!({
            "persistent": render(&self.persistent.lock(), flat),
            "transient": render(&self.transient.lock(), flat),
        })
    }

    /// Applies a `PUT /_cluster/settings` body; returns the reply body.
    pub fn update(&self, body: &Value) -> Result<Value> {
        let obj = body
            .as_object()
            .ok_or_else(|| EsError::Parse("request body is required".into()))?;
        let mut changes: Vec<(&str, Flat, Vec<String>)> = Vec::new();
        for (scope, settings) in obj {
            if scope != "persistent" && scope != "transient" {
                return Err(EsError::Parse(format!(
                    "[cluster_update_settings_request] unknown field [{scope}]"
                )));
            }
            let (set, reset) = parse_scope(scope, settings)?;
            changes.push((scope.as_str(), set, reset));
        }
        let mut reply = json!({"acknowledged": true, "persistent": {}, "transient": {}});
        for (scope, set, reset) in changes {
            let target = if scope == "persistent" {
                &self.persistent
            } else {
                &self.transient
            };
            let mut current = target.lock();
            let mut next = current.clone();
            for key in &reset {
                next.remove(key);
            }
            next.extend(set.clone());
            if scope == "persistent" {
                let stored: Map<String, Value> =
                    next.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                durable_json::save(&self.path, &Value::Object(stored))?;
            }
            *current = next;
            reply[scope] = render(&set, false);
        }
        Ok(reply)
    }
}

/// One scope of a `PUT` body: values to set, keys to reset (`null`).
fn parse_scope(scope: &str, settings: &Value) -> Result<(Flat, Vec<String>)> {
    let flat = strata_search::dotted::flatten(settings);
    let (mut set, mut reset) = (Flat::new(), Vec::new());
    for (key, value) in flat {
        if key != DESTRUCTIVE_REQUIRES_NAME {
            return Err(EsError::IllegalArgument(format!(
                "{scope} setting [{key}], not recognized"
            )));
        }
        match value {
            Value::Null => reset.push(key),
            Value::Bool(b) => {
                set.insert(key, b.to_string());
            }
            Value::String(s) if s == "true" || s == "false" => {
                set.insert(key, s);
            }
            other => {
                return Err(EsError::IllegalArgument(format!(
                    "Failed to parse value [{}] as only [true] or [false] are allowed.",
                    other
                        .as_str()
                        .map_or_else(|| other.to_string(), str::to_string)
                )))
            }
        }
    }
    Ok((set, reset))
}

/// Flat settings as `{"a.b": "v"}` or nested `{"a": {"b": "v"}}`.
fn render(settings: &Flat, flat: bool) -> Value {
    if !flat {
        return strata_search::dotted::nest(settings.iter().map(|(k, v)| (k.as_str(), json!(v))));
    }
    Value::Object(
        settings
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destructive_requires_name_defaults_on_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        let s = ClusterSettings::open(dir.path()).unwrap();
        assert!(s.destructive_requires_name());
        s.update(&json!({"persistent": {"action": {"destructive_requires_name": false}}}))
            .unwrap();
        assert!(!s.destructive_requires_name());
        s.update(&json!({"transient": {"action.destructive_requires_name": "true"}}))
            .unwrap();
        assert!(s.destructive_requires_name());
        let reopened = ClusterSettings::open(dir.path()).unwrap();
        assert!(!reopened.destructive_requires_name());
        assert_eq!(
            reopened.to_json(false)["persistent"]["action"]["destructive_requires_name"],
            "false"
        );
        assert!(s.update(&json!({"persistent": {"bogus": 1}})).is_err());
        assert!(s
            .update(&json!({"persistent": {"action.destructive_requires_name": 3}}))
            .is_err());
    }
}
