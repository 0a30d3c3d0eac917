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
//! Modules import only downward (`scripts/import-graph` checks it): the
//! leaves (codec, reply, numbers, expiry, counters), then [`syntax`] and
//! [`shared`], the commands, the dispatcher, the session, the protocol.
//! - [`protocol`]: [`MemcacheProtocol`], the [`strata_service::Protocol`]
//!   the server runs; [`shared`]: the state all sessions share.
//! - [`session`]: one connection's state machine: framing, the streaming
//!   "swallow" of data blocks that will not be stored, dispatch.
//! - [`auth_file`] and [`login`]: memcached's ASCII authentication (`-Y`):
//!   the credentials file, and what a connection may do before it logs in.
//! - [`binary`]: the one reply to binary-protocol requests (an error, then
//!   the connection closes).
//! - [`codec`]: bytes to frames (command lines, their words, data blocks),
//!   without allocating.
//! - [`command`]: the dispatcher enum [`Command`] and word-count rules;
//!   [`syntax`]: the key rules, `noreply` and the parse error every
//!   command's parser shares.
//! - [`commands`]: one file per command or family, each with its parser and
//!   its execution against the keyspace; `meta_flags` is the flag parser
//!   shared by `mg`, `ms`, `md`, `ma`.
//! - [`reply`]: the one table from errors to wire replies.
//! - [`expiry`]: memcached expiration times to the engine's absolute
//!   milliseconds.
//! - [`numbers`]: memcached's exact number parsing (`safe_strtoul` & co).
//! - [`stats`]: protocol counters reported by `stats`; [`command_stats`]:
//!   calls, failures and latency per command for the metrics port.
//! - [`marks`]: the stale / recache-token marks of the meta protocol.
//! - [`base64`]: binary keys of meta commands.
//!
//! The crate never performs I/O (the service driver does) and never reads
//! the wall clock (the keyspace clock is the only time source), so a manual
//! clock drives every expiry in tests.
//!
//! ## Where Strata differs from memcached 1.6.18
//! Checked by sending identical bytes to both servers:
//! - `version` answers `1.6.18-strata-<version>`: clients read the leading
//!   memcached version (libmemcached refuses a major version of 0).
//! - `mg h`/`l` and `me`'s `fetch=`/`la=` always report "not fetched" and
//!   0 seconds: the engine records neither.
//! - A base64 key (`b`) is echoed base64-encoded whenever the request used
//!   `b` (memcached decides by how the item was stored); `me` prints a key as
//!   text when it is printable.
//! - Meta stale/recache marks live in a bounded side table keyed by the
//!   item's CAS ([`marks`]), not in the item.
//! - Newer memcached flags: `ms ... MA|MP N<ttl>` creates the item on a miss
//!   and `md x` empties the value; `E` (explicit CAS) is refused as in 1.6.18.
//! - A multiget with an over-long key drops only its own partial reply
//!   (memcached may also drop earlier pipelined replies of the same read).
//! - A line longer than 2048 bytes without a newline gets
//!   `CLIENT_ERROR line too long` before the close (memcached closes
//!   silently); multigets may be as long as the largest request.
//! - Keys with control characters get `CLIENT_ERROR bad command line
//!   format`, as protocol.txt requires (memcached itself stores them).
//! - The binary protocol is refused with a binary "Not supported" error
//!   and the connection closed (memcached speaks it; `-B ascii` memcached
//!   waits for a text line instead).
//! - `stats` leaves out slab, LRU and hash-table internals; `get_expired`,
//!   `get_flushed`, `expired_unfetched`, `evicted_unfetched` are 0.

#![forbid(unsafe_code)]

pub mod auth_file;
pub mod base64;
pub mod binary;
pub mod codec;
pub mod command;
pub mod command_stats;
pub mod commands;
pub mod expiry;
pub mod login;
pub mod marks;
pub mod numbers;
mod prefetch;
pub mod prefix_stats;
pub mod protocol;
pub mod reply;
pub mod session;
pub mod shared;
pub mod stats;
pub mod syntax;

pub use command::Command;
pub use protocol::MemcacheProtocol;
pub use session::MemcacheSession;
