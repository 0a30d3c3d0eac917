//! `HDEL key field [field ...]`.

use strata_kv::{Mutation, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes the fields; replies how many existed. The key goes with its
/// last field.
pub fn hdel<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let removed = ctx.store.update(args.get(1), |old| {
        let opened = match open(old, ValueKind::Hash) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let doomed: std::collections::HashSet<&[u8]> = args.iter_from(2).collect();
        let before = opened.elements.len() / 2;
        let kept: Vec<&[u8]> = opened
            .elements
            .chunks_exact(2)
            .filter(|p| !doomed.contains(p[0]))
            .flatten()
            .copied()
            .collect();
        let removed = before - kept.len() / 2;
        if removed == 0 {
            return (Mutation::Keep, Ok(0));
        }
        (save(ValueKind::Hash, &kept, opened.expires_at), Ok(removed))
    })??;
    out.integer(removed as i64);
    Ok(())
}
