//! # strata-server: configuration and wiring of the Strata server
//!
//! Turns `strata serve` options into a running server: one keyspace (the
//! `strata-kv` engine) shared by the memcached and RESP front ends, the
//! search engine behind the Elasticsearch-compatible HTTP front end, each
//! served by the `strata-service` connection driver on one multi-thread tokio
//! runtime, until SIGINT or SIGTERM.
//!
//! ## Layout
//! - [`config`]: [`ServerConfig`] with its defaults, the TOML file and the
//!   command-line flags ([`ServeArgs`]); precedence flag > file > default;
//!   validation of every bound.
//! - [`logging`]: `tracing` output as text or JSON, `RUST_LOG` aware.
//! - [`auth`]: the RESP users and memcached logins read at start, and the
//!   rule against an open memcached port beside a protected RESP one.
//! - [`server`]: [`Server`], starting the engine, recovery, maintenance and
//!   listeners, and shutting them down in order.
//! - [`durability`]: [`ServerDurability`], persistence (`strata-persist`) as
//!   the front ends see it: durable replies, SAVE/BGSAVE, INFO fields.
//! - [`serve`]: [`run_serve`], the `strata serve` entry point (runtime and
//!   signals).
//! - [`http`]: the Elasticsearch-compatible front end (`strata-es`) and
//!   its search indices under `<data_dir>/search`.
//! - [`metrics`]: the Prometheus metrics port and its collectors.
//! - `front_end`: binding a port and spawning its accept loop; `ready`:
//!   the "strata ready" line; `blocking`: blocking work from async code;
//!   `version`: [`VERSION`].
//! - `listeners`: the ports as `strata-net` listeners (TLS, protected
//!   mode) and the start-up lines about them.
//! - [`error`]: [`ServerError`] and its exit codes.
//! - `fail_stop`: stopping at once when the command log or the SSD tier
//!   fails for good.
//! - [`checkpoint_cli`]: `strata checkpoint`, a checkpoint on demand of a
//!   running server.
//! - [`users_cli`]: `strata users`, the HTTP file realm's users and roles.
//!
//! This crate holds no protocol or storage logic: it only builds and connects
//! the pieces. It must never be imported by a lower layer.

#![forbid(unsafe_code)]

pub mod auth;
mod blocking;
mod caches;
pub mod checkpoint_cli;
pub mod config;
pub mod durability;
pub mod error;
mod fail_stop;
mod front_end;
pub mod http;
mod listeners;
pub mod logging;
pub mod metrics;
pub mod placement;
mod ready;
pub mod serve;
pub mod server;
pub mod users_cli;
mod version;

pub use checkpoint_cli::{run_checkpoint, CheckpointArgs};
pub use config::{
    ByteSize, EvictionMode, LogFormat, ProtectedModeSetting, ServeArgs, ServerConfig,
    TlsAuthClients,
};
pub use durability::ServerDurability;
pub use error::ServerError;
pub use serve::{run, run_serve};
pub use server::Server;
pub use users_cli::{run_users, UsersArgs};
pub use version::VERSION;
