//! strata-server's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-server --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;
#[path = "transport_support/mod.rs"]
mod transport_support;

#[path = "caches.rs"]
mod caches;
#[path = "cluster_config.rs"]
mod cluster_config;
#[path = "cluster_slots.rs"]
mod cluster_slots;
#[path = "limits.rs"]
mod limits;
#[path = "metrics.rs"]
mod metrics;
#[path = "persistence.rs"]
mod persistence;
#[path = "protected_mode.rs"]
mod protected_mode;
#[path = "server.rs"]
mod server;
#[path = "shared_store.rs"]
mod shared_store;
#[path = "ssd_rings.rs"]
mod ssd_rings;
#[path = "stream_restart.rs"]
mod stream_restart;
#[path = "tls.rs"]
mod tls;
