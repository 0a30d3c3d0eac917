//! `LPUSH`, `RPUSH`, `LPUSHX`, `RPUSHX`.

use strata_kv::Store;

use super::either::edit;
use super::End;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Whether a missing key is created (the X forms only push onto an
/// existing list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Create {
    /// LPUSH, RPUSH.
    Yes,
    /// LPUSHX, RPUSHX.
    No,
}

/// Pushes the elements one after the other at `end`; replies the length.
pub fn push<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    end: End,
    create: Create,
) -> Result<(), RespError> {
    let key = args.get(1);
    let limit = ctx.shared.encodings.list_limit();
    let len = edit(ctx.store, key, limit, |list, existed| {
        if !existed && create == Create::No {
            return Ok(0);
        }
        for e in args.iter_from(2) {
            list.push(end, e)?;
        }
        Ok(list.len())
    })?;
    if len > 0 {
        let event = match end {
            End::Left => "lpush",
            End::Right => "rpush",
        };
        fire_created(
            ctx,
            len == (args.len() - 2) as u64,
            notify::LIST,
            event,
            key,
        );
        ctx.shared.waiters.pushed(key);
    }
    out.integer(len as i64);
    Ok(())
}
