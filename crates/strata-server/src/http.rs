//! The Elasticsearch-compatible front end (`strata-es`) inside `strata
//! serve`: the search node opened under `<data_dir>/search` (every index
//! recovered from its translog before the port is announced), its accept
//! loop on the shared runtime, and its shutdown: requests in flight get
//! the grace period, then every index is flushed so nothing depends on
//! translog replay at the next start. With `http_security_dir` set the
//! node authenticates every request against that file realm and its API
//! keys (`strata_es::security`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use strata_es::{Node, NodeConfig, SecurityConfig};
use strata_net::Listener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::ServerConfig;
use crate::error::ServerError;

/// Name of the cluster the node reports.
pub const CLUSTER_NAME: &str = "strata";

/// The running HTTP front end.
pub struct HttpFrontEnd {
    addr: SocketAddr,
    node: Arc<Node>,
    accept_loop: JoinHandle<std::io::Result<()>>,
}

impl HttpFrontEnd {
    /// Opens the search node and starts serving `listener` (bound to
    /// `addr`) until `shutdown` is cancelled, within the configuration's
    /// HTTP limits. Blocks while the indices recover; the caller runs it on
    /// a runtime worker that may block.
    pub fn start(
        config: &ServerConfig,
        listener: Listener,
        addr: SocketAddr,
        shutdown: &CancellationToken,
    ) -> Result<HttpFrontEnd, ServerError> {
        let node_config = NodeConfig {
            root: config.data_dir.join("search"),
            node_name: node_name(),
            cluster_name: CLUSTER_NAME.to_string(),
            max_body: usize::try_from(config.http_max_body.bytes()).unwrap_or(usize::MAX),
            http_addr: addr,
            storage: config.search_storage(),
        };
        let node =
            crate::server::blocking(|| Node::open(node_config)).map_err(ServerError::Search)?;
        let node = match &config.http_security_dir {
            Some(dir) => {
                let node = node
                    .with_security(&SecurityConfig::new(dir))
                    .map_err(ServerError::Security)?;
                tracing::info!(realm = %dir.display(), "HTTP security on: requests must authenticate");
                node
            }
            None => node,
        };
        let node = Arc::new(node);
        let token = shutdown.clone();
        let accept_loop = tokio::spawn(strata_es::serve_with(
            listener,
            Arc::clone(&node),
            config.http_limits(),
            async move { token.cancelled().await },
        ));
        Ok(HttpFrontEnd {
            addr,
            node,
            accept_loop,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The search node it serves (read by the metrics port).
    pub fn node(&self) -> &Arc<Node> {
        &self.node
    }

    /// Whether its requests must authenticate (`http_security_dir` set).
    pub fn requires_authentication(&self) -> bool {
        self.node.requires_authentication()
    }

    /// After the shutdown token was cancelled: waits up to `grace` for
    /// requests in flight, then flushes every index.
    pub async fn stop(self, grace: Duration) {
        match tokio::time::timeout(grace, self.accept_loop).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(err))) => tracing::warn!(protocol = "http", %err, "accept loop failed"),
            Ok(Err(err)) => tracing::warn!(protocol = "http", %err, "accept loop ended abnormally"),
            Err(_) => tracing::warn!("HTTP requests still running after the grace period"),
        }
        match crate::server::blocking(|| self.node.shutdown()) {
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
