//! The Elasticsearch-compatible front end (`strata-es`) inside `strata
//! serve`: its accept loop on the shared runtime, answering at once, and
//! the search node under `<data_dir>/search` opened meanwhile on a thread
//! of its own (every index recovered from its translog; until then the
//! port answers as a recovering Elasticsearch node does, see
//! `strata_es::startup`), and its shutdown: requests in flight get the
//! grace period, then every index is flushed so nothing depends on
//! translog replay at the next start.
//! With `http_security_dir` set the node authenticates every request
//! against that file realm and its API keys (`strata_es::security`), from
//! the first one, while the indices recover too.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use strata_es::security::Security;
use strata_es::{Node, NodeConfig, NodeState, SecurityConfig};
use strata_net::Listener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::blocking::blocking;
use crate::config::ServerConfig;
use crate::error::ServerError;

/// Name of the cluster the node reports.
pub const CLUSTER_NAME: &str = "strata";

/// How often a wait for the recovery looks.
const RECOVERY_POLL: Duration = Duration::from_millis(10);

/// The running HTTP front end.
pub struct HttpFrontEnd {
    addr: SocketAddr,
    state: Arc<NodeState>,
    recovery: Option<std::thread::JoinHandle<()>>,
    accept_loop: JoinHandle<std::io::Result<()>>,
}

impl HttpFrontEnd {
    /// Starts serving `listener` (bound to `addr`) until `shutdown` is
    /// cancelled, and opens the search node on a thread of its own,
    /// recovering every index; the port answers meanwhile.
    pub fn start(
        config: &ServerConfig,
        listener: Listener,
        addr: SocketAddr,
        shutdown: &CancellationToken,
        caches: Arc<strata_metrics::CacheLedger>,
        shared_cache: Option<&strata_cache::SharedCache>,
        node_store: Option<Arc<strata_search::NodeStore>>,
    ) -> Result<HttpFrontEnd, ServerError> {
        let node_config = NodeConfig {
            root: config.search_root(),
            node_name: node_name(),
            cluster_name: CLUSTER_NAME.to_string(),
            max_body: usize::try_from(config.http_max_body.bytes()).unwrap_or(usize::MAX),
            http_addr: addr,
            storage: strata_search::SearchStorage {
                node_store,
                ..config.search_storage_with(shared_cache).report_to(caches)
            },
            build_hash: config.build_commit.clone(),
        };
        let security = match &config.http_security_dir {
            Some(dir) => {
                let security = Security::open(&node_config.root, &SecurityConfig::new(dir))
                    .map_err(ServerError::Security)?;
                tracing::info!(realm = %dir.display(), "HTTP security on: requests must authenticate");
                Some(Arc::new(security))
            }
            None => None,
        };
        let state = NodeState::recovering(node_config.clone(), security.clone())
            .map_err(ServerError::Search)?;
        let token = shutdown.clone();
        let accept_loop = tokio::spawn(strata_es::serve_with(
            listener,
            Arc::clone(&state),
            config.http_limits(),
            async move { token.cancelled().await },
        ));
        let recovering = Arc::clone(&state);
        let recovery = std::thread::Builder::new()
            .name("strata-search-recovery".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                match Node::open(node_config) {
                    Ok(mut node) => {
                        node.security = security;
                        let indices = node.catalog.names().len();
                        recovering.set_ready(Arc::new(node));
                        tracing::info!(
                            indices,
                            ms = started.elapsed().as_millis() as u64,
                            "search indices recovered"
                        );
                    }
                    Err(err) => {
                        tracing::error!(error = %err, "cannot open the search indices");
                        recovering.set_failed(err.to_string());
                    }
                }
            })
            .map_err(|e| {
                ServerError::Search(strata_search::SearchError::Io {
                    context: "start the search recovery thread".into(),
                    source: e,
                })
            })?;
        Ok(HttpFrontEnd {
            addr,
            state,
            recovery: Some(recovery),
            accept_loop,
        })
    }

    /// The node as served (recovering or ready).
    pub fn state(&self) -> &Arc<NodeState> {
        &self.state
    }

    /// Resolves once the indices are recovered (`Ok`) or could not be
    /// (`Err` with why).
    pub fn recovered(
        &self,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send + 'static {
        let state = Arc::clone(&self.state);
        async move {
            loop {
                if state.node().is_some() {
                    return Ok(());
                }
                if let Some(cause) = state.failure() {
                    return Err(cause.to_string());
                }
                tokio::time::sleep(RECOVERY_POLL).await;
            }
        }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether its requests must authenticate (`http_security_dir` set).
    pub fn requires_authentication(&self) -> bool {
        self.state.security().is_some()
    }

    /// After the shutdown token was cancelled: waits up to `grace` for
    /// requests in flight, lets a recovery in progress finish, then
    /// flushes every index.
    pub async fn stop(mut self, grace: Duration) {
        match tokio::time::timeout(grace, self.accept_loop).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(err))) => tracing::warn!(protocol = "http", %err, "accept loop failed"),
            Ok(Err(err)) => tracing::warn!(protocol = "http", %err, "accept loop ended abnormally"),
            Err(_) => tracing::warn!("HTTP requests still running after the grace period"),
        }
        if let Some(recovery) = self.recovery.take() {
            if blocking(|| recovery.join()).is_err() {
                tracing::error!("the search recovery thread panicked");
            }
        }
        let Some(node) = self.state.node() else {
            return;
        };
        match blocking(|| node.shutdown()) {
            Ok(()) => tracing::info!("search indices flushed"),
            Err(err) => tracing::error!(error = %err, "could not flush the search indices"),
        }
    }
}

/// The node name: the host name when known, as Elasticsearch defaults to.
fn node_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "strata".to_string())
}
