//! # strata-memcache: the memcached text protocol front end
//!
//! Speaks memcached 1.6's text protocol, classic and meta commands, so
//! existing clients (pymemcache, libmemcached tools, the Rust `memcache`
//! crate, proxies using meta commands) work unchanged against Strata's
//! keyspace. Replies match memcached's bytes, including its error texts,
//! `noreply` rules and the framing of malformed input; where Strata cannot
//! know something memcached reports (hit-before, last access), the crate
//! documents what it answers instead.
//!
//! ## Layout
//! - [`protocol`]: [`MemcacheProtocol`], the [`strata_service::Protocol`]
//!   the server runs, and the state all sessions share.
//! - [`session`]: one connection's state machine: framing, the streaming
//!   "swallow" of data blocks that will not be stored, dispatch.
//! - [`codec`]: bytes to frames (command lines, their words, data blocks),
//!   without allocating.
//! - [`command`]: the dispatcher enum [`Command`] and word-count rules.
//! - [`commands`]: one file per command or family, each with its parser and
//!   its execution against the keyspace; `meta_flags` is the flag parser
//!   shared by `mg`, `ms`, `md`, `ma`.
//! - [`reply`]: the one table from errors to wire replies.
//! - [`expiry`]: memcached expiration times to the engine's absolute
//!   milliseconds.
//! - [`numbers`]: memcached's exact number parsing (`safe_strtoul` & co).
//! - [`stats`]: protocol counters reported by `stats`.
//! - [`marks`]: the stale / recache-token marks of the meta protocol.
//! - [`base64`]: binary keys of meta commands.
//!
//! The crate never performs I/O (the service driver does) and never reads
//! the wall clock (the keyspace clock is the only time source), so a manual
//! clock drives every expiry in tests.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod base64;
pub mod codec;
pub mod command;
pub mod commands;
pub mod expiry;
pub mod marks;
pub mod numbers;
pub mod protocol;
pub mod reply;
pub mod session;
pub mod stats;

pub use command::Command;
pub use protocol::MemcacheProtocol;
pub use session::MemcacheSession;
