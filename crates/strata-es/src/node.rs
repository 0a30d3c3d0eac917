//! [`Node`]: what every handler works on: the [`Catalog`] of indices and
//! the node's identity. The node id and cluster uuid are generated once and
//! kept in `<root>/node.json`, so clients see the same cluster across
//! restarts (the catalog ignores the file: it is not an index directory).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;
use strata_search::{Breaker, Catalog, CircuitBreakers, MemoryAccount, SearchError, SearchStorage};

use crate::cluster_settings::ClusterSettings;
use crate::error::Result;
use crate::pressure::IndexingPressure;
use crate::security::{Security, SecurityConfig};

/// How the node is set up.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// Directory holding every index (`<data_dir>/search` in `strata serve`).
    pub root: PathBuf,
    /// The node name (`GET /` `name`).
    pub node_name: String,
    /// The cluster name.
    pub cluster_name: String,
    /// Largest request body accepted; larger ones get 413.
    pub max_body: usize,
    /// The address HTTP clients reach the node at (reported by `_nodes`).
    pub http_addr: SocketAddr,
    /// Default tier, block cache and persistent-memory directory of the
    /// indices.
    pub storage: SearchStorage,
    /// The commit the binary was built from (`build_hash` of `GET /`,
    /// `_nodes` and `_nodes/stats`; Elasticsearch reports its own commit there).
    pub build_hash: String,
}

/// A node's persistent identity.
#[derive(Debug, Clone)]
pub struct Identity {
    /// Node id (22 URL-safe characters, as Elasticsearch's).
    pub node_id: String,
    /// Cluster uuid.
    pub cluster_uuid: String,
}

/// The search node the front end serves.
pub struct Node {
    /// Every index.
    pub catalog: Catalog,
    /// Settings given at start.
    pub config: NodeConfig,
    /// Node id and cluster uuid.
    pub identity: Identity,
    /// `_cluster/settings`.
    pub cluster_settings: ClusterSettings,
    /// Bytes of write requests in flight, bounded (429 beyond).
    pub indexing_pressure: IndexingPressure,
    /// The circuit breakers bounding what requests hold in memory.
    pub breakers: Arc<CircuitBreakers>,
    /// When the node started (uptime in `_nodes/stats`).
    pub started: Instant,
    /// Authentication and authorization; `None`: off (every request is
    /// served as today).
    pub security: Option<Arc<Security>>,
    /// Open scroll and point-in-time contexts.
    pub contexts: crate::contexts::SearchContexts,
    /// Running and finished long requests (`_tasks`).
    pub tasks: crate::tasks::Tasks,
    /// Data stream names.
    pub data_streams: crate::data_streams::DataStreams,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("config", &self.config)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl Node {
    /// Opens (or creates) the node under `config.root`, recovering every
    /// index. Blocking: run it off the async workers.
    pub fn open(config: NodeConfig) -> Result<Node, SearchError> {
        let catalog = Catalog::open_with(&config.root, config.storage.clone())?;
        let files = &config.storage.files;
        let identity = load_identity(files, &config.root)?;
        let cluster_settings = ClusterSettings::open(files, &config.root)?;
        let data_streams = crate::data_streams::DataStreams::open(files, &config.root)?;
        let node = Node {
            catalog,
            config,
            identity,
            cluster_settings,
            indexing_pressure: IndexingPressure::new(crate::pressure::default_limit()),
            breakers: Arc::new(CircuitBreakers::new(strata_search::memory_base())),
            started: Instant::now(),
            security: None,
            contexts: crate::contexts::SearchContexts::default(),
            tasks: crate::tasks::Tasks::default(),
            data_streams,
        };
        node.apply_cluster_settings();
        Ok(node)
    }

    /// Puts the cluster settings in force: the breakers' limits and
    /// `cluster.max_shards_per_node`.
    pub fn apply_cluster_settings(&self) {
        self.breakers.apply(self.cluster_settings.breakers());
        self.catalog
            .set_max_shards_per_node(self.cluster_settings.max_shards_per_node());
        strata_search::set_max_buckets(self.cluster_settings.max_buckets());
    }

    /// A new request's account on the request breaker.
    pub fn request_memory(&self) -> MemoryAccount {
        MemoryAccount::new(&self.breakers, Breaker::Request)
    }

    /// A new account on the in-flight requests breaker.
    pub fn in_flight_memory(&self) -> MemoryAccount {
        MemoryAccount::new(&self.breakers, Breaker::InFlightRequests)
    }

    /// Turns security on: the file realm of `config` and the API keys
    /// under the root. The error is a message for the operator.
    pub fn with_security(mut self, config: &SecurityConfig) -> Result<Node, String> {
        self.security = Some(Arc::new(Security::open(&self.config.root, config)?));
        Ok(self)
    }

    /// Whether HTTP requests must authenticate (security is on).
    pub fn requires_authentication(&self) -> bool {
        self.security.is_some()
    }

    /// Flushes every index (translogs trimmed, segments durable) and stops
    /// the background refresh. Blocking.
    pub fn shutdown(&self) -> Result<(), SearchError> {
        self.catalog.shutdown()
    }
}

/// The node's identity kept under `root` in the node's `files` (made and
/// saved, durably, on first use).
pub(crate) fn load_identity(
    files: &strata_search::SearchFiles,
    root: &std::path::Path,
) -> Result<Identity, SearchError> {
    let path = root.join("node.json");
    // A damaged file is replaced by a new identity, as before.
    if let Ok(Some(v)) = files.load_json(&path) {
        if let (Some(node_id), Some(cluster_uuid)) =
            (v["node_id"].as_str(), v["cluster_uuid"].as_str())
        {
            return Ok(Identity {
                node_id: node_id.to_string(),
                cluster_uuid: cluster_uuid.to_string(),
            });
        }
    }
    let seed = format!(
        "{}{}{}",
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
        std::process::id(),
        root.display()
    );
    let identity = Identity {
        node_id: random_id(&seed, 1),
        cluster_uuid: random_id(&seed, 2),
    };
    let body = json!({"node_id": identity.node_id, "cluster_uuid": identity.cluster_uuid});
    files.save_json(&path, &body)?;
    Ok(identity)
}

/// 22 URL-safe characters derived from `seed`.
fn random_id(seed: &str, salt: u64) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(22);
    let mut round = 0u64;
    while out.len() < 22 {
        let mut x = xxhash_rust::xxh3::xxh3_64_with_seed(seed.as_bytes(), salt * 1000 + round);
        for _ in 0..10 {
            if out.len() == 22 {
                break;
            }
            out.push(ALPHABET[(x & 63) as usize] as char);
            x >>= 6;
        }
        round += 1;
    }
    out
}
