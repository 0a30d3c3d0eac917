//! `PERSIST key`.

use strata_kv::{Mutation, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes the key's expiry: 1 if it had one, 0 otherwise.
pub fn persist<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let changed = ctx.store.update(args.get(1), |old| match old {
        Some(item) if item.expires_at.is_some() => (Mutation::SetExpiry(None), true),
        _ => (Mutation::Keep, false),
    })?;
    if changed {
        fire(ctx, notify::GENERIC, "persist", args.get(1));
    }
    out.integer(i64::from(changed));
    Ok(())
}
