//! `ZUNION` and `ZINTER numkeys key [key ...] [WEIGHTS weight ...]
//! [AGGREGATE SUM|MIN|MAX] [WITHSCORES]`, `ZDIFF numkeys key [key ...]
//! [WITHSCORES]`: the result in (score, member) order, with scores flat in
//! RESP2 and as pairs in RESP3, as Redis 7 replies.

use strata_kv::Store;

use super::algebra::{combine, parse, Algebra, Form};
use super::reply_entries;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Replies with the union, intersection or difference of the sources.
pub fn zcombine<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    op: Algebra,
) -> Result<(), RespError> {
    let request = parse(ctx.store, &args, 1, op.name(false), op, Form::Reply)?;
    let entries = combine(ctx.store, &request, op)?;
    reply_entries(out, entries.iter(), request.with_scores);
    Ok(())
}
