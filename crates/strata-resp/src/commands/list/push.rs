//! `LPUSH`, `RPUSH`, `LPUSHX`, `RPUSHX`.

use strata_kv::{Mutation, Store, ValueKind};

use super::End;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
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
    let len = ctx.store.update(key, |old| {
        let opened = match open(old, ValueKind::List) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        if !opened.existed && create == Create::No {
            return (Mutation::Keep, Ok(0));
        }
        let new: Vec<&[u8]> = match end {
            End::Left => {
                let mut new: Vec<&[u8]> = args.iter_from(2).collect();
                new.reverse();
                new.extend(opened.elements);
                new
            }
            End::Right => {
                let mut new = opened.elements;
                new.extend(args.iter_from(2));
                new
            }
        };
        (
            save(ValueKind::List, &new, opened.expires_at),
            Ok(new.len()),
        )
    })??;
    if len > 0 {
        ctx.shared.waiters.pushed(key);
    }
    out.integer(len as i64);
    Ok(())
}
