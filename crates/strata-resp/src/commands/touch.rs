//! `TOUCH key [key ...]`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Marks each key accessed (for `OBJECT IDLETIME` and eviction) without
/// reading its value, and counts the keys that exist; a key named twice
/// counts twice. Hits and misses are counted, as Redis's lookup does.
pub fn touch<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let touched = args.iter_from(1).filter(|key| ctx.store.touch(key)).count();
    out.integer(touched as i64);
    Ok(())
}
