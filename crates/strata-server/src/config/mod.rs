//! The server's settings: built-in defaults, overridden by a TOML file
//! (`--config`), overridden by command-line flags. [`ServerConfig::load`]
//! merges the three and validates the result, so the rest of the server only
//! ever sees settings within their bounds.
//!
//! - `settings`: [`ServerConfig`], its defaults and general bounds.
//! - `apply`: the flags over the file ([`ServerConfig::load`]).
//! - `rules`: per area, the checks and the lower layers' settings.
//! - [`args`]: the `strata serve` flags ([`ServeArgs`]).
//! - [`ByteSize`]: human-readable sizes, from `strata-units`.
//! - [`modes`]: the eviction mode and log format.
//! - [`persistence`]: the command log and checkpoints.
//! - [`tiers`]: the placement of index and records, the pmem file.
//! - [`search`]: the search engine's default tier, block cache budget
//!   and persistent-memory directory.
//! - [`transport`]: TLS, protected mode, idle and request timeouts.
//! - [`observability`]: the Prometheus metrics port and the Redis slow
//!   log's start values.
//!
//! The HTTP (Elasticsearch-compatible) front end is configured here too:
//! `http_port`, `http_enabled`, `http_max_body`, `http_security_dir`
//! (the file realm that turns authentication on); its data lives under
//! `<data_dir>/search`.

mod apply;
pub mod args;
pub mod modes;
pub mod observability;
pub mod persistence;
mod rules;
pub mod search;
mod settings;
pub mod tiers;
pub mod transport;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod transport_tests;

pub use args::ServeArgs;
pub use modes::{DebugCommand, EvictionMode, LogFormat};
pub use persistence::{HumanDuration, LogDevice, PersistenceMode, RecoveryMode};
pub use search::SearchTier;
pub use settings::{
    ServerConfig, MAX_BULK_LEN, MAX_CONNECTIONS, MAX_HTTP_BODY, MAX_ITEM_SIZE, MAX_SHARDS,
    MAX_THREADS, MIN_BULK_LEN, MIN_HTTP_BODY, MIN_ITEM_SIZE, MIN_MEMORY_LIMIT,
};
pub use strata_units::ByteSize;
pub use tiers::{DataPlacement, IndexPlacement, PmemPersist, SsdIo, SsdIoEngine, SsdReads};
pub use transport::{ProtectedModeSetting, TlsAuthClients, TransportArgs};
