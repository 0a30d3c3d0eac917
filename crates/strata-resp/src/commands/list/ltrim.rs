//! `LTRIM key start stop`.

use strata_kv::Store;

use super::either::edit;
use super::range;
use super::End;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Keeps only the elements from start to stop (the key goes if none).
pub fn ltrim<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let start = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let stop = parse_i64(args.get(3)).ok_or(RespError::NotInteger)?;
    let limit = ctx.shared.encodings.list_limit();
    let (existed, emptied) = edit(ctx.store, args.get(1), limit, |list, existed| {
        let len = list.len();
        let (drop_front, drop_back) = match range(start, stop, len as usize) {
            Some((s, e)) => (s as u64, len - 1 - e as u64),
            None => (len, 0),
        };
        list.drop_n(End::Left, drop_front)?;
        list.drop_n(End::Right, drop_back)?;
        Ok((existed, list.is_empty()))
    })?;
    if existed {
        notify::fire_removed(ctx, notify::LIST, "ltrim", args.get(1), emptied);
    }
    out.ok();
    Ok(())
}
