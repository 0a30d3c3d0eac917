//! `ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count]
//! [WITHSCORES]`, `ZRANGESTORE`, and the older `ZREVRANGE`,
//! `ZRANGEBYSCORE`, `ZREVRANGEBYSCORE`, `ZRANGEBYLEX`, `ZREVRANGEBYLEX`.

use strata_kv::Store;

use super::bounds::{LexRange, ScoreRange};
use super::{read, reply_entries, save, Entry};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::list::range;
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
    let full = matches!(form, Form::ZRange | Form::ZRangeStore);
    let mut i = first + 3;
    while i < args.len() {
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"withscores"
                if form != Form::ZRangeStore && !matches!(form, Form::ByLex | Form::RevByLex) =>
            {
                q.with_scores = true
            }
            b"byscore" if full => q.by = By::Score,
            b"bylex" if full => q.by = By::Lex,
            b"rev" if full => q.rev = true,
            b"limit" if form != Form::ZRevRange && i + 2 < args.len() => {
                let off = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                let count = parse_i64(args.get(i + 2)).ok_or(RespError::NotInteger)?;
                q.limit = Some((off, count));
                i += 2;
            }
            _ => return Err(RespError::Syntax),
        }
        i += 1;
    }
    if q.by == By::Lex && q.with_scores {
        return Err(CollectionError::WithScoresByLex.into());
    }
    if q.by == By::Rank && q.limit.is_some() {
        return Err(CollectionError::LimitWithoutBy.into());
    }
    Ok(q)
}

/// The selected entries, in reply order.
fn select<'e>(q: &Query<'_>, entries: &[Entry<'e>]) -> Result<Vec<Entry<'e>>, RespError> {
    let len = entries.len();
    let mut picked: Vec<Entry<'e>> = match q.by {
        By::Rank => {
            let start = parse_i64(q.start).ok_or(RespError::NotInteger)?;
            let stop = parse_i64(q.stop).ok_or(RespError::NotInteger)?;
            match range(start, stop, len) {
                None => Vec::new(),
                Some((s, e)) if q.rev => (s..=e).map(|i| entries[len - 1 - i]).collect(),
                Some((s, e)) => entries[s..=e].to_vec(),
            }
        }
        By::Score | By::Lex => {
            // Reversed forms give the bounds as max, min.
            let (min, max) = if q.rev {
                (q.stop, q.start)
            } else {
                (q.start, q.stop)
            };
            let span = match q.by {
                By::Score => ScoreRange::parse(min, max)?.slice(entries),
                _ => LexRange::parse(min, max)?.slice(entries),
            };
            let mut v = entries[span].to_vec();
            if q.rev {
                v.reverse();
            }
            v
        }
    };
    if let Some((off, count)) = q.limit {
        if off < 0 {
            return Ok(Vec::new());
        }
        let off = usize::try_from(off).unwrap_or(usize::MAX).min(picked.len());
        picked.drain(..off);
        if count >= 0 {
            picked.truncate(usize::try_from(count).unwrap_or(usize::MAX));
        }
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
        let copied: Vec<(f64, Vec<u8>)> = read(ctx.store, args.get(2), |entries| {
            select(&q, entries).map(|v| v.into_iter().map(|e| (e.0, e.1.to_vec())).collect())
        })?
        .transpose()?
        .unwrap_or_default();
        let mut entries: Vec<Entry<'_>> = copied.iter().map(|(s, m)| (*s, m.as_slice())).collect();
        entries.sort_by(super::order);
        let mutation = save(&entries, None);
        ctx.store.update(args.get(1), |_| (mutation, ()))?;
        out.integer(entries.len() as i64);
        return Ok(());
    }
    let resp3_pairs = form == Form::ZRange;
    let found = read(ctx.store, args.get(1), |entries| {
        select(&q, entries).map(|v| reply_entries(out, &v, q.with_scores, resp3_pairs))
    })?;
    match found {
        Some(result) => result,
        None => {
            // A missing key still checks its range arguments.
            select(&q, &[])?;
            out.array(0);
            Ok(())
        }
    }
}
