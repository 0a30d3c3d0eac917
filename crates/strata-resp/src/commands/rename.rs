//! `RENAME key newkey` and `RENAMENX key newkey`.

use strata_kv::{Renamed, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Moves the value (with its expiry) to the new name. `RENAME` replies
/// `+OK`, `RENAMENX` 1, or 0 when the target exists.
pub fn rename<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    only_if_absent: bool,
) -> Result<(), RespError> {
    let (from, to) = (args.get(1), args.get(2));
    let outcome = if from == to {
        match ctx.store.expiry(from) {
            None => Renamed::NoSuchKey,
            Some(_) if only_if_absent => Renamed::TargetExists,
            Some(_) => Renamed::Done,
        }
    } else {
        let outcome = ctx.store.rename(from, to, only_if_absent)?;
        if outcome == Renamed::Done && notify::any(ctx) {
            // Redis adds the destination anew even over an existing key.
            fire(ctx, notify::NEW, "new", to);
            fire(ctx, notify::GENERIC, "rename_from", from);
            fire(ctx, notify::GENERIC, "rename_to", to);
        }
        outcome
    };
    match (outcome, only_if_absent) {
        (Renamed::NoSuchKey, _) => return Err(RespError::NoSuchKey),
        (Renamed::Done, false) => out.ok(),
        (Renamed::Done, true) => out.integer(1),
        (Renamed::TargetExists, _) => out.integer(0),
    }
    Ok(())
}
