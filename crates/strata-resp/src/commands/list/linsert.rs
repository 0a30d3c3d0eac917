//! `LINSERT key BEFORE|AFTER pivot element`.

use strata_kv::Store;

use super::either::edit;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Inserts the element next to the first pivot: the new length, -1 if the
/// pivot is absent, 0 for a missing key.
pub fn linsert<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let after = match args.get(2).to_ascii_lowercase().as_slice() {
        b"before" => false,
        b"after" => true,
        _ => return Err(RespError::Syntax),
    };
    let (pivot, element) = (args.get(3), args.get(4));
    let key = args.get(1);
    let limit = ctx.shared.encodings.list_limit();
    let len = edit(ctx.store, key, limit, |list, existed| {
        if !existed {
            return Ok(0);
        }
        if !list.insert(pivot, after, element)? {
            return Ok(-1);
        }
        Ok(list.len() as i64)
    })?;
    if len > 0 {
        fire(ctx, notify::LIST, "linsert", key);
        ctx.shared.waiters.pushed(key);
    }
    out.integer(len);
    Ok(())
}
