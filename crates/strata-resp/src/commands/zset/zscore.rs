//! `ZSCORE key member`, `ZMSCORE key member [member ...]`.

use strata_kv::Store;

use super::stored::read;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// One member or many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// ZSCORE: the score or null.
    One,
    /// ZMSCORE: an array of scores or nulls.
    Many,
}

/// The score of each member.
pub fn zscore<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let scores: Vec<Option<f64>> = read(ctx.store, args.get(1), |z| {
        args.iter_from(2).map(|m| z.score(m)).collect()
    })?
    .unwrap_or_else(|| vec![None; args.len() - 2]);
    if form == Form::Many {
        out.array(scores.len());
    }
    for s in scores {
        match s {
            Some(s) => out.double(s),
            None => out.null(),
        }
    }
    Ok(())
}
