//! The node while it starts. Opening a [`Node`] recovers every index
//! (translog replay after a crash can take a while), and the HTTP port
//! answers meanwhile, as an Elasticsearch node does before its cluster
//! state is recovered:
//! - `GET /` (and `HEAD /`) answer as always;
//! - `_cluster/health` and `_cat/health` report `red` with no shards;
//!   `wait_for_status` waits for the recovery (then for the status asked)
//!   within its `timeout`;
//! - everything else gets Elasticsearch's global block, 503
//!   `cluster_block_exception` "blocked by: [SERVICE_UNAVAILABLE/1/state
//!   not recovered / initialized];", which clients retry.
//!
//! [`NodeState`] is what the server serves: [`NodeState::ready`] wraps a
//! node already open; [`NodeState::recovering`] starts without one and
//! [`NodeState::set_ready`] hands it in once open (or
//! [`NodeState::set_failed`] says why it could not be).

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde_json::json;
use strata_search::SearchError;

use crate::error::{EsError, Result};
use crate::handlers::{cat, cluster, root};
use crate::node::{load_identity, Identity, Node, NodeConfig};
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::route::Route;
use crate::security::Security;

/// The node, or its identity while its indices recover.
pub struct NodeState {
    /// Settings given at start.
    pub config: NodeConfig,
    identity: Identity,
    /// HTTP security, when on: requests authenticate while recovering too.
    security: Option<Arc<Security>>,
    node: OnceLock<Arc<Node>>,
    failure: OnceLock<String>,
}

impl std::fmt::Debug for NodeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeState")
            .field("ready", &self.node.get().is_some())
            .field("failure", &self.failure.get())
            .finish_non_exhaustive()
    }
}

impl NodeState {
    /// A node open already.
    pub fn ready(node: Arc<Node>) -> Arc<NodeState> {
        let state = NodeState {
            config: node.config.clone(),
            identity: node.identity.clone(),
            security: node.security.clone(),
            node: OnceLock::new(),
            failure: OnceLock::new(),
        };
        let _ = state.node.set(node);
        Arc::new(state)
    }

    /// A node whose indices are still to be opened: only its identity is
    /// read (or made) under `config.root` now. The node handed to
    /// [`NodeState::set_ready`] must carry the same `security`.
    pub fn recovering(
        config: NodeConfig,
        security: Option<Arc<Security>>,
    ) -> Result<Arc<NodeState>, SearchError> {
        std::fs::create_dir_all(&config.root).map_err(|e| SearchError::Io {
            context: format!("create {}", config.root.display()),
            source: e,
        })?;
        let identity = load_identity(&config.storage.files, &config.root)?;
        Ok(Arc::new(NodeState {
            config,
            identity,
            security,
            node: OnceLock::new(),
            failure: OnceLock::new(),
        }))
    }

    /// The recovered node is served from now on.
    pub fn set_ready(&self, node: Arc<Node>) {
        let _ = self.node.set(node);
    }

    /// The node could not be opened: requests keep getting the block, and
    /// `cause` is kept for whoever stops the server.
    pub fn set_failed(&self, cause: String) {
        let _ = self.failure.set(cause);
    }

    /// The node, once recovered.
    pub fn node(&self) -> Option<Arc<Node>> {
        self.node.get().cloned()
    }

    /// Why the node could not be opened, if it could not.
    pub fn failure(&self) -> Option<&str> {
        self.failure.get().map(String::as_str)
    }

    /// HTTP security, when on.
    pub fn security(&self) -> Option<&Arc<Security>> {
        self.security.as_ref()
    }

    /// The node's identity.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }
}

/// A request to a node that is not recovered yet (see the module docs).
pub(crate) async fn respond(state: Arc<NodeState>, req: &EsRequest) -> Result<Reply> {
    let route = Route::resolve(&req.method, &req.segments, &req.uri)?;
    match route {
        Route::Info => root::info_of(&state.config, &state.identity, req),
        Route::ClusterHealth(index) => health(state, index, req).await,
        Route::CatHealth => cat::health_table(&state.config.cluster_name, "red", 0, 0, req),
        _ => Err(EsError::StateNotRecovered),
    }
}

/// `_cluster/health` while recovering: red now; with `wait_for_status`,
/// waits for the recovery and then as a recovered node waits.
async fn health(state: Arc<NodeState>, index: Option<String>, req: &EsRequest) -> Result<Reply> {
    let wait = cluster::HealthWait::parse(req)?;
    let red = || cluster::health_json(&state.config.cluster_name, "red", 0, 0);
    loop {
        if let Some(node) = state.node() {
            return cluster::health_until(node, index, wait).await;
        }
        let body = red();
        if wait.met(&body) {
            return Ok(Reply::ok(body));
        }
        if Instant::now() >= wait.deadline {
            let mut body = body;
            body["timed_out"] = json!(true);
            return Ok(Reply::json(408, body));
        }
        tokio::time::sleep(cluster::HEALTH_POLL).await;
    }
}
