//! `LREM key count element`.

use strata_kv::{Mutation, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes occurrences of the element: the first `count` from the head
/// (positive), from the tail (negative) or all (0); replies how many.
pub fn lrem<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let count = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let element = args.get(3);
    let removed = ctx.store.update(args.get(1), |old| {
        let opened = match open(old, ValueKind::List) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let limit = if count == 0 {
            usize::MAX
        } else {
            usize::try_from(count.unsigned_abs()).unwrap_or(usize::MAX)
        };
        let mut list = opened.elements;
        if count < 0 {
            list.reverse();
        }
        let mut removed = 0usize;
        list.retain(|e| {
            let drop = removed < limit && *e == element;
            removed += usize::from(drop);
            !drop
        });
        if count < 0 {
            list.reverse();
        }
        if removed == 0 {
            return (Mutation::Keep, Ok(0));
        }
        (save(ValueKind::List, &list, opened.expires_at), Ok(removed))
    })??;
    out.integer(removed as i64);
    Ok(())
}
