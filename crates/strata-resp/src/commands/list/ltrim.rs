//! `LTRIM key start stop`.

use strata_kv::{Mutation, Store, ValueKind};

use super::range;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
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
    ctx.store.update(args.get(1), |old| {
        let opened = match open(old, ValueKind::List) {
            Ok(o) if !o.existed => return (Mutation::Keep, Ok(())),
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let list = opened.elements;
        let kept: &[&[u8]] = match range(start, stop, list.len()) {
            Some((s, e)) if (s, e) == (0, list.len() - 1) => return (Mutation::Keep, Ok(())),
            Some((s, e)) => &list[s..=e],
            None => &[],
        };
        (save(ValueKind::List, kept, opened.expires_at), Ok(()))
    })??;
    out.ok();
    Ok(())
}
