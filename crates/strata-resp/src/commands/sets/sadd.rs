//! `SADD key member [member ...]`.

use std::collections::HashSet;

use strata_kv::{Mutation, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Adds the members; replies how many were new.
pub fn sadd<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let added = ctx.store.update(args.get(1), |old| {
        let mut opened = match open(old, ValueKind::Set) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let set = &mut opened.elements;
        let mut present: HashSet<&[u8]> = set.iter().copied().collect();
        let before = set.len();
        for m in args.iter_from(2) {
            if present.insert(m) {
                set.push(m);
            }
        }
        let added = set.len() - before;
        if added == 0 {
            return (Mutation::Keep, Ok(0));
        }
        (save(ValueKind::Set, set, opened.expires_at), Ok(added))
    })??;
    out.integer(added as i64);
    Ok(())
}
