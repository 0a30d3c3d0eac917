//! `HSTRLEN key field`.

use strata_kv::Store;

use super::with_field;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The length of the field's value (0 when absent).
pub fn hstrlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let len = with_field(ctx.store, key, field, |v| v.map_or(0, <[u8]>::len))?.unwrap_or(0);
    out.integer(len as i64);
    Ok(())
}
