//! `SISMEMBER key member`, `SMISMEMBER key member [member ...]`.

use strata_kv::{Store, ValueKind};

use super::Members;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
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

/// Whether each member is in the set.
pub fn sismember<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let answers: Vec<bool> = read(ctx.store, args.get(1), ValueKind::Set, |set| {
        let members = Members::new(set);
        args.iter_from(2).map(|m| members.contains(m)).collect()
    })?
    .unwrap_or_else(|| vec![false; args.len() - 2]);
    if form == Form::Many {
        out.array(answers.len());
    }
    for a in answers {
        out.integer(i64::from(a));
    }
    Ok(())
}
