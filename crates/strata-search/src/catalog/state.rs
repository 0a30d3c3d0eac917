//! The `Catalog` struct: what the node's catalog holds (indices, aliases,
//! templates, stored scripts, the background task's handle) and the names
//! of its node files. Its methods live in the parent module and its
//! siblings, by operation; this leaf only defines the state they share.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Mutex, RwLock};
use strata_device::Directory;

use crate::aliases::Aliases;
use crate::index::SearchIndex;
use crate::store::SearchStorage;
use crate::templates::Templates;

/// The open indices, by name.
pub(super) type IndexMap = BTreeMap<String, Arc<SearchIndex>>;

/// All indices, aliases and templates of the node.
pub struct Catalog {
    pub(super) root: PathBuf,
    pub(super) storage: SearchStorage,
    /// `root` as the device layer sees it: the node's JSON files.
    pub(super) node: Arc<dyn Directory>,
    pub(super) indices: Arc<RwLock<IndexMap>>,
    pub(super) aliases: RwLock<Aliases>,
    pub(super) templates: RwLock<Templates>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) ticker: Mutex<Option<JoinHandle<()>>>,
    /// `cluster.max_shards_per_node`: the cap on shards, hence on indices.
    pub(super) max_shards: AtomicU64,
    /// Stored scripts (`<root>/scripts.json`).
    pub(super) scripts: crate::script::stored::StoredScripts,
}

/// The node's alias table, in `root`.
pub(super) const ALIASES: &str = "aliases.json";

/// The node's templates, in `root`.
pub(super) const TEMPLATES: &str = "templates.json";
