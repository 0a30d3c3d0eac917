//! [`dump`]: a [`Value`] as a `DUMP` payload, in the plain encodings that
//! every Redis 7 (and Redis back to 4.0) loads, each converted on load to
//! whatever encoding that Redis prefers: strings raw (type 0), lists one
//! string per element (1), sets one per member (2), sorted sets members
//! with binary scores (`ZSET_2`, 5), hashes fields and values (4). Then
//! the footer ([`seal`](super::format::seal)) with [`VERSION`](super::format::VERSION).

use super::format::{kind, seal, Value, VERSION};

/// RDB's length encoding.
pub fn put_length(out: &mut Vec<u8>, len: u64) {
    if len < 1 << 6 {
        out.push(len as u8);
    } else if len < 1 << 14 {
        out.push(0x40 | (len >> 8) as u8);
        out.push(len as u8);
    } else if len <= u64::from(u32::MAX) {
        out.push(0x80);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// An RDB string, raw.
pub fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
    put_length(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// The whole `DUMP` payload of `value`.
pub fn dump(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    match value {
        Value::String(s) => {
            out.push(kind::STRING);
            put_string(&mut out, s);
        }
        Value::List(elements) | Value::Set(elements) => {
            let is_list = matches!(value, Value::List(_));
            out.push(if is_list { kind::LIST } else { kind::SET });
            put_length(&mut out, elements.len() as u64);
            for e in elements {
                put_string(&mut out, e);
            }
        }
        Value::Hash(pairs) => {
            out.push(kind::HASH);
            put_length(&mut out, (pairs.len() / 2) as u64);
            for e in pairs {
                put_string(&mut out, e);
            }
        }
        Value::SortedSet(entries) => {
            out.push(kind::ZSET_2);
            put_length(&mut out, entries.len() as u64);
            for (score, member) in entries {
                put_string(&mut out, member);
                out.extend_from_slice(&score.to_le_bytes());
            }
        }
    }
    seal(&mut out, VERSION);
    out
}
