//! `--workload`: which data type the sets and gets of a RESP run exercise.
//!
//! | workload | set | get |
//! |---|---|---|
//! | `string` | `SET key value` | `GET key` |
//! | `hash` | `HSET key f<n> value` | `HGET key f<n>` |
//! | `list` | `LPUSH key value` | `LPOP key` |
//! | `zset` | `ZADD key <n> m<n>` | `ZRANGE key 0 9` |
//!
//! `n` cycles through 0..[`FIELDS`] per connection, so hashes hold up to ten
//! fields and sorted sets up to ten members per key, the shapes of the
//! issue's targets (sessions in small hashes, leaderboards).

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use super::protocol::{resp, Protocol};

/// Distinct fields (hash) or members (sorted set) a connection cycles through.
pub const FIELDS: u64 = 10;

/// The data type a run exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// Strings: SET / GET (either protocol).
    #[default]
    String,
    /// Hashes: HSET / HGET (RESP only).
    Hash,
    /// Lists: LPUSH / LPOP (RESP only).
    List,
    /// Sorted sets: ZADD / ZRANGE 0 9 (RESP only).
    Zset,
}

impl Workload {
    /// Whether `protocol` can run it.
    pub fn supports(self, protocol: Protocol) -> bool {
        self == Workload::String || protocol == Protocol::Resp
    }

    /// Appends the write of operation number `n` on `key`.
    pub fn encode_set(
        self,
        protocol: Protocol,
        out: &mut Vec<u8>,
        key: &[u8],
        value: &[u8],
        n: u64,
    ) {
        let mut field = [0u8; 24];
        let i = n % FIELDS;
        match self {
            Workload::String => protocol.encode_set(out, key, value),
            Workload::Hash => {
                resp::encode_command(out, &[b"HSET", key, named(&mut field, b'f', i), value])
            }
            Workload::List => resp::encode_command(out, &[b"LPUSH", key, value]),
            Workload::Zset => {
                let mut score = itoa::Buffer::new();
                let score = score.format(i).as_bytes();
                resp::encode_command(out, &[b"ZADD", key, score, named(&mut field, b'm', i)]);
            }
        }
    }

    /// Appends the read of operation number `n` on `key`.
    pub fn encode_get(self, protocol: Protocol, out: &mut Vec<u8>, key: &[u8], n: u64) {
        let mut field = [0u8; 24];
        match self {
            Workload::String => protocol.encode_get(out, key),
            Workload::Hash => {
                resp::encode_command(out, &[b"HGET", key, named(&mut field, b'f', n % FIELDS)])
            }
            Workload::List => resp::encode_command(out, &[b"LPOP", key]),
            Workload::Zset => resp::encode_command(out, &[b"ZRANGE", key, b"0", b"9"]),
        }
    }
}

/// `prefix` followed by the decimal `i`, written into `buf`.
fn named(buf: &mut [u8; 24], prefix: u8, i: u64) -> &[u8] {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(i).as_bytes();
    buf[0] = prefix;
    buf[1..=digits.len()].copy_from_slice(digits);
    &buf[..=digits.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let mut out = Vec::new();
        Workload::Hash.encode_set(Protocol::Resp, &mut out, b"k", b"v", 13);
        assert_eq!(
            out,
            b"*4\r\n$4\r\nHSET\r\n$1\r\nk\r\n$2\r\nf3\r\n$1\r\nv\r\n"
        );
        out.clear();
        Workload::Zset.encode_get(Protocol::Resp, &mut out, b"k", 0);
        assert_eq!(
            out,
            b"*4\r\n$6\r\nZRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$1\r\n9\r\n"
        );
        assert!(!Workload::List.supports(Protocol::Memcache));
    }
}
