//! Reading a hash or set in the encoding it has: a packed record borrowed
//! (decoded, [`read`], or as stored, [`read_stored`]) or a large one whose
//! chunks are read as a command needs them.

use strata_kv::large::{is_head, Hashed};
use strata_kv::{collection, ChunkSource, LargeRead, Store, ValueKind};

use crate::reply::{CollectionError, RespError};

/// A hash or set being read, in the encoding it has.
pub enum View<'a, 'h, 's> {
    /// A packed collection's elements (entries flattened), borrowed.
    Packed(&'a [&'a [u8]]),
    /// A large collection, its shard read-locked.
    Large(&'a mut Hashed<'h, LargeRead<'s>>),
}

/// A hash or set being read as stored: a packed record's bytes, borrowed,
/// for commands that walk them in place ([`collection::pair_value`]).
pub enum Stored<'a, 'h, 's> {
    /// A packed collection's value, borrowed.
    Packed(&'a [u8]),
    /// A large collection, its shard read-locked.
    Large(&'a mut Hashed<'h, LargeRead<'s>>),
}

/// Reads `key` as a collection of `kind` (counting a hit or miss) and
/// calls `f` on it: `Ok(None)` when the key is missing, `WRONGTYPE` when it
/// holds another kind. A packed record is decoded borrowed; see
/// [`read_stored`].
pub fn read<S: Store, R>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    f: impl FnOnce(View<'_, '_, '_>) -> Result<R, RespError>,
) -> Result<Option<R>, RespError> {
    read_stored(store, key, kind, |stored| match stored {
        Stored::Packed(bytes) => {
            let elements = collection::decode(bytes).ok_or(CollectionError::Damaged)?;
            f(View::Packed(&elements))
        }
        Stored::Large(hashed) => f(View::Large(hashed)),
    })
}

/// [`read`], giving a packed record's bytes undecoded. A packed record is
/// read borrowed; a large head sends the read to the chunks under the
/// shard's read lock, where what the key holds then is read: a writer that
/// converted or replaced it since the first look never makes an existing
/// key read as missing.
pub fn read_stored<S: Store, R>(
    store: &mut S,
    key: &[u8],
    kind: ValueKind,
    f: impl FnOnce(Stored<'_, '_, '_>) -> Result<R, RespError>,
) -> Result<Option<R>, RespError> {
    let mut f = Some(f);
    let found = store.get(key, |item| {
        if item.kind != kind {
            return Err(RespError::WrongType);
        }
        if is_head(item.value) {
            return Ok(None);
        }
        match f.take() {
            Some(f) => f(Stored::Packed(item.value)).map(Some),
            None => Ok(None),
        }
    });
    match found {
        None => Ok(None),
        Some(Err(e)) => Err(e),
        Some(Ok(Some(r))) => Ok(Some(r)),
        Some(Ok(None)) => {
            let Some(f) = f.take() else {
                return Ok(None);
            };
            store.read_large(key, |read| {
                if let Some(mut hashed) = Hashed::open(read, kind)? {
                    return f(Stored::Large(&mut hashed)).map(Some);
                }
                // Converted or replaced since the first look.
                match read.current()? {
                    None => Ok(None),
                    Some(c) if c.kind != kind => Err(RespError::WrongType),
                    Some(c) => f(Stored::Packed(&c.value)).map(Some),
                }
            })
        }
    }
}
