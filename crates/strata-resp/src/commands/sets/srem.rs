//! `SREM key member [member ...]`.

use std::collections::HashSet;

use strata_kv::{Mutation, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes the members; replies how many were there.
pub fn srem<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let removed = ctx.store.update(args.get(1), |old| {
        let mut opened = match open(old, ValueKind::Set) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let doomed: HashSet<&[u8]> = args.iter_from(2).collect();
        let set = &mut opened.elements;
        let before = set.len();
        set.retain(|m| !doomed.contains(m));
        let removed = before - set.len();
        if removed == 0 {
            return (Mutation::Keep, Ok(0));
        }
        (save(ValueKind::Set, set, opened.expires_at), Ok(removed))
    })??;
    out.integer(removed as i64);
    Ok(())
}
