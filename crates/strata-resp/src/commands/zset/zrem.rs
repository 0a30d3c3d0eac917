//! `ZREM key member [member ...]`, `ZREMRANGEBYSCORE key min max`,
//! `ZREMRANGEBYRANK key start stop`, `ZREMRANGEBYLEX key min max`.

use strata_kv::Store;

use super::bounds::{rank_span, LexRange, ScoreRange};
use super::stored::edit;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Removes the members; replies how many were there.
pub fn zrem<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let limits = ctx.shared.encodings.zset();
    let (removed, emptied) = edit(ctx.store, args.get(1), limits, |z| {
        let mut removed = 0i64;
        for m in args.iter_from(2) {
            removed += i64::from(z.remove(m)?.is_some());
        }
        Ok((removed, z.len() == 0))
    })?;
    announce(ctx, args.get(1), "zrem", removed > 0, emptied);
    out.integer(removed);
    Ok(())
}

/// `event` when members were removed, then `del` if that emptied the key.
pub fn announce<S>(ctx: &Ctx<'_, S>, key: &[u8], event: &str, removed: bool, emptied: bool) {
    if removed {
        notify::fire_removed(ctx, notify::ZSET, event, key, emptied);
    }
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

/// Removes a range; replies how many went. The range's members are read
/// (one tree path and the leaves of the range) and removed one by one.
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
    let limits = ctx.shared.encodings.zset();
    let removed = edit(ctx.store, args.get(1), limits, |z| {
        let span = match &which {
            Which::Score(r) => r.span(z)?,
            Which::Rank(s, e) => rank_span(*s, *e, z.len()),
            Which::Lex(r) => r.span(z)?,
        };
        let removed = span.end - span.start;
        if removed > 0 && removed == z.len() {
            z.clear(); // all: a large set goes whole
            return Ok((removed as i64, true));
        }
        for (_, member) in &z.range(span.start, span.end)? {
            z.remove(member)?;
        }
        Ok((removed as i64, false))
    })?;
    let (removed, emptied) = removed;
    let event = match by {
        By::Score => "zremrangebyscore",
        By::Rank => "zremrangebyrank",
        By::Lex => "zremrangebylex",
    };
    announce(ctx, args.get(1), event, removed > 0, emptied);
    out.integer(removed);
    Ok(())
}
