//! `XLEN key`.

use strata_kv::Store;

use super::stored::read;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The number of entries (0 for a missing key).
pub fn xlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let n = read(ctx.store, args.get(1), |s| Ok(s.len()))?.unwrap_or(0);
    out.integer(i64::try_from(n).unwrap_or(i64::MAX));
    Ok(())
}
