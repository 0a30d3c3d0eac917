//! `ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count]
//! [WITHSCORES]`, `ZRANGESTORE`, and the older `ZREVRANGE`,
//! `ZRANGEBYSCORE`, `ZREVRANGEBYSCORE`, `ZRANGEBYLEX`, `ZREVRANGEBYLEX`.

use strata_kv::Store;

use std::ops::Range;

use super::bounds::{rank_span, LexRange, ScoreRange};
use super::reply_entries;
use super::stored::{read, replace};
use super::view::{Ordered, Owned, Packed};
use crate::args::Args;
use crate::command::Ctx;
use crate::notify;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Which spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `ZRANGE` with every option.
    ZRange,
    /// `ZRANGESTORE dst src ...`.
    ZRangeStore,
    /// `ZREVRANGE key start stop [WITHSCORES]`.
    ZRevRange,
    /// `ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT]`.
    ByScore,
    /// `ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT]`.
    RevByScore,
    /// `ZRANGEBYLEX key min max [LIMIT]`.
    ByLex,
    /// `ZREVRANGEBYLEX key max min [LIMIT]`.
    RevByLex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum By {
    Rank,
    Score,
    Lex,
}

struct Query<'a> {
    by: By,
    rev: bool,
    start: &'a [u8],
    stop: &'a [u8],
    limit: Option<(i64, i64)>,
    with_scores: bool,
}

fn parse<'a>(args: &Args<'a>, form: Form) -> Result<Query<'a>, RespError> {
    let first = if form == Form::ZRangeStore { 2 } else { 1 };
    let (by, rev) = match form {
        Form::ZRange | Form::ZRangeStore => (By::Rank, false),
        Form::ZRevRange => (By::Rank, true),
        Form::ByScore => (By::Score, false),
        Form::RevByScore => (By::Score, true),
        Form::ByLex => (By::Lex, false),
        Form::RevByLex => (By::Lex, true),
    };
    let mut q = Query {
        by,
        rev,
        start: args.get(first + 1),
        stop: args.get(first + 2),
        limit: None,
        with_scores: false,
    };
    // As Redis parses: `REV`, `BYSCORE` and `BYLEX` once each and only in
    // `ZRANGE`/`ZRANGESTORE`; `WITHSCORES` in every form but the store;
    // `LIMIT` anywhere, refused below for a rank range.
    let full = matches!(form, Form::ZRange | Form::ZRangeStore);
    let (mut by_given, mut rev_given) = (!full, !full);
    let mut i = first + 3;
    while i < args.len() {
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"withscores" if form != Form::ZRangeStore => q.with_scores = true,
            b"byscore" if !by_given => (q.by, by_given) = (By::Score, true),
            b"bylex" if !by_given => (q.by, by_given) = (By::Lex, true),
            b"rev" if !rev_given => (q.rev, rev_given) = (true, true),
            b"limit" if i + 2 < args.len() => {
                let off = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                let count = parse_i64(args.get(i + 2)).ok_or(RespError::NotInteger)?;
                q.limit = Some((off, count));
                i += 2;
            }
            _ => return Err(RespError::Syntax),
        }
        i += 1;
    }
    // Redis tells a given `LIMIT` by its count: `-1` is no limit at all.
    if q.limit.is_some_and(|(_, count)| count == -1) && q.by == By::Rank {
        q.limit = None;
    }
    if q.by == By::Rank && q.limit.is_some() {
        return Err(CollectionError::LimitWithoutBy.into());
    }
    if q.by == By::Lex && q.with_scores {
        return Err(CollectionError::WithScoresByLex.into());
    }
    Ok(q)
}

/// The ranks the query selects, in `z`, and whether they are replied
/// from the highest down; `LIMIT` applied.
fn select(q: &Query<'_>, z: &mut dyn Ordered) -> Result<(Range<u64>, bool), RespError> {
    let len = z.len();
    let span = match q.by {
        By::Rank => {
            let start = parse_i64(q.start).ok_or(RespError::NotInteger)?;
            let stop = parse_i64(q.stop).ok_or(RespError::NotInteger)?;
            let span = rank_span(start, stop, len);
            // Ranks counted from the highest score.
            match q.rev {
                true => len - span.end..len - span.start,
                false => span,
            }
        }
        By::Score | By::Lex => {
            // Reversed forms give the bounds as max, min.
            let (min, max) = if q.rev {
                (q.stop, q.start)
            } else {
                (q.start, q.stop)
            };
            match q.by {
                By::Score => ScoreRange::parse(min, max)?.span(z)?,
                _ => LexRange::parse(min, max)?.span(z)?,
            }
        }
    };
    let Some((off, count)) = q.limit else {
        return Ok((span, q.rev));
    };
    if off < 0 {
        return Ok((0..0, q.rev));
    }
    let off = off as u64;
    let count = u64::try_from(count).unwrap_or(u64::MAX);
    let inside = span.end - span.start;
    let take = inside.saturating_sub(off).min(count);
    let span = match q.rev {
        true => span.end - off.min(inside) - take..span.end - off.min(inside),
        false => span.start + off.min(inside)..span.start + off.min(inside) + take,
    };
    Ok((span, q.rev))
}

/// The selected members in reply order.
fn selected(q: &Query<'_>, z: &mut dyn Ordered) -> Result<Vec<Owned>, RespError> {
    let (span, rev) = select(q, z)?;
    let mut picked = z.range(span.start, span.end)?;
    if rev {
        picked.reverse();
    }
    Ok(picked)
}

/// Replies the selected members (with scores if asked), or stores them.
pub fn zrange<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let q = parse(&args, form)?;
    if form == Form::ZRangeStore {
        let mut picked = read(ctx.store, args.get(2), |z| selected(&q, z))?.unwrap_or_default();
        if picked.is_empty() {
            check_range(&q)?;
        }
        if q.rev {
            picked.reverse();
        }
        let limits = ctx.shared.encodings.zset();
        let existed = replace(ctx.store, args.get(1), limits, &picked)?;
        let event = (notify::ZSET, "zrangestore");
        notify::fire_stored(ctx, existed, !picked.is_empty(), event, args.get(1));
        out.integer(picked.len() as i64);
        return Ok(());
    }
    let found = read(ctx.store, args.get(1), |z| {
        let (span, rev) = select(&q, z)?;
        let with_scores = q.with_scores;
        if let Some(entries) = z.packed() {
            let end = usize::try_from(span.end).map_or(entries.len(), |e| e.min(entries.len()));
            let start = usize::try_from(span.start).map_or(end, |s| s.min(end));
            let picked = &entries[start..end];
            match rev {
                true => reply_entries(out, picked.iter().rev(), with_scores),
                false => reply_entries(out, picked.iter(), with_scores),
            }
            return Ok(());
        }
        let mut picked = z.range(span.start, span.end)?;
        if rev {
            picked.reverse();
        }
        reply_entries(out, picked.iter(), with_scores);
        Ok(())
    })?;
    if found.is_none() {
        // A missing key still checks its range arguments.
        check_range(&q)?;
        out.array(0);
    }
    Ok(())
}

/// The errors a query's range arguments give on an empty set.
fn check_range(q: &Query<'_>) -> Result<(), RespError> {
    let mut empty = Packed {
        entries: Vec::new(),
        dirty: false,
    };
    select(q, &mut empty).map(|_| ())
}
