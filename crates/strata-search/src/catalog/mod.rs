//! The `Catalog`: every index of a node, kept under `<root>/<index name>/`,
//! the node's aliases (`<root>/aliases.json`) and templates
//! (`<root>/templates.json`), name resolution, and the background task
//! that refreshes and flushes indices.
//!
//! - `state`: the `Catalog` struct itself, the state the methods here
//!   and in the modules below share.
//! - `names`: wildcard matching, index and alias naming rules.
//! - `resolve`: index expressions (names, aliases, wildcards, `_all`,
//!   exclusions) to indices, alias filters, write indices.
//! - `create`: creating an index (templates, then the request) and
//!   deleting indices.
//! - `alias_ops`: `_aliases` actions, applied all at once.
//! - `template_ops`: storing and removing templates.
//!
//! Lock order: `indices` before `aliases`; `templates` is never held
//! while taking another. Aliases and templates are saved (atomically, with
//! fsync) before a change is made visible.

mod alias_ops;
mod create;
mod indices_options;
mod names;
mod resolve;
mod state;
mod template_ops;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};

pub use alias_ops::AliasAction;
pub use indices_options::IndicesOptions;
pub use names::{validate_alias_name, validate_index_name, wildcard_match};
pub use state::Catalog;
use state::{IndexMap, ALIASES, TEMPLATES};
pub use template_ops::TemplateKind;

use crate::aliases::Aliases;
use crate::durable_json;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::store::SearchStorage;
use crate::templates::Templates;
use serde_json::Value;

/// How often the background task looks at each index.
const TICK: Duration = Duration::from_millis(50);

/// Elasticsearch's default `cluster.max_shards_per_node`.
pub const DEFAULT_MAX_SHARDS_PER_NODE: u64 = 1000;

impl Catalog {
    /// Opens every index under `root` (created if missing), replaying
    /// translogs, loads aliases and templates, and starts the background
    /// refresh/flush task. Aliases of indices that no longer exist (a
    /// crash between deleting an index and saving the aliases) are dropped.
    pub fn open(root: &Path) -> Result<Catalog> {
        Catalog::open_with(root, SearchStorage::default())
    }

    /// [`open`](Self::open) with the node's storage options: the default
    /// `index.store.tier` of new indices, the shared block cache and the
    /// persistent-memory directory.
    pub fn open_with(root: &Path, storage: SearchStorage) -> Result<Catalog> {
        // The root, and every directory listed, through the node's tree.
        let node = storage.files.dir(root)?;
        let mut indices = BTreeMap::new();
        for name in storage.files.subdirs(root)? {
            let path = root.join(&name);
            let is_index = storage
                .files
                .dir(&path)?
                .list()
                .is_ok_and(|names| names.iter().any(|n| n == crate::index::METADATA));
            if !is_index {
                // A creation a crash cut: nothing of it stays in the store.
                if let Some(node) = &storage.node_store {
                    node.forget_below(&path);
                }
                continue;
            }
            let index = SearchIndex::open(&path, &name, &storage)?;
            indices.insert(name, Arc::new(index));
        }
        let stored = durable_json::load_in(&*node, ALIASES, &root.join(ALIASES))?;
        let mut aliases = match &stored {
            Some(v) => Aliases::from_json(v)?,
            None => Aliases::default(),
        };
        // An index created with alias changes (its own aliases, a rollover's
        // move) first saves the table it leads to as `pending`; the index's
        // metadata file is the commit point. Finish or forget it.
        let pending = stored.as_ref().and_then(|v| v.get("pending"));
        if let Some(p) = pending {
            let created = p["index"].as_str().is_some_and(|i| indices.contains_key(i));
            if created {
                aliases = Aliases::from_json(&serde_json::json!({"aliases": p["aliases"]}))?;
            }
        }
        let before = aliases.clone();
        let stale: Vec<String> = aliases
            .names()
            .flat_map(|a| aliases.targets(a).into_iter().flat_map(|t| t.keys()))
            .filter(|i| !indices.contains_key(*i))
            .cloned()
            .collect();
        for index in &stale {
            aliases.drop_index(index);
        }
        if pending.is_some() || aliases != before {
            durable_json::save_in(&*node, ALIASES, &aliases.to_json(), &root.join(ALIASES))?;
        }
        let uuids: Vec<String> = indices.values().map(|i| i.settings().uuid).collect();
        storage.remove_orphans(uuids.iter().map(String::as_str))?;
        let templates = match durable_json::load_in(&*node, TEMPLATES, &root.join(TEMPLATES))? {
            Some(v) => Templates::from_json(&v)?,
            None => Templates::default(),
        };
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
            storage,
            indices,
            aliases: RwLock::new(aliases),
            templates: RwLock::new(templates),
            stop,
            ticker: Mutex::new(Some(ticker)),
            max_shards: AtomicU64::new(DEFAULT_MAX_SHARDS_PER_NODE),
            scripts: crate::script::stored::StoredScripts::open(Arc::clone(&node), root)?,
            node,
        })
    }

    /// The index called `name` (not an alias).
    pub fn get(&self, name: &str) -> Result<Arc<SearchIndex>> {
        self.indices
            .read()
            .get(name)
            .cloned()
            .ok_or_else(|| SearchError::IndexNotFound(name.to_string()))
    }

    /// The first index whose translog failed for good, and why.
    pub fn translog_failure(&self) -> Option<String> {
        self.indices.read().iter().find_map(|(name, index)| {
            let cause = index.translog_failure()?;
            Some(format!("the translog of index [{name}] failed: {cause}"))
        })
    }

    /// The node's storage options (block cache, default tier).
    pub fn storage(&self) -> &SearchStorage {
        &self.storage
    }

    /// Every index name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.indices.read().keys().cloned().collect()
    }

    /// A copy of the alias table.
    pub fn aliases(&self) -> Aliases {
        self.aliases.read().clone()
    }

    /// The stored scripts.
    pub fn scripts(&self) -> &crate::script::stored::StoredScripts {
        &self.scripts
    }

    /// A copy of every template.
    pub fn templates(&self) -> Templates {
        self.templates.read().clone()
    }

    /// Sets `cluster.max_shards_per_node` (existing indices stay).
    pub fn set_max_shards_per_node(&self, max: u64) {
        self.max_shards.store(max, Ordering::Relaxed);
    }

    /// `cluster.max_shards_per_node`.
    pub(crate) fn max_shards_per_node(&self) -> u64 {
        self.max_shards.load(Ordering::Relaxed)
    }

    /// Refuses a new index whose shards would take the node past
    /// `cluster.max_shards_per_node`. Shards count as Elasticsearch counts
    /// them: primaries times one plus the replicas configured (a single
    /// node never allocates the replicas, but a request that Elasticsearch
    /// refuses is refused here too). `indices` is the map under its lock.
    fn check_shard_limit(
        &self,
        indices: &IndexMap,
        settings: &crate::settings::IndexSettings,
    ) -> Result<()> {
        let shards_of = |s: &crate::settings::IndexSettings| {
            u64::from(s.number_of_shards) * (1 + u64::from(s.number_of_replicas))
        };
        let adding = shards_of(settings);
        let open: u64 = indices.values().map(|i| shards_of(&i.settings())).sum();
        let max = self.max_shards_per_node();
        if open + adding > max {
            return Err(SearchError::Validation(format!(
                "this action would add [{adding}] shards, but this cluster currently has [{open}]/[{max}] maximum normal shards open"
            )));
        }
        Ok(())
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

    /// Saves `next` as the alias table and makes it current. The caller
    /// holds the `aliases` write lock (passed in as `current`).
    fn commit_aliases(&self, current: &mut Aliases, next: Aliases) -> Result<()> {
        if *current != next {
            self.save_node_file(ALIASES, &next.to_json())?;
            *current = next;
        }
        Ok(())
    }
}

impl Catalog {
    /// Replaces the node file `name` (in `root`) with `value`, durably.
    fn save_node_file(&self, name: &str, value: &Value) -> Result<()> {
        durable_json::save_in(&*self.node, name, value, &self.root.join(name))
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

fn background(indices: Arc<RwLock<IndexMap>>, stop: Arc<AtomicBool>) {
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
