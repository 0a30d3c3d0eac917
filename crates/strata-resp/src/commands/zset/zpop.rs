//! `ZPOPMIN key [count]`, `ZPOPMAX key [count]`, and the blocking
//! `BZPOPMIN key [key ...] timeout`, `BZPOPMAX key [key ...] timeout`.

use strata_kv::Store;

use super::stored::edit;
use super::view::Owned;
use super::zrem::announce;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::blocking_pop::pop_first_or_block;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::{ReplyWriter, RespVersion};

/// Which end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Lowest scores first.
    Min,
    /// Highest scores first.
    Max,
}

/// Popped scores and members, copied out.
type Popped = Vec<Owned>;

/// Removes up to `count` members from `side`, in pop order; `None` for a
/// missing key.
pub(super) fn pop_from<S: Store>(
    ctx: &mut Ctx<'_, S>,
    key: &[u8],
    side: Side,
    count: usize,
) -> Result<Option<Popped>, RespError> {
    let limits = ctx.shared.encodings.zset();
    let popped = edit(ctx.store, key, limits, |z| {
        let len = z.len();
        if len == 0 {
            return Ok(None);
        }
        let n = (count as u64).min(len);
        let popped: Popped = match side {
            Side::Min => z.range(0, n)?,
            Side::Max => z.range(len - n, len)?.into_iter().rev().collect(),
        };
        if n == len {
            z.clear(); // all: a large set goes whole
            return Ok(Some((popped, true)));
        }
        for (_, member) in &popped {
            z.remove(member)?;
        }
        Ok(Some((popped, false)))
    })?;
    let Some((popped, emptied)) = popped else {
        return Ok(None);
    };
    let event = match side {
        Side::Min => "zpopmin",
        Side::Max => "zpopmax",
    };
    announce(ctx, key, event, !popped.is_empty(), emptied);
    Ok(Some(popped))
}

/// The popped members and scores: a flat array (RESP3 with a count: an
/// array of pairs).
pub fn zpop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    side: Side,
) -> Result<(), RespError> {
    let count = match args.len() {
        2 => None,
        3 => {
            let n = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
            Some(usize::try_from(n).map_err(|_| CollectionError::MustBePositive)?)
        }
        _ => return Err(RespError::Syntax),
    };
    let popped = pop_from(ctx, args.get(1), side, count.unwrap_or(1))?.unwrap_or_default();
    let pairs = count.is_some() && out.version() == RespVersion::Resp3;
    out.array(if pairs {
        popped.len()
    } else {
        popped.len() * 2
    });
    for (score, member) in &popped {
        if pairs {
            out.array(2);
        }
        out.bulk(member);
        out.double(*score);
    }
    Ok(())
}

/// Pops from the first non-empty sorted set: `[key, member, score]`;
/// otherwise blocks until a ZADD or the timeout (then a null array).
pub fn bzpop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    side: Side,
) -> Result<(), RespError> {
    let pop = |ctx: &mut Ctx<'_, S>, key: &[u8]| -> Result<_, RespError> {
        Ok(pop_from(ctx, key, side, 1)?.and_then(|p| p.into_iter().next()))
    };
    pop_first_or_block(ctx, args, out, pop, |out, key, (score, member)| {
        out.array(3);
        out.bulk(key);
        out.bulk(&member);
        out.double(score);
    })
}
