//! `LMOVE source destination LEFT|RIGHT LEFT|RIGHT` and `RPOPLPUSH`.

use strata_kv::{Mutation, Store, ValueKind};

use super::End;
use crate::command::Ctx;
use crate::commands::collection::{elements, open, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Atomically pops an element at `from` of `source` and pushes it at `to`
/// of `destination`; `None` when the source is missing. A destination of
/// another type refuses the move (nothing is popped).
pub fn move_element<S: Store>(
    store: &mut S,
    source: &[u8],
    destination: &[u8],
    from: End,
    to: End,
) -> Result<Option<Vec<u8>>, RespError> {
    if source == destination {
        return store.update(source, |old| {
            let mut opened = match open(old, ValueKind::List) {
                Ok(o) => o,
                Err(e) => return (Mutation::Keep, Err(e)),
            };
            let list = &mut opened.elements;
            let Some(e) = take(list, from) else {
                return (Mutation::Keep, Ok(None));
            };
            put(list, to, e);
            (
                save(ValueKind::List, list, opened.expires_at),
                Ok(Some(e.to_vec())),
            )
        })?;
    }
    store.update_pair(source, destination, |src, dst| {
        let refuse = |e| (Mutation::Keep, Mutation::Keep, Err(e));
        let mut src_list = match src.map(|i| (elements(&i, ValueKind::List), i.expires_at)) {
            None => return (Mutation::Keep, Mutation::Keep, Ok(None)),
            Some((Err(e), _)) => return refuse(e),
            Some((Ok(l), exp)) => (l, exp),
        };
        let mut dst_list = match dst.map(|i| (elements(&i, ValueKind::List), i.expires_at)) {
            None => (Vec::new(), None),
            Some((Err(e), _)) => return refuse(e),
            Some((Ok(l), exp)) => (l, exp),
        };
        let Some(e) = take(&mut src_list.0, from) else {
            return (Mutation::Keep, Mutation::Keep, Ok(None));
        };
        put(&mut dst_list.0, to, e);
        (
            save(ValueKind::List, &src_list.0, src_list.1),
            save(ValueKind::List, &dst_list.0, dst_list.1),
            Ok(Some(e.to_vec())),
        )
    })?
}

fn take<'e>(list: &mut Vec<&'e [u8]>, end: End) -> Option<&'e [u8]> {
    match end {
        End::Left if !list.is_empty() => Some(list.remove(0)),
        End::Left => None,
        End::Right => list.pop(),
    }
}

fn put<'e>(list: &mut Vec<&'e [u8]>, end: End, e: &'e [u8]) {
    match end {
        End::Left => list.insert(0, e),
        End::Right => list.push(e),
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
    match move_element(ctx.store, source, destination, from, to)? {
        Some(e) => {
            ctx.shared.waiters.pushed(destination);
            out.bulk(&e);
        }
        None => out.null(),
    }
    Ok(())
}
