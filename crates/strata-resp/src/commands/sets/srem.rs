//! `SREM key member [member ...]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes the members; replies how many were there. The key goes when
/// the set becomes empty.
pub fn srem<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let limits = ctx.shared.encodings.set_limits();
    let (removed, emptied) = edit(ctx.store, args.get(1), ValueKind::Set, limits, |set| {
        let mut removed = 0i64;
        for m in args.iter_from(2) {
            removed += i64::from(set.remove(m)?);
        }
        Ok((removed, set.is_empty()))
    })?;
    if removed > 0 {
        notify::fire_removed(ctx, notify::SET, "srem", args.get(1), emptied);
    }
    out.integer(removed);
    Ok(())
}
