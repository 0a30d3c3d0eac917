//! `ZRANK key member`, `ZREVRANK key member` (Redis 7.0 has no
//! `WITHSCORE`: the table's arity of 3 refuses it).

use strata_kv::Store;

use super::stored::read;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The member's rank (from the highest score when `rev`), or null.
pub fn zrank<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    rev: bool,
) -> Result<(), RespError> {
    let member = args.get(2);
    // The member's score from its bucket, then its rank from the tree.
    let found = read(ctx.store, args.get(1), |z| {
        let Some(score) = z.score(member)? else {
            return Ok(None);
        };
        let Some(at) = z.rank(score, member)? else {
            return Ok(None);
        };
        Ok(Some(if rev { z.len() - 1 - at } else { at }))
    })?
    .flatten();
    match found {
        None => out.null(),
        Some(rank) => out.integer(rank as i64),
    }
    Ok(())
}
