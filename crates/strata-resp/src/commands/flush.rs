//! `FLUSHDB [ASYNC|SYNC]` and `FLUSHALL [ASYNC|SYNC]` (one database, so
//! both empty the whole keyspace; both modes flush before replying).

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes every key.
pub fn flush<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match args.len() {
        1 => {}
        2 if args.get(1).eq_ignore_ascii_case(b"async")
            || args.get(1).eq_ignore_ascii_case(b"sync") => {}
        _ => return Err(RespError::Syntax),
    }
    ctx.store.flush()?;
    out.ok();
    Ok(())
}
