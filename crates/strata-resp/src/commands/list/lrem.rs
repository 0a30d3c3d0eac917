//! `LREM key count element`.

use strata_kv::Store;

use super::either::edit;
use super::End;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify;
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
    let limit = match count {
        0 => u64::MAX,
        n => n.unsigned_abs(),
    };
    let end = if count < 0 { End::Right } else { End::Left };
    let list_limit = ctx.shared.encodings.list_limit();
    let (removed, emptied) = edit(ctx.store, args.get(1), list_limit, |list, _| {
        Ok((list.remove(end, limit, element)?, list.is_empty()))
    })?;
    if removed > 0 {
        notify::fire_removed(ctx, notify::LIST, "lrem", args.get(1), emptied);
    }
    out.integer(removed as i64);
    Ok(())
}
