//! `HDEL key field [field ...]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes the fields; replies how many existed. The key goes with its
/// last field.
pub fn hdel<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let limits = ctx.shared.encodings.hash();
    let (removed, emptied) = edit(ctx.store, args.get(1), ValueKind::Hash, limits, |hash| {
        let mut removed = 0i64;
        for field in args.iter_from(2) {
            removed += i64::from(hash.remove(field)?);
        }
        Ok((removed, hash.is_empty()))
    })?;
    if removed > 0 {
        notify::fire_removed(ctx, notify::HASH, "hdel", args.get(1), emptied);
    }
    out.integer(removed);
    Ok(())
}
