//! The `Catalog`: every index of a node, kept under `<root>/<index name>/`,
//! name resolution (comma lists, wildcards, `_all`) and the background
//! task that refreshes and flushes indices.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::mapping::Mappings;
use crate::settings::IndexSettings;

/// How often the background task looks at each index.
const TICK: Duration = Duration::from_millis(50);

/// All indices of the node.
pub struct Catalog {
    root: PathBuf,
    indices: Arc<RwLock<BTreeMap<String, Arc<SearchIndex>>>>,
    stop: Arc<AtomicBool>,
    ticker: Mutex<Option<JoinHandle<()>>>,
}

impl Catalog {
    /// Opens every index under `root` (created if missing), replaying
    /// translogs, and starts the background refresh/flush task.
    pub fn open(root: &Path) -> Result<Catalog> {
        std::fs::create_dir_all(root)
            .map_err(|e| SearchError::io(format!("create {}", root.display()), e))?;
        let mut indices = BTreeMap::new();
        let entries = std::fs::read_dir(root)
            .map_err(|e| SearchError::io(format!("list {}", root.display()), e))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| SearchError::io(format!("list {}", root.display()), e))?;
            let path = entry.path();
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .map(str::to_string)
            else {
                continue;
            };
            if !path.join("index.json").exists() {
                continue;
            }
            let index = SearchIndex::open(&path, &name)?;
            indices.insert(name, Arc::new(index));
        }
        let indices = Arc::new(RwLock::new(indices));
        let stop = Arc::new(AtomicBool::new(false));
        let ticker = {
            let indices = Arc::clone(&indices);
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("strata-search-refresh".into())
                .spawn(move || background(indices, stop))
                .map_err(|e| SearchError::io("start the refresh thread", e))?
        };
        Ok(Catalog {
            root: root.to_path_buf(),
            indices,
            stop,
            ticker: Mutex::new(Some(ticker)),
        })
    }

    /// Creates an index from a `PUT /<index>` body (`settings`, `mappings`).
    pub fn create_index(&self, name: &str, body: &Value) -> Result<Arc<SearchIndex>> {
        validate_name(name)?;
        let obj = match body {
            Value::Null => serde_json::Map::new(),
            Value::Object(o) => o.clone(),
            _ => return Err(SearchError::parsing("request body must be an object")),
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let uuid = format!(
            "{:016x}",
            xxhash_rust::xxh3::xxh3_64(format!("{name}{now}").as_bytes())
        );
        let mut settings = IndexSettings::new(now, uuid);
        let mut mappings = Mappings::default();
        for (key, value) in &obj {
            match key.as_str() {
                "settings" => settings.apply(value, true)?,
                "mappings" => mappings = Mappings::parse(value)?,
                "aliases" if value.as_object().is_some_and(|o| o.is_empty()) => {}
                other => {
                    return Err(SearchError::parsing(format!(
                        "unknown key [{other}] for create index"
                    )))
                }
            }
        }
        let mut indices = self.indices.write();
        if indices.contains_key(name) {
            return Err(SearchError::IndexExists(name.to_string()));
        }
        let dir = self.root.join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| SearchError::io(format!("clear {}", dir.display()), e))?;
        }
        let index = Arc::new(SearchIndex::create(&dir, name, settings, mappings)?);
        indices.insert(name.to_string(), Arc::clone(&index));
        Ok(index)
    }

    /// The index called `name`.
    pub fn get(&self, name: &str) -> Result<Arc<SearchIndex>> {
        self.indices
            .read()
            .get(name)
            .cloned()
            .ok_or_else(|| SearchError::IndexNotFound(name.to_string()))
    }

    /// Every index name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.indices.read().keys().cloned().collect()
    }

    /// Resolves an index expression: comma-separated names, `*` wildcards,
    /// `_all`, `-name` exclusions. A concrete name that does not exist is
    /// `index_not_found_exception`; a wildcard may match nothing.
    pub fn resolve(&self, expression: &str) -> Result<Vec<Arc<SearchIndex>>> {
        let indices = self.indices.read();
        let mut chosen: BTreeMap<String, Arc<SearchIndex>> = BTreeMap::new();
        for part in expression
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            if let Some(excluded) = part.strip_prefix('-') {
                chosen.retain(|name, _| !wildcard_match(excluded, name));
                continue;
            }
            if part == "_all" || part.contains('*') {
                let pattern = if part == "_all" { "*" } else { part };
                for (name, index) in indices.iter() {
                    if wildcard_match(pattern, name) {
                        chosen.insert(name.clone(), Arc::clone(index));
                    }
                }
                continue;
            }
            let index = indices
                .get(part)
                .ok_or_else(|| SearchError::IndexNotFound(part.to_string()))?;
            chosen.insert(part.to_string(), Arc::clone(index));
        }
        Ok(chosen.into_values().collect())
    }

    /// Deletes the indices an expression names; returns how many.
    pub fn delete(&self, expression: &str) -> Result<usize> {
        let victims = self.resolve(expression)?;
        let mut indices = self.indices.write();
        for victim in &victims {
            indices.remove(victim.name());
        }
        drop(indices);
        let count = victims.len();
        for victim in victims {
            let dir = self.root.join(victim.name());
            if let Ok(index) = Arc::try_unwrap(victim) {
                if let Err(e) = index.close() {
                    tracing::warn!(error = %e, "closing a deleted index");
                }
            }
            std::fs::remove_dir_all(&dir)
                .map_err(|e| SearchError::io(format!("remove {}", dir.display()), e))?;
        }
        Ok(count)
    }

    /// Flushes every index and stops the background task.
    pub fn shutdown(&self) -> Result<()> {
        self.stop.store(true, Ordering::Release);
        if let Some(handle) = self.ticker.lock().take() {
            let _ = handle.join();
        }
        let indices: Vec<_> = self.indices.read().values().cloned().collect();
        for index in indices {
            index.flush()?;
        }
        Ok(())
    }
}

impl Drop for Catalog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(handle) = self.ticker.lock().take() {
            let _ = handle.join();
        }
    }
}

fn background(indices: Arc<RwLock<BTreeMap<String, Arc<SearchIndex>>>>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Acquire) {
        std::thread::sleep(TICK);
        let all: Vec<_> = indices.read().values().cloned().collect();
        for index in all {
            if let Err(e) = index.tick() {
                tracing::error!(index = index.name(), error = %e, "background refresh/flush failed");
            }
        }
    }
}

/// `*` matches any run of characters.
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let mut rest = name;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    true
}

fn validate_name(name: &str) -> Result<()> {
    let bad = |reason: &str| SearchError::InvalidIndexName {
        name: name.to_string(),
        reason: reason.to_string(),
    };
    if name.is_empty() {
        return Err(bad("must not be empty"));
    }
    if name != name.to_lowercase() {
        return Err(bad("must be lowercase"));
    }
    if name.starts_with(['-', '_', '+']) {
        return Err(bad("must not start with '_', '-', or '+'"));
    }
    if name == "." || name == ".." {
        return Err(bad("must not be '.' or '..'"));
    }
    if name.len() > 255 {
        return Err(bad("index name is too long"));
    }
    if name.contains(['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',', '#', ':']) {
        return Err(bad(
            "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?, #, :]",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(wildcard_match("log-*", "log-2024"));
        assert!(wildcard_match("*", "x"));
        assert!(wildcard_match("a*c*e", "abcde"));
        assert!(!wildcard_match("a*c", "abd"));
        assert!(validate_name("Bad").is_err());
        assert!(validate_name("_x").is_err());
        assert!(validate_name("ok-1").is_ok());
    }
}
