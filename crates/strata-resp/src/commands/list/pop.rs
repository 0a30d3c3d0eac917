//! `LPOP key [count]`, `RPOP key [count]`.

use strata_kv::Store;

use super::either::{edit_or_in_place, pop_stored};
use super::End;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Removes up to `count` elements at `end` of `key`'s list, in pop order;
/// `None` when the key is missing. The key goes with its last element.
pub fn pop_from<S: Store>(
    ctx: &mut Ctx<'_, S>,
    key: &[u8],
    end: End,
    count: usize,
) -> Result<Option<Vec<Vec<u8>>>, RespError> {
    let limit = ctx.shared.encodings.list_limit();
    // One element off a packed list: popped where it is stored if it can be.
    let in_place = (count == 1).then_some(|value: &mut [u8]| {
        pop_stored(value, end).map(|(len, e)| (len, (Some(vec![e]), false)))
    });
    let (popped, emptied) = edit_or_in_place(ctx.store, key, limit, in_place, |list, existed| {
        if !existed {
            return Ok((None, false));
        }
        let n = (count as u64).min(list.len()) as usize;
        let mut popped = Vec::with_capacity(n);
        for _ in 0..n {
            popped.extend(list.pop(end)?);
        }
        Ok((Some(popped), list.is_empty()))
    })?;
    if popped.as_ref().is_some_and(|p| !p.is_empty()) {
        announce_pop(ctx, key, end, emptied);
    }
    Ok(popped)
}

/// `lpop` or `rpop` about `key`, then `del` if that emptied it.
pub fn announce_pop<S>(ctx: &Ctx<'_, S>, key: &[u8], end: End, emptied: bool) {
    let event = match end {
        End::Left => "lpop",
        End::Right => "rpop",
    };
    notify::fire_removed(ctx, notify::LIST, event, key, emptied);
}

/// Without a count: the element or null. With one: an array of up to
/// count elements, or a null array for a missing key.
pub fn pop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    end: End,
) -> Result<(), RespError> {
    let count = match args.len() {
        2 => None,
        3 => {
            let n = parse_i64(args.get(2)).ok_or(CollectionError::MustBePositive)?;
            Some(usize::try_from(n).map_err(|_| CollectionError::MustBePositive)?)
        }
        _ => return Err(RespError::Syntax),
    };
    let popped = pop_from(ctx, args.get(1), end, count.unwrap_or(1))?;
    match (count, popped) {
        (None, Some(p)) if !p.is_empty() => out.bulk(&p[0]),
        (None, _) => out.null(),
        (Some(_), None) => out.null_array(),
        (Some(_), Some(p)) => {
            out.array(p.len());
            for e in &p {
                out.bulk(e);
            }
        }
    }
    Ok(())
}
