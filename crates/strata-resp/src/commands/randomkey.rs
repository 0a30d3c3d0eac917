//! `RANDOMKEY`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// A random existing key, or null when the keyspace is empty.
pub fn randomkey<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match ctx.store.random_key() {
        Some(key) => out.bulk(&key),
        None => out.null(),
    }
    Ok(())
}
