//! `ZUNIONSTORE` and `ZINTERSTORE destination numkeys key [key ...]
//! [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]`, `ZDIFFSTORE destination
//! numkeys key [key ...]`: the result replaces the destination (deleted
//! when empty); the reply is its size.

use strata_kv::Store;

use super::algebra::{combine, parse, Algebra, Form};
use super::stored::replace;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Computes the result and replaces the destination; replies its size.
pub fn zstore<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    op: Algebra,
) -> Result<(), RespError> {
    let request = parse(ctx.store, &args, 2, op.name(true), op, Form::Store)?;
    let entries = combine(ctx.store, &request, op)?;
    let limits = ctx.shared.encodings.zset();
    let existed = replace(ctx.store, args.get(1), limits, &entries)?;
    let event = (notify::ZSET, op.name(true));
    notify::fire_stored(ctx, existed, !entries.is_empty(), event, args.get(1));
    out.integer(entries.len() as i64);
    Ok(())
}
