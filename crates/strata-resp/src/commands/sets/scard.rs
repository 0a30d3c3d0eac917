//! `SCARD key`.

use strata_kv::Store;

use super::members::card;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The number of members (0 for a missing key); a large set's count is
/// in its head.
pub fn scard<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let n = card(ctx.store, args.get(1))?;
    out.integer(i64::try_from(n).unwrap_or(i64::MAX));
    Ok(())
}
