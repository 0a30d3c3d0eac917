//! `EXISTS key [key ...]`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Counts the keys that exist; a key named twice counts twice.
pub fn exists<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let found = args
        .iter_from(1)
        .filter(|key| ctx.store.expiry(key).is_some())
        .count();
    out.integer(found as i64);
    Ok(())
}
