//! `SETEX key seconds value`, `PSETEX key ms value` and `SETNX key value`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::expire::{expiry_at, Unit};
use crate::commands::set::announce;
use crate::notify;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `SETEX` / `PSETEX`: set with a relative expiry.
pub fn setex<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    unit: Unit,
    command: &'static str,
) -> Result<(), RespError> {
    let at = expiry_at(
        args.get(2),
        unit,
        true,
        ctx.shared.keyspace.now_ms(),
        command,
    )?;
    let item = NewItem {
        value: Cow::Borrowed(args.get(3)),
        flags: 0,
        expires_at: Some(at),
    };
    let key = args.get(1);
    // `new` needs to know whether the key was there: no blind store then.
    let notifying = notify::any(ctx);
    let created = match notifying && notify::wanted(ctx, notify::NEW) {
        true => ctx
            .store
            .update(key, |old| (Mutation::Put(item), old.is_none()))?,
        false => ctx.store.set(key, item).map(|()| false)?,
    };
    if notifying {
        announce(ctx, key, created, Some(at));
    }
    out.ok();
    Ok(())
}

/// `SETNX`: 1 when the key was created, 0 when it existed.
pub fn setnx<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let value = args.get(2);
    let created = ctx.store.update(args.get(1), |old| match old {
        Some(_) => (Mutation::Keep, false),
        None => {
            let item = NewItem {
                value: Cow::Borrowed(value),
                flags: 0,
                expires_at: None,
            };
            (Mutation::Put(item), true)
        }
    })?;
    if created {
        announce(ctx, args.get(1), true, None);
    }
    out.integer(i64::from(created));
    Ok(())
}
