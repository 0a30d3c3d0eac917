//! `HSET key field value [field value ...]` and the older `HMSET`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// What the command replies.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// HSET: the number of fields added.
    Added,
    /// HMSET: OK.
    Ok,
}

/// Sets each field to its value, creating the hash if needed.
pub fn hset<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    reply: Reply,
) -> Result<(), RespError> {
    if args.len() % 2 != 0 {
        let name = match reply {
            Reply::Added => "hset",
            Reply::Ok => "hmset",
        };
        return Err(RespError::WrongArity(name.into()));
    }
    let limits = ctx.shared.encodings.hash();
    let (added, created) = edit(ctx.store, args.get(1), ValueKind::Hash, limits, |hash| {
        let created = hash.is_empty();
        let mut added = 0i64;
        for i in (2..args.len()).step_by(2) {
            added += i64::from(hash.put(args.get(i), args.get(i + 1))?);
        }
        Ok((added, created))
    })?;
    fire_created(ctx, created, notify::HASH, "hset", args.get(1));
    match reply {
        Reply::Added => out.integer(added),
        Reply::Ok => out.ok(),
    }
    Ok(())
}
