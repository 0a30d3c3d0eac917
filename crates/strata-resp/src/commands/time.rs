//! `TIME`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Unix seconds and microseconds per the keyspace's clock (the clock that
/// decides expiry, so `EXPIREAT` computed from it agrees with the server).
pub fn time<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let ms = ctx.shared.keyspace.now_ms();
    out.array(2);
    out.bulk_integer(ms / 1000);
    out.bulk_integer(ms % 1000 * 1000);
    Ok(())
}
