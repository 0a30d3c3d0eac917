//! `DEBUG DIGEST` and `DEBUG DIGEST-VALUE`: Redis's SHA-1 digests, byte
//! for byte, so the same data digests the same in Redis and Strata.
//!
//! Unordered elements (keys, set members, hash fields, sorted set
//! entries) are *xored* in, so their order does not matter; ordered ones
//! (list elements, stream entries) are *mixed* (`SHA1(digest ^
//! SHA1(data))`), so it does. A value's digest starts with its RDB type
//! and ends with `!!expire!!` when the key has a time to live; the
//! dataset's xors every key's (name mixed first) after the database
//! number, and is 40 zeros when empty. Stream digests cover the entries
//! only, as Redis's do.
//!
//! The session runs `DEBUG` with the whole keyspace held, so the dataset
//! digest is one snapshot, as Redis's is.

use std::fmt::Write as _;

use sha1::{Digest as _, Sha1};
use strata_kv::Store;

use crate::commands::dump::read_value;
use crate::number::format_double;
use crate::rdb::Value;
use crate::reply::RespError;

/// A running digest.
type Digest = [u8; 20];

/// Keys visited per scan step.
const STEP: usize = 1024;

fn xor(digest: &mut Digest, data: &[u8]) {
    let hash = Sha1::digest(data);
    digest.iter_mut().zip(hash).for_each(|(d, h)| *d ^= h);
}

fn mix(digest: &mut Digest, data: &[u8]) {
    xor(digest, data);
    *digest = Sha1::digest(&digest[..]).into();
}

fn hex(digest: &Digest) -> String {
    let mut text = String::with_capacity(40);
    for byte in digest {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// Mixes in `value` as Redis's `xorObjectDigest` does.
fn value_digest(digest: &mut Digest, value: &Value, expires: bool) {
    // Redis's object type numbers (not the RDB encodings).
    let kind: u32 = match value {
        Value::String(_) => 0,
        Value::List(_) => 1,
        Value::Set(_) => 2,
        Value::SortedSet(_) => 3,
        Value::Hash(_) => 4,
        Value::Stream(_) => 6,
    };
    mix(digest, &kind.to_be_bytes());
    match value {
        Value::String(bytes) => mix(digest, bytes),
        Value::List(elements) => elements.iter().for_each(|e| mix(digest, e)),
        Value::Set(members) => members.iter().for_each(|m| xor(digest, m)),
        Value::SortedSet(entries) => {
            for (score, member) in entries {
                let mut element = [0; 20];
                mix(&mut element, member);
                mix(&mut element, format_double(*score).as_bytes());
                xor(digest, &element);
            }
        }
        Value::Hash(pairs) => {
            for pair in pairs.chunks_exact(2) {
                let mut element = [0; 20];
                mix(&mut element, &pair[0]);
                mix(&mut element, &pair[1]);
                xor(digest, &element);
            }
        }
        Value::Stream(stream) => {
            for ((ms, seq), fields) in &stream.entries {
                mix(digest, format!("{ms}.{seq}").as_bytes());
                fields.iter().for_each(|f| mix(digest, f));
            }
        }
    }
    if expires {
        xor(digest, b"!!expire!!");
    }
}

/// The digest of the value at `key` alone (not its name), or 40 zeros
/// when it is missing: `DEBUG DIGEST-VALUE`.
pub fn key<S: Store>(store: &mut S, key: &[u8]) -> Result<String, RespError> {
    let mut digest = [0; 20];
    if let Some(value) = read_value(store, key)? {
        let expires = matches!(store.expiry(key), Some(Some(_)));
        value_digest(&mut digest, &value, expires);
    }
    Ok(hex(&digest))
}

/// The digest of every key and value: `DEBUG DIGEST`.
pub fn dataset<S: Store>(store: &mut S) -> Result<String, RespError> {
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut cursor = 0;
    loop {
        cursor = store.scan_keys(cursor, STEP, &mut |key| keys.push(key.to_vec()));
        if cursor == 0 {
            break;
        }
    }
    // A scan may visit a key twice when the index grows meanwhile.
    keys.sort_unstable();
    keys.dedup();
    let mut total = [0; 20];
    let mut any = false;
    for key in &keys {
        let Some(value) = read_value(store, key)? else {
            continue; // deleted since the scan
        };
        if !any {
            // The database number (0) goes first, as in Redis.
            mix(&mut total, &0u32.to_be_bytes());
            any = true;
        }
        let mut digest = [0; 20];
        mix(&mut digest, key);
        let expires = matches!(store.expiry(key), Some(Some(_)));
        value_digest(&mut digest, &value, expires);
        xor(&mut total, &digest);
    }
    Ok(hex(&total))
}
