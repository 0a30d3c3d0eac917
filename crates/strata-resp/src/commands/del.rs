//! `DEL key [key ...]` and `UNLINK` (the same here: memory is reclaimed by
//! the engine either way).

use strata_kv::{Deleted, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Deletes the keys; replies how many existed.
pub fn del<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut removed = 0;
    for key in args.iter_from(1) {
        if ctx.store.delete(key)? == Deleted::Removed {
            removed += 1;
            fire(ctx, notify::GENERIC, "del", key);
        }
    }
    out.integer(removed);
    Ok(())
}
