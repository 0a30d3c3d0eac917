//! [`parse`]: a `DUMP` payload's body (after [`open`](super::format::open)) as a
//! [`Value`], from every encoding Redis 7.0 to 7.4 writes for these types:
//! strings; lists as quicklists of listpacks (plain nodes too) or of
//! ziplists, as ziplists, or one string per element; sets as intsets,
//! listpacks or one string per member; sorted sets as listpacks or
//! ziplists, or members with binary or text scores; hashes as listpacks or
//! ziplists, or fields and values. Redis refuses an empty collection, a
//! member or field twice and a NaN score: so does this. Streams are
//! `stream`'s; any other type, or bytes left over, is bad data.

use std::collections::HashSet;

use super::format::{kind, StreamValue, Value};
use super::read::{parse_double, Reader};
use super::{listpack, stream, ziplist};
use crate::reply::DumpError;

/// Quicklist node containers (`QUICKLIST_NODE_CONTAINER_*`).
const PLAIN: u64 = 1;
const PACKED: u64 = 2;

/// The value in `body`; strings inflate to at most `max_string` bytes.
pub fn parse(body: &[u8], max_string: usize) -> Result<Value, DumpError> {
    let mut r = Reader::new(body, max_string);
    let rdb_type = r.byte().ok_or(DumpError::Format)?;
    let value = object(&mut r, rdb_type).ok_or(DumpError::Format)?;
    if !r.at_end() {
        return Err(DumpError::Format);
    }
    check(value).ok_or(DumpError::Format)
}

/// The object of `rdb_type` at the reader.
fn object(r: &mut Reader<'_>, rdb_type: u8) -> Option<Value> {
    Some(match rdb_type {
        kind::STRING => Value::String(r.string()?.into_owned()),
        kind::LIST => Value::List(strings(r, 1)?),
        kind::SET => Value::Set(strings(r, 1)?),
        kind::HASH => Value::Hash(strings(r, 2)?),
        kind::ZSET | kind::ZSET_2 => {
            let n = r.count(2)?;
            let mut entries = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let member = r.string()?.into_owned();
                let score = match rdb_type {
                    kind::ZSET => r.text_double()?,
                    _ => r.binary_double()?,
                };
                entries.push((score, member));
            }
            Value::SortedSet(entries)
        }
        kind::LIST_ZIPLIST => Value::List(ziplist::entries(&r.string()?)?),
        kind::SET_INTSET => Value::Set(ziplist::intset(&r.string()?)?),
        kind::SET_LISTPACK => Value::Set(listpack::entries(&r.string()?)?),
        kind::HASH_ZIPLIST => Value::Hash(ziplist::entries(&r.string()?)?),
        kind::HASH_LISTPACK => Value::Hash(listpack::entries(&r.string()?)?),
        kind::ZSET_ZIPLIST => Value::SortedSet(scored(ziplist::entries(&r.string()?)?)?),
        kind::ZSET_LISTPACK => Value::SortedSet(scored(listpack::entries(&r.string()?)?)?),
        kind::LIST_QUICKLIST | kind::LIST_QUICKLIST_2 => {
            let nodes = r.count(1)?;
            let mut elements = Vec::new();
            for _ in 0..nodes {
                let container = match rdb_type {
                    kind::LIST_QUICKLIST => PACKED,
                    _ => r.number()?,
                };
                let blob = r.string()?;
                match (container, rdb_type) {
                    (PLAIN, _) => elements.push(blob.into_owned()),
                    (PACKED, kind::LIST_QUICKLIST) => elements.extend(ziplist::entries(&blob)?),
                    (PACKED, _) => elements.extend(listpack::entries(&blob)?),
                    _ => return None,
                }
            }
            Value::List(elements)
        }
        kind::STREAM_LISTPACKS | kind::STREAM_LISTPACKS_2 | kind::STREAM_LISTPACKS_3 => {
            Value::Stream(Box::new(stream::read(r, rdb_type)?))
        }
        _ => return None,
    })
}

/// A count, then that many strings times `per` (a hash: 2 per field).
fn strings(r: &mut Reader<'_>, per: usize) -> Option<Vec<Vec<u8>>> {
    let n = r.count(per)?.checked_mul(per)?;
    let mut out = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        out.push(r.string()?.into_owned());
    }
    Some(out)
}

/// Members and scores alternating (a packed sorted set) as entries.
fn scored(flat: Vec<Vec<u8>>) -> Option<Vec<(f64, Vec<u8>)>> {
    if flat.len() % 2 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(flat.len() / 2);
    let mut it = flat.into_iter();
    while let (Some(member), Some(score)) = (it.next(), it.next()) {
        out.push((parse_double(&score)?, member));
    }
    Some(out)
}

/// `value` when Redis would load it: not empty, no member or field twice,
/// no NaN score, a hash's elements in pairs.
fn check(value: Value) -> Option<Value> {
    fn unique<'e>(mut firsts: impl Iterator<Item = &'e [u8]>) -> bool {
        let mut seen = HashSet::new();
        firsts.all(|e| seen.insert(e))
    }
    let fine = match &value {
        Value::String(_) => true,
        Value::List(e) => !e.is_empty(),
        Value::Set(m) => !m.is_empty() && unique(m.iter().map(Vec::as_slice)),
        Value::Hash(p) => {
            !p.is_empty() && p.len() % 2 == 0 && unique(p.iter().step_by(2).map(Vec::as_slice))
        }
        Value::Stream(s) => stream_fine(s),
        Value::SortedSet(e) => {
            !e.is_empty()
                && e.iter().all(|(s, _)| !s.is_nan())
                && unique(e.iter().map(|(_, m)| m.as_slice()))
        }
    };
    fine.then_some(value)
}

/// A stream Redis would load and Strata can hold: entries rising, none
/// above the last identifier, no more than were ever added; counters
/// within 63 bits; group names unique, each group's consumer
/// names unique.
fn stream_fine(s: &StreamValue) -> bool {
    // Redis's counters are signed 64-bit: larger ones are damage (and
    // Strata's would overflow counting on from them).
    let signed = |n: u64| n <= i64::MAX as u64;
    let rising = s.entries.windows(2).all(|w| w[0].0 < w[1].0)
        && s.entries_added >= s.entries.len() as u64
        && signed(s.entries_added);
    let below = s.entries.last().is_none_or(|e| e.0 <= s.last_id);
    let pairs = s
        .entries
        .iter()
        .all(|e| e.1.len() % 2 == 0 && !e.1.is_empty());
    let groups = s.groups.iter().all(|g| {
        if !g.entries_read.is_none_or(signed) {
            return false;
        }
        let mut names: Vec<&[u8]> = g.consumers.iter().map(|c| c.0.as_slice()).collect();
        names.sort_unstable();
        names.windows(2).all(|w| w[0] != w[1])
    });
    let mut names: Vec<&[u8]> = s.groups.iter().map(|g| g.name.as_slice()).collect();
    names.sort_unstable();
    rising && below && pairs && groups && names.windows(2).all(|w| w[0] != w[1])
}
