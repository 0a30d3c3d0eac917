//! `SCARD key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The number of members (0 for a missing key).
pub fn scard<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let n = read(ctx.store, args.get(1), ValueKind::Set, |set| set.len())?;
    out.integer(n.unwrap_or(0) as i64);
    Ok(())
}
