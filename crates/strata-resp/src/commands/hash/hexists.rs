//! `HEXISTS key field`.

use strata_kv::Store;

use super::with_field;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// 1 if the field exists, else 0.
pub fn hexists<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let found = with_field(ctx.store, key, field, |v| v.is_some())?.unwrap_or(false);
    out.integer(i64::from(found));
    Ok(())
}
