//! `DBSIZE`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The number of keys (expired ones not yet reclaimed included, as Redis).
pub fn dbsize<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    out.integer(i64::try_from(ctx.store.len()).unwrap_or(i64::MAX));
    Ok(())
}
