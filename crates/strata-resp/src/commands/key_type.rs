//! `TYPE key`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `string` for an existing key (every value is a string), `none` otherwise.
pub fn key_type<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match ctx.store.expiry(args.get(1)) {
        Some(_) => out.simple("string"),
        None => out.simple("none"),
    }
    Ok(())
}
