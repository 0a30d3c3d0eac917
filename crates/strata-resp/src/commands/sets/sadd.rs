//! `SADD key member [member ...]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Adds the members; replies how many were new. A packed set past the
/// `set-max-*` limits becomes large; a large one changes only the buckets
/// of the members named.
pub fn sadd<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let limits = ctx.shared.encodings.set_limits();
    let (added, created) = edit(ctx.store, args.get(1), ValueKind::Set, limits, |set| {
        let created = set.is_empty();
        let mut added = 0i64;
        for m in args.iter_from(2) {
            added += i64::from(set.put(m, b"")?);
        }
        Ok((added, created))
    })?;
    if added > 0 {
        fire_created(ctx, created, notify::SET, "sadd", args.get(1));
    }
    out.integer(added);
    Ok(())
}
