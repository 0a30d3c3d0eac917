//! `HGET key field`.

use strata_kv::Store;

use super::with_field;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The field's value, or null.
pub fn hget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let found = with_field(ctx.store, key, field, |v| match v {
        Some(v) => out.bulk(v),
        None => out.null(),
    })?;
    if found.is_none() {
        out.null();
    }
    Ok(())
}
