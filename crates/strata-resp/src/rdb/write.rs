//! [`dump`]: a [`Value`] as a `DUMP` payload, in the plain encodings that
//! every Redis 7 (and Redis back to 4.0) loads, each converted on load to
//! whatever encoding that Redis prefers: strings raw (type 0), lists one
//! string per element (1), sets one per member (2), sorted sets members
//! with binary scores (`ZSET_2`, 5), hashes fields and values (4),
//! streams as Redis 7.0 writes them (`stream`, 19). Then
//! the footer ([`seal`](super::format::seal)) with [`VERSION`](super::format::VERSION).

use super::format::{kind, put_length, put_string, seal, Value, VERSION};
use super::stream;

/// The whole `DUMP` payload of `value`.
pub fn dump(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    put_object(&mut out, value);
    seal(&mut out, VERSION);
    out
}

/// Appends `value` as an RDB object: its type byte and body (a `DUMP`
/// payload's start, and each key's value in an RDB file).
pub fn put_object(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::String(s) => {
            out.push(kind::STRING);
            put_string(out, s);
        }
        Value::List(elements) | Value::Set(elements) => {
            let is_list = matches!(value, Value::List(_));
            out.push(if is_list { kind::LIST } else { kind::SET });
            put_length(out, elements.len() as u64);
            for e in elements {
                put_string(out, e);
            }
        }
        Value::Hash(pairs) => {
            out.push(kind::HASH);
            put_length(out, (pairs.len() / 2) as u64);
            for e in pairs {
                put_string(out, e);
            }
        }
        Value::SortedSet(entries) => {
            out.push(kind::ZSET_2);
            put_length(out, entries.len() as u64);
            for (score, member) in entries {
                put_string(out, member);
                out.extend_from_slice(&score.to_le_bytes());
            }
        }
        Value::Stream(s) => stream::write(out, s),
    }
}
