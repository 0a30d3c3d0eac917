//! `ZRANK key member [WITHSCORE]`, `ZREVRANK key member [WITHSCORE]`
//! (`WITHSCORE` as Redis 7.2 has it: the rank and the score, or a null
//! array when the member or key is missing).

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
    if args.len() > 4 {
        let name = if rev { "zrevrank" } else { "zrank" };
        return Err(RespError::WrongArity(name.into()));
    }
    let with_score = args.len() == 4;
    if with_score && !args.get(3).eq_ignore_ascii_case(b"withscore") {
        return Err(RespError::Syntax);
    }
    let member = args.get(2);
    // The member's score from its bucket, then its rank from the tree.
    let found = read(ctx.store, args.get(1), |z| {
        let Some(score) = z.score(member)? else {
            return Ok(None);
        };
        let Some(at) = z.rank(score, member)? else {
            return Ok(None);
        };
        Ok(Some((if rev { z.len() - 1 - at } else { at }, score)))
    })?
    .flatten();
    match (found, with_score) {
        (None, false) => out.null(),
        (None, true) => out.null_array(),
        (Some((rank, _)), false) => out.integer(rank as i64),
        (Some((rank, score)), true) => {
            out.array(2);
            out.integer(rank as i64);
            out.double(score);
        }
    }
    Ok(())
}
