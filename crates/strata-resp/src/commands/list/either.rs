//! Lists in either encoding, being changed: packed (one record,
//! [`strata_kv::collection`], Redis's listpack) or large (a deque of chunk
//! records, [`strata_kv::large::Deque`], Redis's quicklist).
//!
//! [`edit`] opens a key with its shard write-locked and hands the command a
//! [`List`] offering the same operations over both encodings. A packed
//! list's elements stay borrowed from the record until changed (as
//! [`hashed`](crate::commands::hashed)'s entries). When the command ends a
//! packed list past `list-max-listpack-size` is converted to large; a large
//! list that a removal (pop, `LREM`, `LTRIM`, `LSET`) left within half of
//! both limits is converted back to packed (Redis 7.2's
//! `listTypeTryConvertQuicklist`: half, so a list at the limit does not
//! flap); an emptied list is deleted with its chunks. Every change,
//! conversion included, is one journal record: a push or pop on a large
//! list writes one chunk and the head, whatever its length.

use std::borrow::Cow;
use std::collections::VecDeque;

use strata_kv::large::{Deque, Side};
use strata_kv::{collection, LargeEdit, Store, ValueKind};

use super::End;
use crate::encodings::ListLimit;
use crate::reply::{CollectionError, RespError};

impl From<End> for Side {
    fn from(end: End) -> Self {
        match end {
            End::Left => Side::Front,
            End::Right => Side::Back,
        }
    }
}

/// A packed list opened for change: its elements borrowed from the old
/// value until replaced.
pub struct Packed<'v> {
    elements: VecDeque<Cow<'v, [u8]>>,
    dirty: bool,
}

/// A list in either encoding, being changed by one command.
pub enum List<'a, 's, 'v> {
    /// One record.
    Packed(Packed<'v>),
    /// Head and chunks, and whether the command removed or replaced an
    /// element (then it may go back to packed, as after Redis's
    /// `LIST_CONV_SHRINKING`).
    Large(Deque<'a, LargeEdit<'s>>, bool),
}

impl List<'_, '_, '_> {
    /// Elements held.
    pub fn len(&self) -> u64 {
        match self {
            List::Packed(p) => p.elements.len() as u64,
            List::Large(d, _) => d.len(),
        }
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `element` at `end`.
    pub fn push(&mut self, end: End, element: &[u8]) -> Result<(), RespError> {
        match self {
            List::Packed(p) => {
                let element = Cow::Owned(element.to_vec());
                match end {
                    End::Left => p.elements.push_front(element),
                    End::Right => p.elements.push_back(element),
                }
                p.dirty = true;
            }
            List::Large(d, _) => d.push(end.into(), element)?,
        }
        Ok(())
    }

    /// Removes the element at `end`; `None` when empty.
    pub fn pop(&mut self, end: End) -> Result<Option<Vec<u8>>, RespError> {
        match self {
            List::Packed(p) => {
                let e = match end {
                    End::Left => p.elements.pop_front(),
                    End::Right => p.elements.pop_back(),
                };
                p.dirty |= e.is_some();
                Ok(e.map(Cow::into_owned))
            }
            List::Large(d, shrank) => {
                let e = d.pop(end.into())?;
                *shrank |= e.is_some();
                Ok(e)
            }
        }
    }

    /// Replaces element `i` (from the front); false past the end.
    pub fn set(&mut self, i: u64, element: &[u8]) -> Result<bool, RespError> {
        match self {
            List::Packed(p) => {
                let Some(slot) = usize::try_from(i).ok().and_then(|i| p.elements.get_mut(i)) else {
                    return Ok(false);
                };
                *slot = Cow::Owned(element.to_vec());
                p.dirty = true;
                Ok(true)
            }
            List::Large(d, shrank) => {
                let done = d.set(i, element)?;
                *shrank |= done;
                Ok(done)
            }
        }
    }

    /// Inserts `element` next to the first `pivot` (behind it when
    /// `after`); false when there is none.
    pub fn insert(&mut self, pivot: &[u8], after: bool, element: &[u8]) -> Result<bool, RespError> {
        match self {
            List::Packed(p) => {
                let Some(at) = p.elements.iter().position(|e| **e == *pivot) else {
                    return Ok(false);
                };
                let element = Cow::Owned(element.to_vec());
                p.elements.insert(at + usize::from(after), element);
                p.dirty = true;
                Ok(true)
            }
            List::Large(d, _) => Ok(d.insert(pivot, after, element)?),
        }
    }

    /// Removes up to `limit` elements equal to `element`, looking from
    /// `end`; how many went.
    pub fn remove(&mut self, end: End, limit: u64, element: &[u8]) -> Result<u64, RespError> {
        match self {
            List::Packed(p) => {
                let mut removed = 0u64;
                let mut keep: Vec<bool> = vec![true; p.elements.len()];
                let order: Box<dyn Iterator<Item = usize>> = match end {
                    End::Left => Box::new(0..keep.len()),
                    End::Right => Box::new((0..keep.len()).rev()),
                };
                for i in order {
                    if removed < limit && *p.elements[i] == *element {
                        keep[i] = false;
                        removed += 1;
                    }
                }
                let mut k = keep.into_iter();
                p.elements.retain(|_| k.next().unwrap_or(true));
                p.dirty |= removed > 0;
                Ok(removed)
            }
            List::Large(d, shrank) => {
                let removed = d.remove(end.into(), limit, element)?;
                *shrank |= removed > 0;
                Ok(removed)
            }
        }
    }

    /// Removes `n` elements at `end`.
    pub fn drop_n(&mut self, end: End, n: u64) -> Result<(), RespError> {
        if n == 0 {
            return Ok(());
        }
        match self {
            List::Packed(p) => {
                let n = usize::try_from(n)
                    .unwrap_or(usize::MAX)
                    .min(p.elements.len());
                match end {
                    End::Left => drop(p.elements.drain(..n)),
                    End::Right => p.elements.truncate(p.elements.len() - n),
                }
                p.dirty = true;
            }
            List::Large(d, shrank) => {
                *shrank |= !d.is_empty();
                d.drop_n(end.into(), n)?
            }
        }
        Ok(())
    }
}

/// Opens `key` as a list (`WRONGTYPE` otherwise; a missing key opens empty,
/// `f` told it did not exist), lets `f` change it, and writes the result
/// unless `f` failed: packed while it fits `limit`, converted to large
/// otherwise (and back, past a removal, within half of `limit`), deleted
/// when empty. Keeps the key's expiry.
pub fn edit<S: Store, R>(
    store: &mut S,
    key: &[u8],
    limit: ListLimit,
    f: impl FnOnce(&mut List<'_, '_, '_>, bool) -> Result<R, RespError>,
) -> Result<R, RespError> {
    store.edit_large(key, |edit| {
        let current = edit.current()?;
        let (value, expires_at, existed) = match current {
            Some(c) if c.kind != ValueKind::List => return Err(RespError::WrongType),
            Some(c) if c.chunks.is_some() => {
                let deque = Deque::open(edit)?.ok_or(CollectionError::Damaged)?;
                let mut list = List::Large(deque, false);
                let result = f(&mut list, true)?;
                if let List::Large(deque, shrank) = list {
                    save_large(deque, shrank, limit)?;
                }
                return Ok(result);
            }
            Some(c) => (c.value, c.expires_at, true),
            None => (collection::encode(std::iter::empty()), None, false),
        };
        let elements = collection::decode(&value).ok_or(CollectionError::Damaged)?;
        let mut list = List::Packed(Packed {
            elements: elements.into_iter().map(Cow::Borrowed).collect(),
            dirty: false,
        });
        let result = f(&mut list, existed)?;
        if let List::Packed(p) = list {
            if p.dirty {
                save_packed(edit, limit, p, expires_at, existed)?;
            }
        }
        Ok(result)
    })?
}

/// Writes a changed large list: converted back to packed when a removal
/// left it within half of `limit` (elements and bytes, as Redis 7.2), its
/// changed chunks and head otherwise (deleted when empty).
fn save_large(
    mut deque: Deque<'_, LargeEdit<'_>>,
    shrank: bool,
    limit: ListLimit,
) -> Result<(), RespError> {
    let half = ListLimit {
        bytes: limit.bytes / 2,
        entries: limit.entries / 2,
    };
    let len = deque.len();
    if !shrank || len == 0 || !half.fits(len, deque.bytes()) {
        deque.finish()?;
        return Ok(());
    }
    let elements = deque.range(0, len - 1)?;
    let expires_at = deque.expires_at();
    let value = collection::encode(elements.iter().map(Vec::as_slice));
    // The whole value replaces the head; its chunks go in the same record.
    deque
        .into_edit()
        .put_whole(ValueKind::List, &value, expires_at)?;
    Ok(())
}

/// Writes a changed packed list: deleted when empty, packed while it fits
/// `limit`, converted to the large encoding otherwise.
fn save_packed(
    edit: &mut LargeEdit<'_>,
    limit: ListLimit,
    packed: Packed<'_>,
    expires_at: Option<u64>,
    existed: bool,
) -> Result<(), RespError> {
    let elements = packed.elements;
    if elements.is_empty() {
        if existed {
            edit.delete()?;
        }
        return Ok(());
    }
    let bytes = collection::encoded_len(elements.iter().map(|e| &**e)) as u64;
    if limit.fits(elements.len() as u64, bytes) {
        let value = collection::encode(elements.iter().map(|e| &**e));
        edit.put_whole(ValueKind::List, &value, expires_at)?;
        return Ok(());
    }
    let mut deque = Deque::create(edit, expires_at);
    for e in &elements {
        deque.push(Side::Back, e)?;
    }
    deque.finish()?;
    Ok(())
}
