//! `HSETNX key field value`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Sets the field only if it is absent: 1 if set, 0 if it existed.
pub fn hsetnx<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (field, value) = (args.get(2), args.get(3));
    let limits = ctx.shared.encodings.hash();
    let set = edit(
        ctx.store,
        args.get(1),
        ValueKind::Hash,
        limits,
        |hash| match hash.get(field)? {
            Some(_) => Ok((false, false)),
            None => Ok((hash.is_empty(), hash.put(field, value)?)),
        },
    )?;
    let (created, set) = set;
    if set {
        fire_created(ctx, created, notify::HASH, "hset", args.get(1));
    }
    out.integer(i64::from(set));
    Ok(())
}
