//! Reading and changing a sorted set at a key in either encoding (see
//! [`view`](super::view)): [`read`] borrows a packed record, or reads a
//! large set through its chunks with the shard read-locked (answering from
//! what the key holds then, so a set replaced between the two looks never
//! reads as missing); [`edit`] and
//! [`replace`] run under the key's shard write lock, and what a command
//! changed (chunks and head) is one journal record. A packed set past
//! `zset-max-listpack-entries` members or with a member longer than
//! `zset-max-listpack-value` bytes is converted when the command ends; as
//! in Redis, a large set stays large until it is deleted, and a set that
//! becomes empty is deleted (a large one with its chunks).

use strata_kv::large::{is_head, Sorted};
use strata_kv::{collection, ChunkSource, LargeEdit, Store, ValueKind};

use super::view::{encode_packed, Ordered, OrderedMut, Packed};
use crate::encodings::PackedLimits;
use crate::reply::{CollectionError, RespError};

/// Runs `f` on the sorted set at `key`; `Ok(None)` for a missing key,
/// `WRONGTYPE` for another kind.
pub fn read<S: Store, R>(
    store: &mut S,
    key: &[u8],
    mut f: impl FnMut(&mut dyn Ordered) -> Result<R, RespError>,
) -> Result<Option<R>, RespError> {
    let found = store.get(key, |item| {
        if item.kind != ValueKind::SortedSet {
            return Err(RespError::WrongType);
        }
        if is_head(item.value) {
            return Ok(None);
        }
        let mut packed = Packed::decode(item.value)?;
        f(&mut packed).map(Some)
    });
    match found {
        None => Ok(None),
        Some(Err(e)) => Err(e),
        Some(Ok(Some(r))) => Ok(Some(r)),
        Some(Ok(None)) => store.read_large(key, |read| {
            if let Some(mut sorted) = Sorted::open(read)? {
                return f(&mut sorted).map(Some);
            }
            // Replaced since the first look: read what the key holds now.
            match read.current()? {
                None => Ok(None),
                Some(c) if c.kind != ValueKind::SortedSet => Err(RespError::WrongType),
                Some(c) => f(&mut Packed::decode(&c.value)?).map(Some),
            }
        }),
    }
}

/// Whether the key holds a large sorted set (`OBJECT ENCODING`).
pub fn is_large<S: Store>(store: &mut S, key: &[u8]) -> bool {
    store.peek(key, |item| is_head(item.value)).unwrap_or(false)
}

/// Opens `key` as a sorted set (missing: empty; another kind:
/// `WRONGTYPE`), lets `f` change it, and writes the result unless `f`
/// failed. Keeps the key's expiry.
pub fn edit<S: Store, R>(
    store: &mut S,
    key: &[u8],
    limits: PackedLimits,
    f: impl FnOnce(&mut dyn OrderedMut) -> Result<R, RespError>,
) -> Result<R, RespError> {
    edit_unless_kept(store, key, limits, |_| None, f)
}

/// [`edit`], first letting `kept` look at a packed set's stored bytes
/// (borrowed, not copied): its `Some` answers a command that finds it has
/// nothing to change (a `ZADD` of members already there with those
/// scores), and `f` runs only on its `None`.
pub fn edit_unless_kept<S: Store, R>(
    store: &mut S,
    key: &[u8],
    limits: PackedLimits,
    kept: impl FnOnce(&[u8]) -> Option<R>,
    f: impl FnOnce(&mut dyn OrderedMut) -> Result<R, RespError>,
) -> Result<R, RespError> {
    store.edit_large(key, |edit| {
        if let Some(Some(r)) = edit.read_whole(ValueKind::SortedSet, kept)? {
            return Ok(r);
        }
        let (value, expires_at) = match edit.current()? {
            Some(c) if c.kind != ValueKind::SortedSet => return Err(RespError::WrongType),
            Some(c) if c.chunks.is_some() => {
                let mut sorted = Sorted::open(edit)?.ok_or(CollectionError::Damaged)?;
                let result = f(&mut sorted)?;
                sorted.finish()?;
                return Ok(result);
            }
            Some(c) => (c.value, c.expires_at),
            None => (collection::encode(std::iter::empty()), None),
        };
        let mut packed = Packed::decode(&value)?;
        let result = f(&mut packed)?;
        if packed.dirty {
            save(edit, limits, &packed.entries, expires_at)?;
        }
        Ok(result)
    })?
}

/// Replaces whatever `key` holds with a sorted set of `entries` (in
/// order, no member twice), packed or large as `limits` decide; deletes
/// the key when there are none (the `STORE` forms). Returns whether `key`
/// existed before.
pub fn replace<S: Store, M: AsRef<[u8]>>(
    store: &mut S,
    key: &[u8],
    limits: PackedLimits,
    entries: &[(f64, M)],
) -> Result<bool, RespError> {
    store.edit_large(key, |edit| {
        let existed = edit.exists();
        save(edit, limits, entries, None).map(|()| existed)
    })?
}

/// Writes a sorted set of `entries` (in order, no member twice) expiring
/// at `expires_at` at the key `edit` holds: deleted when empty, packed
/// while it fits `limits`, large otherwise (`RESTORE`, which removed what
/// was there first).
pub fn save<M: AsRef<[u8]>>(
    edit: &mut LargeEdit<'_>,
    limits: PackedLimits,
    entries: &[(f64, M)],
    expires_at: Option<u64>,
) -> Result<(), RespError> {
    if entries.is_empty() {
        edit.delete()?;
        return Ok(());
    }
    let longest = entries.iter().map(|e| e.1.as_ref().len()).max();
    if limits.fits(entries.len(), longest.unwrap_or(0)) {
        let value = encode_packed(entries);
        edit.put_whole(ValueKind::SortedSet, &value, expires_at)?;
        return Ok(());
    }
    let mut sorted = Sorted::create(edit, expires_at);
    for (score, member) in entries {
        sorted.put(member.as_ref(), *score)?;
    }
    sorted.finish()?;
    Ok(())
}
