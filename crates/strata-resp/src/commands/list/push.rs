//! `LPUSH`, `RPUSH`, `LPUSHX`, `RPUSHX`.

use strata_kv::Store;

use super::either::{edit_or_in_place, push_stored};
use super::pop::announce_pop;
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
/// One element pushed to no list while a blocked `BLPOP`/`BRPOP` waits
/// first in line on it goes straight to that client instead, as Redis
/// serves a blocked client inside the push: the list is never written
/// (pushed and popped, the key is as it was), its watchers hear of the
/// change and both events are sent. Never inside `EXEC` or a script,
/// where blocked clients are served after the section (see
/// [`crate::blocking`]).
pub fn push<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    end: End,
    create: Create,
) -> Result<(), RespError> {
    let key = args.get(1);
    let event = match end {
        End::Left => "lpush",
        End::Right => "rpush",
    };
    let limit = ctx.shared.encodings.list_limit();
    // One element onto no list: it may go straight to a blocked pop.
    let single = create == Create::Yes && args.len() == 3 && !ctx.store.is_exclusive();
    let waiters = &ctx.shared.waiters;
    // The popping client's answer waits for what this one wrote before.
    let after_lsn = match ctx.conn.last_write_lsn {
        strata_kv::journal::APPEND_FAILED => 0,
        lsn => lsn,
    };
    let mut handed = None;
    // One element onto a packed list: pushed where it is stored if it can be.
    let in_place =
        (args.len() == 3).then_some(|value: &mut [u8]| push_stored(value, limit, end, args.get(2)));
    let len = edit_or_in_place(ctx.store, key, limit, in_place, |list, existed| {
        if !existed && create == Create::No {
            return Ok(0);
        }
        if !existed && single {
            handed = waiters.hand_over(key, args.get(2), after_lsn);
            if handed.is_some() {
                return Ok(1);
            }
        }
        for e in args.iter_from(2) {
            list.push(end, e)?;
        }
        Ok(list.len())
    })?;
    if let Some(from_left) = handed {
        ctx.store.signal_modified(key);
        fire_created(ctx, true, notify::LIST, event, key);
        let popped_at = if from_left { End::Left } else { End::Right };
        announce_pop(ctx, key, popped_at, true);
        out.integer(1);
        return Ok(());
    }
    if len > 0 {
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
