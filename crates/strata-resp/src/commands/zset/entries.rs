//! A sorted set's decoded entries: their order, reading and writing the
//! packed value, finding and inserting members, and replying with them.

use crate::commands::collection::elements;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;
use std::borrow::Cow;
use std::cmp::Ordering;
use strata_kv::{collection, ItemRef, Mutation, NewItem, Store, ValueKind};

/// One member and its score.
pub type Entry<'a> = (f64, &'a [u8]);

/// Redis's order: by score, then by member bytes.
pub fn order(a: &Entry<'_>, b: &Entry<'_>) -> Ordering {
    a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1))
}

/// The entries of `item` if it is a sorted set, in order.
pub fn entries<'i>(item: &ItemRef<'i>) -> Result<Vec<Entry<'i>>, RespError> {
    let flat = elements(item, ValueKind::SortedSet)?;
    if flat.len() % 2 != 0 {
        return Err(CollectionError::Damaged.into());
    }
    flat.chunks_exact(2)
        .map(|p| {
            collection::score_of(p[1])
                .map(|s| (s, p[0]))
                .ok_or(CollectionError::Damaged.into())
        })
        .collect()
}

/// The old entries of an `update` closure's argument (empty when missing)
/// and its expiry.
pub fn open<'i>(old: Option<ItemRef<'i>>) -> Result<(Vec<Entry<'i>>, Option<u64>), RespError> {
    match old {
        None => Ok((Vec::new(), None)),
        Some(item) => Ok((entries(&item)?, item.expires_at)),
    }
}

/// The mutation storing `entries` (in order) as a sorted set; a delete
/// when empty.
pub fn save(entries: &[Entry<'_>], expires_at: Option<u64>) -> Mutation<'static> {
    if entries.is_empty() {
        return Mutation::Delete;
    }
    let scores: Vec<[u8; 8]> = entries
        .iter()
        .map(|e| collection::score_bytes(e.0))
        .collect();
    let flat = entries.iter().zip(&scores).flat_map(|(e, s)| [e.1, &s[..]]);
    Mutation::PutKind(
        ValueKind::SortedSet,
        NewItem {
            value: Cow::Owned(collection::encode(flat)),
            flags: 0,
            expires_at,
        },
    )
}

/// Reads `key` as a sorted set and calls `f` with its entries;
/// `Ok(None)` for a missing key.
pub fn read<S: Store, R>(
    store: &mut S,
    key: &[u8],
    f: impl FnOnce(&[Entry<'_>]) -> R,
) -> Result<Option<R>, RespError> {
    store
        .get(key, |item| entries(&item).map(|e| f(&e)))
        .transpose()
}

/// The position of `member` among `entries`.
pub fn position(entries: &[Entry<'_>], member: &[u8]) -> Option<usize> {
    entries.iter().position(|e| e.1 == member)
}

/// Inserts or moves `member` to `score`, keeping the order.
pub fn upsert<'e>(entries: &mut Vec<Entry<'e>>, member: &'e [u8], score: f64) {
    if let Some(at) = position(entries, member) {
        entries.remove(at);
    }
    let entry = (score, member);
    let at = entries.partition_point(|e| order(e, &entry) == Ordering::Less);
    entries.insert(at, entry);
}

/// Writes `entries` as a reply: members, with scores when asked (RESP2
/// flat, RESP3 pairs when `pairs`).
pub fn reply_entries(
    out: &mut ReplyWriter<'_>,
    entries: &[Entry<'_>],
    with_scores: bool,
    pairs: bool,
) {
    let resp3_pairs = with_scores && pairs && out.version() == crate::writer::RespVersion::Resp3;
    out.array(if with_scores && !resp3_pairs {
        entries.len() * 2
    } else {
        entries.len()
    });
    for e in entries {
        if resp3_pairs {
            out.array(2);
        }
        out.bulk(e.1);
        if with_scores {
            out.double(e.0);
        }
    }
}
