//! `LMOVE source destination LEFT|RIGHT LEFT|RIGHT` and `RPOPLPUSH`.

use strata_kv::{Store, ValueKind};

use super::either::edit;
use super::pop::announce_pop;
use super::End;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::encodings::ListLimit;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Atomically (both keys' shards held, one journal record) pops an
/// element at `from` of `source` and pushes it at `to` of `destination`;
/// `None` when the source is missing. A destination of another type
/// refuses the move (nothing is popped).
pub fn move_element<S: Store>(
    ctx: &mut Ctx<'_, S>,
    source: &[u8],
    destination: &[u8],
    from: End,
    to: End,
) -> Result<Option<Vec<u8>>, RespError> {
    let task = Move {
        source,
        destination,
        from,
        to,
        limit: ctx.shared.encodings.list_limit(),
    };
    let moved = atomically(ctx, &[source, destination], task)?;
    let Some((element, created, emptied)) = moved else {
        return Ok(None);
    };
    if notify::any(ctx) {
        let event = match to {
            End::Left => "lpush",
            End::Right => "rpush",
        };
        fire_created(ctx, created, notify::LIST, event, destination);
        announce_pop(ctx, source, from, emptied);
    }
    Ok(Some(element))
}

struct Move<'a> {
    source: &'a [u8],
    destination: &'a [u8],
    from: End,
    to: End,
    limit: ListLimit,
}

impl Atomic for Move<'_> {
    /// The element moved, whether the destination was created and whether
    /// the source was emptied.
    type Output = Result<Option<(Vec<u8>, bool, bool)>, RespError>;

    /// As Redis: a missing source answers null whatever the destination
    /// is; otherwise both must be lists before anything changes.
    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let Some(kind) = store.kind(self.source) else {
            return Ok(None);
        };
        let not_list = |k: Option<ValueKind>| k.is_some_and(|k| k != ValueKind::List);
        if not_list(Some(kind)) || not_list(store.kind(self.destination)) {
            return Err(RespError::WrongType);
        }
        let (from, to, limit) = (self.from, self.to, self.limit);
        if self.source == self.destination {
            return edit(store, self.source, limit, |list, _| {
                let popped = list.pop(from)?;
                if let Some(e) = &popped {
                    list.push(to, e)?;
                }
                Ok(popped.map(|e| (e, false, false)))
            });
        }
        let popped = edit(store, self.source, limit, |list, _| {
            Ok(list.pop(from)?.map(|e| (e, list.is_empty())))
        })?;
        let Some((e, emptied)) = popped else {
            return Ok(None);
        };
        let created = edit(store, self.destination, limit, |list, existed| {
            list.push(to, &e)?;
            Ok(!existed)
        })?;
        Ok(Some((e, created, emptied)))
    }
}

/// The moved element, or null when the source is missing.
pub fn lmove<S: Store>(
    ctx: &mut Ctx<'_, S>,
    source: &[u8],
    destination: &[u8],
    from: End,
    to: End,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match move_element(ctx, source, destination, from, to)? {
        Some(e) => {
            ctx.shared.waiters.pushed(destination);
            out.bulk(&e);
        }
        None => out.null(),
    }
    Ok(())
}
