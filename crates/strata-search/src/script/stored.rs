//! Stored scripts (`PUT _scripts/<id>`): kept in `<root>/scripts.json`,
//! replaced atomically and fsynced before a change is visible. A request's
//! `{"script": {"id": ..., "params": ...}}` is resolved to the stored
//! source before the request is parsed ([`StoredScripts::resolve`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use parking_lot::RwLock;
use serde_json::{json, Map, Value};
use strata_device::Directory;

use crate::durable_json;
use crate::error::{Result, SearchError};

/// The file of the stored scripts, in the node's directory.
const FILE: &str = "scripts.json";

/// The node's stored scripts: id → source.
pub struct StoredScripts {
    /// The node's directory, holding [`FILE`].
    dir: Arc<dyn Directory>,
    path: PathBuf,
    scripts: RwLock<BTreeMap<String, String>>,
}

/// Deepest request nesting searched for `script` objects (serde_json
/// bounds parsed bodies at 128).
const MAX_DEPTH: usize = 128;

impl StoredScripts {
    /// Loads `scripts.json` from `dir`, the node's directory `root` as the
    /// device layer sees it (none: no scripts).
    pub(crate) fn open(dir: Arc<dyn Directory>, root: &Path) -> Result<StoredScripts> {
        let path = root.join(FILE);
        let mut scripts = BTreeMap::new();
        if let Some(Value::Object(saved)) = durable_json::load_in(&*dir, FILE, &path)? {
            for (id, source) in saved {
                if let Value::String(source) = source {
                    scripts.insert(id, source);
                }
            }
        }
        Ok(StoredScripts {
            dir,
            path,
            scripts: RwLock::new(scripts),
        })
    }

    /// `PUT _scripts/<id>` with `{"script": {"lang": "painless", "source": ...}}`.
    /// As in Elasticsearch (`ScriptService.putStoredScript`), the source is
    /// compiled only when a `context` is named; without one it is stored
    /// as given and a request using it fails when it compiles it.
    pub fn put(&self, id: &str, body: &Value, context: Option<&str>) -> Result<()> {
        let script = body
            .get("script")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                SearchError::parsing("unable to parse stored script: [script] is missing")
            })?;
        match script.get("lang").and_then(Value::as_str) {
            Some("painless") => {}
            Some(other) => {
                return Err(SearchError::illegal(format!(
                    "script_lang not supported [{other}]"
                )))
            }
            None => return Err(SearchError::illegal("must specify lang for stored script")),
        }
        let source = script
            .get("source")
            .and_then(Value::as_str)
            .ok_or_else(|| SearchError::illegal("must specify source for stored script"))?;
        if let Some(context) = context {
            let context = script_context(context)?;
            strata_script::Script::compile(source, context).map_err(super::script_error)?;
        }
        let mut scripts = self.scripts.write();
        let mut next = scripts.clone();
        next.insert(id.to_string(), source.to_string());
        self.save(&next)?;
        *scripts = next;
        Ok(())
    }

    /// `GET _scripts/<id>`.
    pub fn get(&self, id: &str) -> Option<Value> {
        let source = self.scripts.read().get(id).cloned()?;
        Some(json!({"lang": "painless", "source": source}))
    }

    /// `DELETE _scripts/<id>`: whether it existed.
    pub fn delete(&self, id: &str) -> Result<bool> {
        let mut scripts = self.scripts.write();
        if !scripts.contains_key(id) {
            return Ok(false);
        }
        let mut next = scripts.clone();
        next.remove(id);
        self.save(&next)?;
        *scripts = next;
        Ok(true)
    }

    fn save(&self, scripts: &BTreeMap<String, String>) -> Result<()> {
        let value: Map<String, Value> = scripts
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        durable_json::save_in(&*self.dir, FILE, &Value::Object(value), &self.path)
    }

    /// Replaces every `"script": {"id": ...}` in a request body with the
    /// stored source (keeping `params`); an unknown id is Elasticsearch's
    /// `resource_not_found_exception`.
    pub fn resolve(&self, body: &mut Value) -> Result<()> {
        if self.scripts.read().is_empty() {
            return Ok(());
        }
        self.resolve_at(body, 0)
    }

    fn resolve_at(&self, node: &mut Value, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        match node {
            Value::Object(obj) => {
                for (key, value) in obj.iter_mut() {
                    if key == "script" {
                        if let Some(script) = value.as_object_mut() {
                            if let (Some(Value::String(id)), false) =
                                (script.get("id"), script.contains_key("source"))
                            {
                                let source =
                                    self.scripts.read().get(id).cloned().ok_or_else(|| {
                                        SearchError::ResourceNotFound(format!(
                                            "unable to find script [{id}] in cluster state"
                                        ))
                                    })?;
                                script.remove("id");
                                script.insert("source".into(), Value::String(source));
                                continue;
                            }
                        }
                    }
                    self.resolve_at(value, depth + 1)?;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.resolve_at(item, depth + 1)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl std::fmt::Debug for StoredScripts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredScripts")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// The script context named in `PUT _scripts/<id>?context=<name>`.
fn script_context(name: &str) -> Result<strata_script::Context> {
    use strata_script::Context;
    match name {
        "score" => Ok(Context::Score),
        "update" => Ok(Context::Update),
        "field" | "filter" => Ok(Context::Field),
        "bucket_aggregation" => Ok(Context::Bucket),
        other => Err(SearchError::illegal(format!(
            "script context [{other}] not supported"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(root: &Path) -> Arc<dyn Directory> {
        Arc::new(
            strata_device::FsDirectory::open(root, strata_device::SyncMode::Fdatasync).unwrap(),
        )
    }

    #[test]
    fn scripts_survive_reopening_and_resolve_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let store = StoredScripts::open(node(dir.path()), dir.path()).unwrap();
        store
            .put(
                "s",
                &json!({"script": {"lang": "painless", "source": "params.a + 1"}}),
                None,
            )
            .unwrap();
        // Compiled only for a named context, as Elasticsearch does.
        let bad = json!({"script": {"lang": "painless", "source": "("}});
        assert!(store.put("bad", &bad, Some("score")).is_err());
        assert!(store.put("bad", &bad, Some("nonsense")).is_err());
        store.put("bad", &bad, None).unwrap();
        assert!(store
            .put("x", &json!({"script": {"source": "1"}}), None)
            .is_err());
        drop(store);
        let store = StoredScripts::open(node(dir.path()), dir.path()).unwrap();
        assert_eq!(
            store.get("s"),
            Some(json!({"lang": "painless", "source": "params.a + 1"}))
        );
        let mut body = json!({"query": {"script_score": {"query": {"match_all": {}}, "script": {"id": "s", "params": {"a": 1}}}}});
        store.resolve(&mut body).unwrap();
        assert_eq!(
            body["query"]["script_score"]["script"],
            json!({"source": "params.a + 1", "params": {"a": 1}})
        );
        let mut missing = json!({"script": {"id": "nope"}});
        assert!(matches!(
            store.resolve(&mut missing),
            Err(SearchError::ResourceNotFound(_))
        ));
        assert!(store.delete("s").unwrap());
        assert!(!store.delete("s").unwrap());
        drop(store);
        assert_eq!(
            StoredScripts::open(node(dir.path()), dir.path())
                .unwrap()
                .get("s"),
            None
        );
    }
}
