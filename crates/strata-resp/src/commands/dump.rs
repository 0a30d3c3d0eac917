//! `DUMP key`: the key's value as Redis's `RESTORE` payload (see
//! [`crate::rdb`]): its RDB type and encoding, RDB version 10, a
//! CRC-64. Every type, read in whichever encoding Strata holds it (a
//! large collection chunk by chunk; a stream with its consumer groups).

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{self, View};
use crate::commands::list::view as list_view;
use crate::commands::stream::dumped;
use crate::commands::zset::stored as zset_stored;
use crate::rdb::{self, Value};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Tries before giving up on a key that keeps changing type between the
/// look at its type and the read of its value.
const TRIES: usize = 4;

/// The payload, or null for a missing key.
pub fn dump<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match payload(ctx.store, args.get(1))? {
        Some(payload) => out.bulk(&payload),
        None => out.null(),
    }
    Ok(())
}

/// The `DUMP` payload of `key`; `None` when it is missing (`MIGRATE`
/// sends these).
pub(crate) fn payload<S: Store>(store: &mut S, key: &[u8]) -> Result<Option<Vec<u8>>, RespError> {
    Ok(read_value(store, key)?.map(|value| rdb::dump(&value)))
}

/// The whole value at `key`, of any type; `None` when it is missing
/// (`DEBUG DIGEST` reads these).
pub(crate) fn read_value<S: Store>(store: &mut S, key: &[u8]) -> Result<Option<Value>, RespError> {
    let mut last = Err(RespError::WrongType);
    for _ in 0..TRIES {
        let Some(kind) = store.kind(key) else {
            return Ok(None);
        };
        last = value(store, key, kind);
        match &last {
            // Replaced by another type since the look: look again.
            Err(RespError::WrongType) => continue,
            _ => break,
        }
    }
    last
}

/// The value at `key` read as a `kind`; `None` when it went meanwhile.
fn value<S: Store>(store: &mut S, key: &[u8], kind: ValueKind) -> Result<Option<Value>, RespError> {
    match kind {
        ValueKind::String => store
            .get(key, |item| match item.kind {
                ValueKind::String => Ok(Value::String(item.value.to_vec())),
                _ => Err(RespError::WrongType),
            })
            .transpose(),
        ValueKind::Hash | ValueKind::Set => {
            let found = hashed::read(store, key, kind, |view| match view {
                View::Packed(elements) => Ok(elements.iter().map(|e| e.to_vec()).collect()),
                View::Large(large) => {
                    let mut all = Vec::new();
                    for b in 0..large.buckets() {
                        all.extend(large.bucket(b)?);
                    }
                    Ok(all)
                }
            })?;
            Ok(found.map(|elements| match kind {
                ValueKind::Hash => Value::Hash(elements),
                _ => Value::Set(elements),
            }))
        }
        ValueKind::List => {
            let found = list_view::read(store, key, |list| match list.len() {
                0 => Ok(Vec::new()),
                n => list.range(0, n - 1),
            })?;
            Ok(found.map(Value::List))
        }
        ValueKind::SortedSet => {
            let found = zset_stored::read(store, key, |set| set.range(0, set.len()))?;
            Ok(found.map(Value::SortedSet))
        }
        ValueKind::Stream => Ok(dumped::read(store, key)?.map(|s| Value::Stream(Box::new(s)))),
    }
}
