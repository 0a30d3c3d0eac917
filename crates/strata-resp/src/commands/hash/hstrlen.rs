//! `HSTRLEN key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The length of the field's value (0 when absent).
pub fn hstrlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let field = args.get(2);
    let len = read(ctx.store, args.get(1), ValueKind::Hash, |pairs| {
        find(pairs, field).map_or(0, |at| pairs[at * 2 + 1].len())
    })?;
    out.integer(len.unwrap_or(0) as i64);
    Ok(())
}
