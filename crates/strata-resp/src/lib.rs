//! # strata-resp: the Redis protocol front end
//!
//! Speaks RESP2 and RESP3 so that `redis-cli`, `redis-benchmark` and client
//! libraries work unchanged against Strata's keyspace (the one memcached
//! clients share: items written here have flags 0). Redis 7 semantics and
//! error texts for strings, keys, transactions and server commands.
//!
//! ## Layout
//! - [`acl`]: users, permissions and the ACL file (Redis 6/7 ACLs).
//! - [`protocol`]: [`RespProtocol`], what the server crate plugs into the
//!   connection driver, and the state all sessions share.
//! - [`session`]: [`RespSession`], one connection's request loop: parse,
//!   check (name, arity, authentication), queue inside `MULTI`, run.
//! - [`codec`]: RESP2 request parsing (multibulk and inline), with limits
//!   enforced before anything is buffered.
//! - [`args`]: the arguments of one request, borrowed or owned.
//! - [`writer`]: reply encoding for RESP2 and RESP3.
//! - [`reply`]: the one table of error replies, including engine errors.
//! - [`command`]: the dispatcher enum and `execute`, generic over the
//!   engine's `Store`; [`table`]: the command table behind `COMMAND`.
//! - [`commands`]: one file per command or tight family.
//! - [`connection`]: per-connection state (version, user, queue, watches).
//! - [`permissions`]: ACLs applied to a connection (user refresh, checks,
//!   `AUTH`, the denial log).
//! - [`stats`] and [`info`]: counters and the `INFO` report;
//!   [`command_stats`]: calls, failures, refusals and latency per command
//!   (`INFO commandstats`/`latencystats`, the metrics port).
//! - [`slowlog`]: the slow log (`SLOWLOG`, `slowlog-*` settings).
//! - [`glob`]: Redis glob matching; [`number`]: Redis number parsing and
//!   formatting.
//!
//! This crate performs no network I/O itself (the driver in
//! `strata-service` does; the only file it touches is the ACL file, on
//! `ACL LOAD`/`ACL SAVE`) and never reaches into the engine beyond its
//! public API.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod acl;
pub mod args;
pub mod blocking;
pub mod codec;
pub mod command;
pub mod command_stats;
pub mod commands;
pub mod connection;
pub mod errorstats;
pub mod glob;
pub mod info;
pub mod number;
pub mod permissions;
pub mod protocol;
pub mod pubsub;
pub mod reply;
pub mod scripting;
pub mod session;
pub mod slowlog;
pub mod stats;
pub mod table;
pub mod writer;

pub use protocol::RespProtocol;
pub use session::RespSession;
