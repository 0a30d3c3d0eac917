//! Hashes in either encoding: packed (one record, [`strata_kv::collection`],
//! Redis's listpack) or large (a head and chunk records by linear hashing,
//! [`strata_kv::large::Hashed`], Redis's hashtable).
//!
//! Reads go through [`read`] (in `read.rs`): the packed encoding borrowed
//! from the record, or a large one ([`View`]) touching only the chunks a
//! command needs. Writes go through [`edit`]: [`Entries`] offers the same
//! operations over both encodings, and when the command ends a packed
//! collection that no longer fits the `*-max-listpack-*` limits is
//! converted (as in Redis, a large one stays large until deleted). Each
//! command's changes, chunks and head together, are one journal record.
//! A change that moves no byte of a packed record (a field set to a value
//! as long) can be made where the record lies ([`edit_or_in_place`]).

mod read;

pub use read::{read, read_stored, Stored, View};

use std::borrow::Cow;
use std::collections::HashMap;

use strata_kv::large::{Hashed, Shape};
use strata_kv::{collection, LargeEdit, Store, ValueKind};

use crate::commands::collection::random_picks;
use crate::encodings::PackedLimits;
use crate::reply::{CollectionError, RespError};

/// A packed collection opened for change: its entries flattened (borrowed
/// from the old value until changed), with a map from element to position
/// once there are more than a few.
pub struct Packed<'v> {
    elements: Vec<Cow<'v, [u8]>>,
    width: usize,
    index: Option<HashMap<Cow<'v, [u8]>, usize>>,
    dirty: bool,
}

/// Entries past which lookups go through a map.
const SCAN_LIMIT: usize = 16;

impl Packed<'_> {
    fn position(&mut self, element: &[u8]) -> Option<usize> {
        let width = self.width;
        if self.elements.len() / width <= SCAN_LIMIT {
            return self
                .elements
                .chunks_exact(width)
                .position(|e| *e[0] == *element)
                .map(|i| i * width);
        }
        let elements = &self.elements;
        let index = self.index.get_or_insert_with(|| {
            elements
                .chunks_exact(width)
                .enumerate()
                .map(|(i, e)| (e[0].clone(), i * width))
                .collect()
        });
        index.get(element).copied()
    }
}

/// A hash (or set) in either encoding, being changed by one command.
pub enum Entries<'a, 's, 'v> {
    /// One record: entries in insertion order.
    Packed(Packed<'v>),
    /// Head and chunks.
    Large(Hashed<'a, LargeEdit<'s>>),
}

impl Entries<'_, '_, '_> {
    /// A field's value (a member: empty); `None` when absent.
    pub fn get(&mut self, element: &[u8]) -> Result<Option<Vec<u8>>, RespError> {
        match self {
            Entries::Packed(p) => Ok(p.position(element).map(|i| match p.width {
                2 => p.elements[i + 1].to_vec(),
                _ => Vec::new(),
            })),
            Entries::Large(h) => Ok(h.get(element)?),
        }
    }

    /// Sets a field to `value` (adds a member); true when it is new.
    pub fn put(&mut self, element: &[u8], value: &[u8]) -> Result<bool, RespError> {
        match self {
            Entries::Packed(p) => {
                let at = p.position(element);
                match (at, p.width) {
                    (Some(_), 1) => {}
                    (Some(i), _) => {
                        p.elements[i + 1] = Cow::Owned(value.to_vec());
                        p.dirty = true;
                    }
                    (None, width) => {
                        p.dirty = true;
                        let at = p.elements.len();
                        p.elements.push(Cow::Owned(element.to_vec()));
                        if width == 2 {
                            p.elements.push(Cow::Owned(value.to_vec()));
                        }
                        if let Some(index) = &mut p.index {
                            index.insert(Cow::Owned(element.to_vec()), at);
                        }
                    }
                }
                Ok(at.is_none())
            }
            Entries::Large(h) => Ok(h.put(element, value)?),
        }
    }

    /// Removes an element; true if it was there.
    pub fn remove(&mut self, element: &[u8]) -> Result<bool, RespError> {
        match self {
            Entries::Packed(p) => {
                let Some(i) = p.position(element) else {
                    return Ok(false);
                };
                p.elements.drain(i..i + p.width);
                p.index = None; // positions moved
                p.dirty = true;
                Ok(true)
            }
            Entries::Large(h) => Ok(h.remove(element)?),
        }
    }

    /// Entries (fields, members) held now.
    pub fn len(&self) -> u64 {
        match self {
            Entries::Packed(p) => (p.elements.len() / p.width) as u64,
            Entries::Large(h) => h.len(),
        }
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes `count` distinct entries picked at random (every one when
    /// `count` reaches the size) and returns their first elements (fields,
    /// members). A large collection reads one random bucket per pick.
    pub fn pop_random(&mut self, count: u64) -> Result<Vec<Vec<u8>>, RespError> {
        match self {
            Entries::Packed(p) => {
                let width = p.width;
                let n = p.elements.len() / width;
                let picks = random_picks(n, i64::try_from(count).unwrap_or(i64::MAX))?;
                let mut chosen = vec![false; n];
                for &i in &picks {
                    chosen[i] = true;
                }
                let popped = picks.iter().map(|&i| p.elements[i * width].to_vec());
                let popped = popped.collect();
                let old = std::mem::take(&mut p.elements);
                p.elements = old
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !chosen[i / width])
                    .map(|(_, e)| e)
                    .collect();
                p.index = None;
                p.dirty |= !picks.is_empty();
                Ok(popped)
            }
            Entries::Large(h) => {
                let width = h.shape().width();
                let mut popped = Vec::new();
                if count >= h.len() {
                    for b in 0..h.buckets() {
                        popped.extend(h.bucket(b)?.into_iter().step_by(width));
                    }
                } else {
                    let mut rng = rand::thread_rng();
                    while (popped.len() as u64) < count {
                        let Some(mut entry) = h.random(&mut rng)? else {
                            break;
                        };
                        h.remove(&entry[0])?;
                        popped.push(entry.swap_remove(0));
                    }
                    return Ok(popped);
                }
                for e in &popped {
                    h.remove(e)?;
                }
                Ok(popped)
            }
        }
    }
}

/// Opens `key` as a collection of `kind` (`WRONGTYPE` otherwise; missing:
/// empty), lets `f` change it, and writes the result unless `f` failed:
/// packed while it fits `limits`, converted to large otherwise, deleted
/// when empty. Keeps the key's expiry.
pub fn edit<S: Store, R>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    limits: PackedLimits,
    f: impl FnOnce(&mut Entries<'_, '_, '_>) -> Result<R, RespError>,
) -> Result<R, RespError> {
    edit_inner(
        store,
        key,
        kind,
        limits,
        None::<fn(&mut [u8]) -> Option<R>>,
        f,
    )
}

/// [`edit`], first offering a packed collection's stored bytes to
/// `in_place` where values are rewritten in place (DRAM): a change that
/// keeps every byte's position (a field set to a value as long as its old
/// one) is made there and returns `Some`, leaving nothing to copy, decode,
/// encode or append; `None` (having changed nothing) goes on to `f`.
pub fn edit_or_in_place<S: Store, R>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    limits: PackedLimits,
    in_place: impl FnOnce(&mut [u8]) -> Option<R>,
    f: impl FnOnce(&mut Entries<'_, '_, '_>) -> Result<R, RespError>,
) -> Result<R, RespError> {
    edit_inner(store, key, kind, limits, Some(in_place), f)
}

fn edit_inner<S: Store, R>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    limits: PackedLimits,
    in_place: Option<impl FnOnce(&mut [u8]) -> Option<R>>,
    f: impl FnOnce(&mut Entries<'_, '_, '_>) -> Result<R, RespError>,
) -> Result<R, RespError> {
    store.edit_large(key, |edit| {
        if let Some(in_place) = in_place {
            let changed = edit.edit_whole(kind, |bytes| {
                let len = bytes.len();
                in_place(bytes).map(|r| (len, r))
            })?;
            if let Some(r) = changed {
                return Ok(r);
            }
        }
        let current = edit.current()?;
        let width = Shape::of(kind).width();
        let (value, expires_at) = match current {
            Some(c) if c.kind != kind => return Err(RespError::WrongType),
            Some(c) if c.chunks.is_some() => {
                let hashed = Hashed::open(edit, kind)?.ok_or(CollectionError::Damaged)?;
                let mut entries = Entries::Large(hashed);
                let result = f(&mut entries)?;
                if let Entries::Large(hashed) = entries {
                    hashed.finish()?;
                }
                return Ok(result);
            }
            Some(c) => (c.value, c.expires_at),
            None => (collection::encode(std::iter::empty()), None),
        };
        let packed = Packed {
            elements: borrowed(&value, width)?,
            width,
            index: None,
            dirty: false,
        };
        let mut entries = Entries::Packed(packed);
        let result = f(&mut entries)?;
        if let Entries::Packed(packed) = entries {
            if packed.dirty {
                save_packed(edit, kind, limits, packed, expires_at)?;
            }
        }
        Ok(result)
    })?
}

/// The elements of packed `value`, borrowed, with room for one more entry
/// of `width` (an `HSET` or `SADD` of a new one grows nothing).
fn borrowed(value: &[u8], width: usize) -> Result<Vec<Cow<'_, [u8]>>, RespError> {
    let damaged = |_| RespError::from(CollectionError::Damaged);
    let mut walk = collection::Walk::new(value).map_err(damaged)?;
    let mut elements = Vec::with_capacity(walk.left() + width);
    while let Some(element) = walk.next_element().map_err(damaged)? {
        elements.push(Cow::Borrowed(element));
    }
    if !walk.rest().is_empty() {
        return Err(CollectionError::Damaged.into());
    }
    Ok(elements)
}

/// Replaces whatever `key` holds with a new collection of `kind` holding
/// `elements` (flattened entries, no element twice), packed or large as
/// `limits` decide; deletes the key when there are none (the `STORE`
/// forms). Returns whether `key` existed before.
pub fn replace<S: Store>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    limits: PackedLimits,
    elements: &[Vec<u8>],
) -> Result<bool, RespError> {
    store.edit_large(key, |edit| {
        let existed = edit.exists();
        write(edit, kind, limits, elements, None).map(|()| existed)
    })?
}

/// Writes a new collection of `kind` holding `elements` (flattened
/// entries, no element twice) expiring at `expires_at`, packed or large as
/// `limits` decide, at the key `edit` holds (`RESTORE`, which removed
/// what was there first); none deletes the key.
pub fn write(
    edit: &mut LargeEdit<'_>,
    kind: ValueKind,
    limits: PackedLimits,
    elements: &[Vec<u8>],
    expires_at: Option<u64>,
) -> Result<(), RespError> {
    let packed = Packed {
        elements: elements
            .iter()
            .map(|e| Cow::Borrowed(e.as_slice()))
            .collect(),
        width: Shape::of(kind).width(),
        index: None,
        dirty: true,
    };
    save_packed(edit, kind, limits, packed, expires_at)
}

/// Writes a changed packed collection: deleted when empty, packed while
/// it fits `limits`, converted to the large encoding otherwise.
fn save_packed(
    edit: &mut LargeEdit<'_>,
    kind: ValueKind,
    limits: PackedLimits,
    packed: Packed<'_>,
    expires_at: Option<u64>,
) -> Result<(), RespError> {
    let Packed {
        elements, width, ..
    } = packed;
    if elements.is_empty() {
        edit.delete()?;
        return Ok(());
    }
    if limits.fits_elements(&elements, width) {
        let value = collection::encode(elements.iter().map(|e| &**e));
        edit.put_whole(kind, &value, expires_at)?;
        return Ok(());
    }
    let mut hashed = Hashed::create(edit, kind, expires_at);
    for entry in elements.chunks_exact(width) {
        let value = entry.get(1).map_or(&[][..], |v| &**v);
        hashed.put(&entry[0], value)?;
    }
    hashed.finish()?;
    Ok(())
}
