//! `HEXISTS key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// 1 if the field exists, else 0.
pub fn hexists<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let found = read(ctx.store, key, ValueKind::Hash, |hash| match hash {
        View::Packed(pairs) => Ok(find(pairs, field).is_some()),
        View::Large(hash) => Ok(hash.get(field)?.is_some()),
    })?
    .unwrap_or(false);
    out.integer(i64::from(found));
    Ok(())
}
