//! `ZINTERCARD numkeys key [key ...] [LIMIT limit]`: the size of the
//! intersection of the sources, at most `limit` when it is not 0.

use strata_kv::Store;

use super::algebra::{intersection_size, parse, Algebra, Form};
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Replies with the intersection's size.
pub fn zintercard<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let request = parse(
        ctx.store,
        &args,
        1,
        "zintercard",
        Algebra::Inter,
        Form::Card,
    )?;
    let n = intersection_size(ctx.store, &request)?;
    out.integer(n as i64);
    Ok(())
}
