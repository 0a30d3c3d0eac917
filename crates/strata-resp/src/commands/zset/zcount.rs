//! `ZCARD key`, `ZCOUNT key min max`, `ZLEXCOUNT key min max`.

use strata_kv::Store;

use super::bounds::{LexRange, ScoreRange};
use super::stored::read;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The number of members (0 for a missing key).
pub fn zcard<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let n = read(ctx.store, args.get(1), |z| Ok(z.len()))?;
    out.integer(n.unwrap_or(0) as i64);
    Ok(())
}

/// How the range is given.
#[derive(Debug, Clone, Copy)]
pub enum By {
    /// Scores (ZCOUNT).
    Score,
    /// Members (ZLEXCOUNT).
    Lex,
}

/// The number of members in the range: two rank searches.
pub fn zcount<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    by: By,
) -> Result<(), RespError> {
    let (a, b) = (args.get(2), args.get(3));
    let n = match by {
        By::Score => {
            let r = ScoreRange::parse(a, b)?;
            read(ctx.store, args.get(1), |z| {
                let span = r.span(z)?;
                Ok(span.end - span.start)
            })?
        }
        By::Lex => {
            let r = LexRange::parse(a, b)?;
            read(ctx.store, args.get(1), |z| {
                let span = r.span(z)?;
                Ok(span.end - span.start)
            })?
        }
    };
    out.integer(n.unwrap_or(0) as i64);
    Ok(())
}
