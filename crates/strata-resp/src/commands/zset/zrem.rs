//! `ZREM key member [member ...]`, `ZREMRANGEBYSCORE key min max`,
//! `ZREMRANGEBYRANK key start stop`, `ZREMRANGEBYLEX key min max`.

use std::collections::HashSet;

use strata_kv::{Mutation, Store};

use super::bounds::{LexRange, ScoreRange};
use super::{open, save};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::list::range;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes the members; replies how many were there.
pub fn zrem<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let doomed: HashSet<&[u8]> = args.iter_from(2).collect();
    let removed = ctx.store.update(args.get(1), |old| {
        let (mut entries, expires_at) = match open(old) {
            Ok(x) => x,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let before = entries.len();
        entries.retain(|e| !doomed.contains(e.1));
        let removed = before - entries.len();
        if removed == 0 {
            return (Mutation::Keep, Ok(0));
        }
        (save(&entries, expires_at), Ok(removed))
    })??;
    out.integer(removed as i64);
    Ok(())
}

/// How the range to remove is given.
#[derive(Debug, Clone, Copy)]
pub enum By {
    /// Scores.
    Score,
    /// Ranks (negative from the end).
    Rank,
    /// Members, lexicographically.
    Lex,
}

/// Removes a range; replies how many went.
pub fn zremrange<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    by: By,
) -> Result<(), RespError> {
    let (a, b) = (args.get(2), args.get(3));
    enum Which<'a> {
        Score(ScoreRange),
        Rank(i64, i64),
        Lex(LexRange<'a>),
    }
    let which = match by {
        By::Score => Which::Score(ScoreRange::parse(a, b)?),
        By::Rank => Which::Rank(
            parse_i64(a).ok_or(RespError::NotInteger)?,
            parse_i64(b).ok_or(RespError::NotInteger)?,
        ),
        By::Lex => Which::Lex(LexRange::parse(a, b)?),
    };
    let removed = ctx.store.update(args.get(1), |old| {
        let (mut entries, expires_at) = match open(old) {
            Ok(x) => x,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let span = match &which {
            Which::Score(r) => r.slice(&entries),
            Which::Rank(s, e) => match range(*s, *e, entries.len()) {
                Some((s, e)) => s..e + 1,
                None => 0..0,
            },
            Which::Lex(r) => r.slice(&entries),
        };
        let removed = span.len();
        if removed == 0 {
            return (Mutation::Keep, Ok(0));
        }
        entries.drain(span);
        (save(&entries, expires_at), Ok(removed))
    })??;
    out.integer(removed as i64);
    Ok(())
}
