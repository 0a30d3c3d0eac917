//! Wire codecs for the load generator: request encoding and reply framing for the memcached
//! text protocol ([`memcache`]) and Redis RESP ([`resp`]).
//!
//! Encoders append to a caller-owned buffer and never allocate once it has grown. Parsers are
//! incremental and stateless: given the bytes received so far they either report one complete
//! reply (its [`ReplyKind`] and byte length), say that more bytes are needed (`Ok(None)`,
//! without allocating or copying), or reject bytes that can never become a valid reply. They
//! classify replies; they never decode payloads, since a benchmark only needs to count them.

pub mod memcache;
pub mod resp;
mod wire;

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
pub(crate) use wire::{parse_u64, push_decimal, show, split_line};
pub use wire::{Op, ProtocolError, Reply, ReplyKind, MAX_DEPTH, MAX_LINE};

/// Which wire protocol the benchmark speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// memcached text protocol (`set`/`get`).
    Memcache,
    /// Redis serialization protocol (`SET`/`GET`).
    Resp,
}

impl Protocol {
    /// The command-line name: `memcache` or `resp`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Memcache => "memcache",
            Protocol::Resp => "resp",
        }
    }

    /// The server port used when `--port` is not given.
    pub fn default_port(self) -> u16 {
        match self {
            Protocol::Memcache => 11211,
            Protocol::Resp => 6379,
        }
    }

    /// Appends a request storing `value` under `key`. `key` must not contain whitespace or
    /// control bytes (memcached would reject it).
    pub fn encode_set(self, out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
        match self {
            Protocol::Memcache => memcache::encode_set(out, key, value),
            Protocol::Resp => resp::encode_command(out, &[b"SET", key, value]),
        }
    }

    /// Appends a request reading `key`.
    pub fn encode_get(self, out: &mut Vec<u8>, key: &[u8]) {
        match self {
            Protocol::Memcache => memcache::encode_get(out, key),
            Protocol::Resp => resp::encode_command(out, &[b"GET", key]),
        }
    }

    /// Appends a request removing every key (`flush_all` / `FLUSHALL`).
    pub fn encode_flush(self, out: &mut Vec<u8>) {
        match self {
            Protocol::Memcache => memcache::encode_flush(out),
            Protocol::Resp => resp::encode_command(out, &[b"FLUSHALL"]),
        }
    }

    /// Frames the reply at the front of `buf`: `Ok(Some)` when complete, `Ok(None)` when more
    /// bytes are needed, `Err` when the bytes are not a valid reply.
    pub fn parse_reply(self, buf: &[u8]) -> Result<Option<Reply>, ProtocolError> {
        match self {
            Protocol::Memcache => memcache::parse_reply(buf),
            Protocol::Resp => resp::parse_reply(buf),
        }
    }
}

#[cfg(test)]
mod tests;
