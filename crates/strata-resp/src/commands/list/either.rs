//! Lists in either encoding, being changed: packed (one record,
//! [`strata_kv::collection`], Redis's listpack) or large (a deque of chunk
//! records, [`strata_kv::large::Deque`], Redis's quicklist).
//!
//! [`edit`] opens a key with its shard write-locked and hands the command a
//! [`List`] offering the same operations over both encodings. A packed
//! list is edited as one [`Chunk`] (the same packed run as a large list's
//! chunk): a push or pop at an end changes its bytes where they are, and
//! the new value is that buffer, so a queue's push or pop costs one copy
//! of the value, not a decode and an encode. When the command ends a
//! packed list past `list-max-listpack-size` is converted to large; a large
//! list that a removal (pop, `LREM`, `LTRIM`, `LSET`) left within half of
//! both limits is converted back to packed (Redis 7.2's
//! `listTypeTryConvertQuicklist`: half, so a list at the limit does not
//! flap); an emptied list is deleted with its chunks. Where records are
//! rewritten in place (DRAM), a packed list that has grown is stored
//! padded with zeros to a steady length ([`padded_len`]), so the pushes
//! and pops that keep it within that length overwrite its record instead
//! of appending a new one for the compactor to clean. Every change,
//! conversion included, is one journal record: a push or pop on a large
//! list writes one chunk and the head, whatever its length.

use strata_kv::large::deque::stored;
use strata_kv::large::{Chunk, Deque, Side};
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

/// A list in either encoding, being changed by one command.
pub enum List<'a, 's> {
    /// One record.
    Packed(Chunk),
    /// Head and chunks, and whether the command removed or replaced an
    /// element (then it may go back to packed, as after Redis's
    /// `LIST_CONV_SHRINKING`).
    Large(Deque<'a, LargeEdit<'s>>, bool),
}

impl List<'_, '_> {
    /// Elements held.
    pub fn len(&self) -> u64 {
        match self {
            List::Packed(p) => p.len() as u64,
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
            List::Packed(p) => p.push(end.into(), element),
            List::Large(d, _) => d.push_end(end.into(), element)?,
        }
        Ok(())
    }

    /// Removes the element at `end`; `None` when empty.
    pub fn pop(&mut self, end: End) -> Result<Option<Vec<u8>>, RespError> {
        match self {
            List::Packed(p) => Ok(p.pop(end.into())),
            List::Large(d, shrank) => {
                let e = d.pop_end(end.into())?;
                *shrank |= e.is_some();
                Ok(e)
            }
        }
    }

    /// Replaces element `i` (from the front); false past the end.
    pub fn set(&mut self, i: u64, element: &[u8]) -> Result<bool, RespError> {
        match self {
            List::Packed(p) => Ok(usize::try_from(i).is_ok_and(|i| p.set(i, element))),
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
                let Some(at) = p.iter().position(|e| e == pivot) else {
                    return Ok(false);
                };
                p.insert(at + usize::from(after), element);
                Ok(true)
            }
            List::Large(d, _) => Ok(d.insert(pivot, after, element)?),
        }
    }

    /// Removes up to `limit` elements equal to `element`, looking from
    /// `end`; how many went.
    pub fn remove(&mut self, end: End, limit: u64, element: &[u8]) -> Result<u64, RespError> {
        match self {
            List::Packed(p) => Ok(p.remove_equal(end.into(), limit, element)),
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
            List::Packed(p) => p.drop_n(end.into(), usize::try_from(n).unwrap_or(usize::MAX)),
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
    f: impl FnOnce(&mut List<'_, '_>, bool) -> Result<R, RespError>,
) -> Result<R, RespError> {
    edit_or_in_place(store, key, limit, None::<fn(&mut [u8]) -> _>, f)
}

/// [`edit`], first offering a packed list's stored bytes (its run and the
/// zeros padding it) to `in_place`, if given, where records are rewritten
/// in place (DRAM): a push or pop at an end that fits the padding and
/// keeps the list packed and non-empty is made there ([`stored`]) and
/// returns the content's new length with its result, leaving nothing to
/// copy, decode or write back; `None` (having changed nothing) goes on to
/// `f`.
pub fn edit_or_in_place<S: Store, R>(
    store: &mut S,
    key: &[u8],
    limit: ListLimit,
    in_place: Option<impl FnOnce(&mut [u8]) -> Option<(usize, R)>>,
    f: impl FnOnce(&mut List<'_, '_>, bool) -> Result<R, RespError>,
) -> Result<R, RespError> {
    store.edit_large(key, |edit| {
        if let Some(in_place) = in_place {
            if let Some(r) = edit.edit_whole(ValueKind::List, in_place)? {
                return Ok(r);
            }
        }
        let current = edit.current()?;
        let (value, expires_at, existed) = match current {
            Some(c) if c.kind != ValueKind::List => return Err(RespError::WrongType),
            Some(c) if c.chunks.is_some() => {
                let deque = Deque::open_current(edit, &c)?.ok_or(CollectionError::Damaged)?;
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
        let stored_len = if existed { value.len() } else { 0 };
        let packed = Chunk::from_stored(value).ok_or(CollectionError::Damaged)?;
        let mut list = List::Packed(packed);
        let result = f(&mut list, existed)?;
        if let List::Packed(p) = list {
            if p.is_dirty() {
                save_packed(edit, limit, p, expires_at, stored_len)?;
            }
        }
        Ok(result)
    })?
}

/// `element` pushed at `end` of the packed list stored in `value` (its
/// record's bytes, padding included), if the list stays within `limit`
/// and the padding: the content's new length and the list's.
pub fn push_stored(
    value: &mut [u8],
    limit: ListLimit,
    end: End,
    element: &[u8],
) -> Option<(usize, u64)> {
    let fits = |count, len| limit.fits(count, len);
    stored::push_within(value, end.into(), element, fits).map(|(len, n)| (len, n as u64))
}

/// The element at `end` popped from the packed list stored in `value`,
/// unless it is its last (the key goes, which only [`edit`] does) or the
/// list would then fill half its record or less (stored shorter then, see
/// [`padded_len`]): the content's new length and the element.
pub fn pop_stored(value: &mut [u8], end: End) -> Option<(usize, Vec<u8>)> {
    let stored_len = value.len();
    let keep = |len: usize| len * 2 > stored_len;
    stored::pop_within(value, end.into(), keep).map(|(element, len)| (len, element))
}

/// Writes a new list of `elements` expiring at `expires_at` at the key
/// `edit` holds, replacing what it holds (any type): packed while it fits
/// `limit`, large otherwise; none deletes the key (`SORT ... STORE`,
/// `RESTORE`).
pub fn write<E: AsRef<[u8]>>(
    edit: &mut LargeEdit<'_>,
    limit: ListLimit,
    elements: &[E],
    expires_at: Option<u64>,
) -> Result<(), RespError> {
    if elements.is_empty() {
        edit.delete()?;
        return Ok(());
    }
    let packed = collection::encoded_len(elements.iter().map(AsRef::as_ref));
    if limit.fits(elements.len() as u64, packed as u64) {
        let value = collection::encode(elements.iter().map(AsRef::as_ref));
        edit.put_whole(ValueKind::List, &value, expires_at)?;
        return Ok(());
    }
    // A large value there goes first, chunks and all, so no chunk of it
    // can outlive the new list's head.
    if edit.current()?.is_some_and(|c| c.chunks.is_some()) {
        edit.delete()?;
    }
    let mut deque = Deque::create(edit, expires_at);
    for e in elements {
        deque.push(Side::Back, e.as_ref())?;
    }
    deque.finish()?;
    Ok(())
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
/// `limit`, converted to the large encoding otherwise. `stored_len` is the
/// length of the value it was read from (0: the key was new).
fn save_packed(
    edit: &mut LargeEdit<'_>,
    limit: ListLimit,
    mut packed: Chunk,
    expires_at: Option<u64>,
    stored_len: usize,
) -> Result<(), RespError> {
    if packed.is_empty() {
        if stored_len > 0 {
            edit.delete()?;
        }
        return Ok(());
    }
    if limit.fits(packed.len() as u64, packed.value_len()) {
        let in_place = edit.rewrites_in_place();
        let value = packed.value();
        let Some(padded_len) = padded_len(value.len(), stored_len).filter(|_| in_place) else {
            edit.put_whole(ValueKind::List, value, expires_at)?;
            return Ok(());
        };
        let mut padded = Vec::with_capacity(padded_len);
        padded.extend_from_slice(value);
        padded.resize(padded_len, 0);
        edit.put_whole(ValueKind::List, &padded, expires_at)?;
        return Ok(());
    }
    let mut deque = Deque::create(edit, expires_at);
    for e in packed.iter() {
        deque.push(Side::Back, e)?;
    }
    deque.finish()?;
    Ok(())
}

/// The length a packed list of `len` bytes is stored padded to where
/// records are rewritten in place, given the length it was stored at:
/// that length while the list fits it and fills more than half of it (so
/// a queue's pushes and pops overwrite one record, as a listpack grows and
/// shrinks in its allocation), else a quarter (at least 64 bytes) more
/// than it needs, in steps of 16. Readers drop the zeros
/// ([`collection::decode_padded`], [`Chunk::from_stored`]). `None` for a
/// new list: one written once stays as small as it can.
fn padded_len(len: usize, stored_len: usize) -> Option<usize> {
    if stored_len == 0 {
        return None;
    }
    if len <= stored_len && len * 2 > stored_len {
        return Some(stored_len);
    }
    Some((len + (len / 4).max(64)).next_multiple_of(16))
}

#[cfg(test)]
mod tests {
    use super::padded_len;

    #[test]
    fn a_list_keeps_its_stored_length_while_it_fits_more_than_half() {
        assert_eq!(padded_len(100, 0), None);
        assert_eq!(padded_len(100, 160), Some(160));
        assert_eq!(padded_len(160, 160), Some(160));
        assert_eq!(padded_len(81, 160), Some(160));
        // Grown past it or shrunk to half: a quarter more, at least 64.
        assert_eq!(padded_len(161, 160), Some(240));
        assert_eq!(padded_len(80, 160), Some(144));
        assert_eq!(padded_len(1000, 900), Some(1264));
    }
}
