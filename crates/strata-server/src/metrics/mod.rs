//! The Prometheus metrics port (`metrics_enabled`, `metrics_port`,
//! default 9464, as OpenTelemetry's Prometheus exporter): `GET /metrics`
//! answers Prometheus's text format (0.0.4) rendered by prometheus-client
//! from collectors that read the engines at scrape time.
//!
//! Nothing here is on a request path: the front ends record into their
//! own lock-free counters (`strata_metrics`, the engines' stats structs)
//! and the collectors only read them.
//!
//! - `encode`: one metric family through prometheus-client's encoder.
//! - `kv`: commands and latency per protocol and command, connections,
//!   the keyspace, memory by tier, the SSD tier and record cache.
//! - `persistence`: the command log and checkpoints.
//! - `process`: the memory allocator's bytes by state.
//! - `search`: per-index figures, search and indexing latency, the block
//!   cache.
//! - `http`: the port itself (hyper over a `strata-net` listener: TLS and
//!   protected mode as the other ports).
//!
//! Metric names carry the `strata_` prefix and their unit (`_seconds`,
//! `_bytes`, `_total`); labels name the `protocol`, `command`, `tier`,
//! `index` or `phase`.

mod encode;
mod http;
mod kv;
mod persistence;
mod process;
mod search;

use std::net::SocketAddr;
use std::sync::Arc;

use prometheus_client::registry::Registry;
use strata_es::NodeState;
use strata_kv::Keyspace;
use strata_net::Listener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::durability::ServerDurability;
pub(crate) use kv::FrontEndCounters;

/// What the metrics port reads.
pub(crate) struct Sources {
    pub keyspace: Arc<Keyspace>,
    pub durability: Arc<ServerDurability>,
    pub checkpoint_min_log_bytes: u64,
    pub front_ends: Vec<(&'static str, Arc<dyn FrontEndCounters>)>,
    pub resp: Option<Arc<strata_resp::protocol::Shared>>,
    pub search: Option<Arc<NodeState>>,
}

/// The registry of every collector.
pub(crate) fn registry(sources: Sources) -> Registry {
    let mut registry = Registry::with_prefix("strata");
    registry.register_collector(Box::new(kv::KvCollector {
        keyspace: sources.keyspace,
        front_ends: sources.front_ends,
        resp: sources.resp,
    }));
    registry.register_collector(Box::new(persistence::PersistenceCollector {
        durability: sources.durability,
        checkpoint_min_log_bytes: sources.checkpoint_min_log_bytes,
    }));
    registry.register_collector(Box::new(process::ProcessCollector));
    if let Some(state) = sources.search {
        registry.register_collector(Box::new(search::SearchCollector { state }));
    }
    registry
}

/// The running metrics port.
pub struct MetricsPort {
    addr: SocketAddr,
    accept_loop: JoinHandle<()>,
}

impl MetricsPort {
    /// Serves `registry` on `listener` (bound to `addr`) until `shutdown`.
    pub(crate) fn start(
        listener: Listener,
        addr: SocketAddr,
        registry: Registry,
        header_timeout: std::time::Duration,
        shutdown: &CancellationToken,
    ) -> MetricsPort {
        let accept_loop = tokio::spawn(http::serve(
            listener,
            Arc::new(registry),
            header_timeout,
            shutdown.clone(),
        ));
        MetricsPort { addr, accept_loop }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// After the shutdown token was cancelled: waits for the accept loop.
    pub async fn stop(self) {
        if let Err(err) = self.accept_loop.await {
            tracing::warn!(protocol = "metrics", %err, "accept loop ended abnormally");
        }
    }
}
