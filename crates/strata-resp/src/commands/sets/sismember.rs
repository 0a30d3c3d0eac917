//! `SISMEMBER key member`, `SMISMEMBER key member [member ...]`.

use strata_kv::Store;

use super::members::contains_each;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// One member or many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// SISMEMBER: 1 or 0.
    One,
    /// SMISMEMBER: an array of 1 or 0.
    Many,
}

/// Whether each member is in the set (a large set: one bucket read each).
pub fn sismember<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let candidates = (2..args.len()).map(|i| args.get(i));
    let answers = contains_each(ctx.store, args.get(1), candidates)?;
    if form == Form::Many {
        out.array(answers.len());
    }
    for a in answers {
        out.integer(i64::from(a));
    }
    Ok(())
}
