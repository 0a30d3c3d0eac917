//! One file per command or tight family of commands. Key commands are
//! generic over [`strata_kv::Store`] so they run unchanged on the shared
//! store and inside `EXEC`'s exclusive section; each parses its own
//! arguments (arity was checked by the dispatcher), returns a
//! [`RespError`](crate::reply::RespError) without writing anything when it
//! refuses, and otherwise appends exactly one reply (but `MONITOR` on a
//! connection already monitoring, which Redis answers with nothing).
//!
//! Handlers MUST reach the keyspace only through `ctx.store` (never
//! `Keyspace::store()` or `Keyspace::watch()`): inside `EXEC` every shard
//! is already locked.

pub mod acl;
pub mod append;
pub mod atomic;
pub mod auth;
pub mod bitmap;
pub mod blocking_pop;
pub mod client;
pub mod client_kill;
mod client_pause;
mod client_tracking;
mod client_unblock;
pub mod cluster;
pub mod collection;
pub mod collection_scan;
pub mod command_info;
pub mod config;
pub mod copy;
pub mod dbsize;
pub mod debug;
pub mod del;
pub mod dump;
pub mod eval;
pub mod exists;
pub mod expire;
pub mod failover;
pub mod fcall;
pub mod flush;
pub mod function;
pub mod geo;
pub mod get;
pub mod getex;
pub mod getrange;
pub mod getset;
pub mod hash;
pub mod hashed;
pub mod hello;
pub mod hyperloglog;
pub mod incr;
pub mod incrbyfloat;
pub mod info;
pub mod key_type;
pub mod keys;
pub mod latency;
pub mod lcs;
pub mod list;
pub mod lolwut;
pub mod memory;
pub mod mget;
pub mod migrate;
pub mod module;
pub mod monitor;
pub mod move_key;
pub mod mset;
pub mod multi;
pub mod object;
pub mod persist;
pub mod ping;
pub mod publish;
pub mod pubsub;
pub mod quit;
pub mod randomkey;
pub mod rename;
pub mod replconf;
pub mod replicaof;
pub mod restore;
pub mod role;
pub mod save;
pub mod scan;
pub mod script;
pub mod select;
pub mod set;
pub mod setex;
pub mod setrange;
pub mod sets;
pub mod shutdown;
pub mod slowlog;
pub mod sort;
pub mod stream;
pub mod strlen;
pub mod subscribe;
pub mod swapdb;
pub mod sync;
pub mod time;
pub mod touch;
pub mod ttl;
pub mod wait;
pub mod waitaof;
pub mod watch;
pub mod zset;
