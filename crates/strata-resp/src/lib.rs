//! # strata-resp: the Redis protocol front end
//!
//! Speaks RESP2 and RESP3 so that `redis-cli`, `redis-benchmark` and client
//! libraries work unchanged against Strata's keyspace (the one memcached
//! clients share: items written here have flags 0). Redis 7 semantics and
//! error texts for strings, keys, transactions and server commands.
//!
//! ## Layout
//! Modules import only downward (`scripts/import-graph` checks it). Bottom
//! up: the leaves (codec, args, writer, reply, numbers, glob, counters);
//! [`spec`] and [`table`] (the command table, naming only each collection
//! folder's `op.rs`), [`lookup`]; [`acl`]; [`connection`] and [`shared`];
//! [`command`] (`Ctx`); the handlers in [`commands`]; [`route`] (every
//! command a script may call); [`scripting`]; [`dispatch`] (adds `EVAL`);
//! [`invoke`], [`session`], [`protocol`].
//! - [`acl`]: users, permissions and the ACL file (Redis 6/7 ACLs).
//! - [`protocol`]: [`RespProtocol`], what the server crate plugs into the
//!   connection driver; [`shared`]: the state all sessions share.
//! - [`session`]: [`RespSession`], one connection's request loop: parse,
//!   check (name, arity, authentication), queue inside `MULTI`, run.
//! - [`codec`]: RESP2 request parsing (multibulk and inline), with limits
//!   enforced before anything is buffered.
//! - [`args`]: the arguments of one request, borrowed or owned.
//! - [`writer`]: reply encoding for RESP2 and RESP3.
//! - [`reply`]: the one table of error replies, including engine errors.
//! - [`spec`]: the command table's row types; [`table`]: the command table
//!   behind `COMMAND`; [`lookup`]: finding a row by name; [`command`]: what
//!   a handler works with; [`route`] and [`dispatch`]: `execute`, generic
//!   over the engine's `Store`; [`invoke`]: running and counting one
//!   checked command ([`call_stats`]: the counting, a script's commands'
//!   too).
//! - [`commands`]: one file per command or tight family.
//! - [`connection`]: per-connection state (version, user, queue, watches:
//!   [`watched`]);
//!   [`client_eviction`]: `maxmemory-clients` over all of them;
//!   [`protected`]: who may run `DEBUG` (`enable-debug-command`).
//! - [`permissions`]: ACLs applied to a connection (user refresh, checks,
//!   `AUTH`, the denial log).
//! - [`stats`] and [`info`]: counters and the `INFO` report;
//!   [`command_stats`]: calls, failures, refusals and latency per command
//!   (`INFO commandstats`/`latencystats`, the metrics port).
//! - [`slowlog`]: the slow log (`SLOWLOG`, `slowlog-*` settings);
//!   [`latency`]: the latency monitor (`LATENCY`,
//!   `latency-monitor-threshold`); [`redact`]: the secrets the slow log
//!   and `MONITOR` hide.
//! - [`notify`]: keyspace notifications (`notify-keyspace-events`);
//!   with them off, a write pays one relaxed load.
//! - [`monitor`]: the `MONITOR` connections and their lines; nobody
//!   monitoring costs a command one relaxed load.
//! - [`blocking`]: blocked clients (`BLPOP` and the other blocking
//!   commands, `CLIENT UNBLOCK`); [`pause`]: `CLIENT PAUSE`; both wait in
//!   the connection, never on a worker thread.
//! - [`glob`]: Redis glob matching; [`number`]: Redis number parsing and
//!   formatting.
//! - [`rdb`]: Redis's RDB object format (`DUMP`, `RESTORE`, `FUNCTION
//!   DUMP`), a leaf.
//!
//! This crate performs no network I/O itself (the driver in
//! `strata-service` does; the only file it touches is the ACL file, on
//! `ACL LOAD`/`ACL SAVE`) and never reaches into the engine beyond its
//! public API.

#![deny(unsafe_code)]

pub mod acl;
pub mod args;
pub mod blocking;
pub mod call_stats;
pub mod client_eviction;
pub mod client_line;
pub mod cluster;
pub mod codec;
pub mod command;
pub mod command_stats;
pub mod commands;
pub mod connection;
pub mod debug_arm;
pub mod dispatch;
pub mod encodings;
pub mod errorstats;
mod file_path;
pub mod geo;
pub mod glob;
pub mod hll;
pub mod info;
pub mod invoke;
pub mod key_args;
pub mod latency;
pub mod lookup;
pub mod monitor;
pub mod notify;
pub mod number;
pub mod pause;
pub mod permissions;
mod prefetch;
pub mod process;
pub mod protected;
pub mod protocol;
pub mod pubsub;
pub mod rdb;
pub mod redact;
pub mod reply;
pub mod route;
pub mod scripting;
pub mod session;
pub mod shared;
pub mod slowlog;
pub mod spec;
pub mod stats;
pub mod stream;
pub mod table;
pub mod tracking;
pub mod watched;
pub mod writer;

pub use protocol::RespProtocol;
pub use session::RespSession;
