//! Reading and changing the stream at a key: the record's value decoded
//! into a [`Stream`], `WRONGTYPE` for any other kind, and the changed
//! stream written back as one record (expiry kept). Redis keeps an empty
//! stream, so nothing here deletes the key.

use std::borrow::Cow;

use strata_kv::{ItemRef, Mutation, NewItem, Store, ValueKind};

use crate::reply::{RespError, StreamError};
use crate::stream::{decode, encode, Stream};

fn open(item: &ItemRef<'_>) -> Result<Stream, RespError> {
    if item.kind != ValueKind::Stream {
        return Err(RespError::WrongType);
    }
    decode(item.value).ok_or(StreamError::Damaged.into())
}

/// Calls `f` with the stream at `key` (counting a hit or miss);
/// `Ok(None)` when the key is missing.
pub fn read<S: Store, R>(
    store: &mut S,
    key: &[u8],
    f: impl FnOnce(&Stream) -> R,
) -> Result<Option<R>, RespError> {
    store
        .get(key, |item| open(&item).map(|s| f(&s)))
        .transpose()
}

/// What an [`edit`] closure decided.
pub enum Edit<R> {
    /// Nothing changed: nothing is written.
    Keep(R),
    /// The stream changed (or was created): it is written back.
    Write(R),
}

/// Runs `f` on the stream at `key` (`None` when missing: `f` may create
/// one by setting it) under the key's lock, and writes the stream back
/// when `f` says it changed. On `Err` nothing is written.
pub fn edit<S: Store, R>(
    store: &mut S,
    key: &[u8],
    f: impl FnOnce(&mut Option<Stream>) -> Result<Edit<R>, RespError>,
) -> Result<R, RespError> {
    store.update(key, |old| {
        let (mut stream, expires_at) = match old {
            None => (None, None),
            Some(item) => match open(&item) {
                Ok(s) => (Some(s), item.expires_at),
                Err(e) => return (Mutation::Keep, Err(e)),
            },
        };
        match f(&mut stream) {
            Err(e) => (Mutation::Keep, Err(e)),
            Ok(Edit::Keep(r)) => (Mutation::Keep, Ok(r)),
            Ok(Edit::Write(r)) => match stream {
                None => (Mutation::Keep, Ok(r)),
                Some(s) => {
                    let item = NewItem {
                        value: Cow::Owned(encode(&s)),
                        flags: 0,
                        expires_at,
                    };
                    (Mutation::PutKind(ValueKind::Stream, item), Ok(r))
                }
            },
        }
    })?
}
