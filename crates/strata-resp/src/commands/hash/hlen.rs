//! `HLEN key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The number of fields (0 for a missing key).
pub fn hlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let n = read(ctx.store, args.get(1), ValueKind::Hash, |pairs| {
        pairs.len() / 2
    })?;
    out.integer(n.unwrap_or(0) as i64);
    Ok(())
}
