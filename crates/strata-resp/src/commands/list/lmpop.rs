//! `LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]` and its blocking
//! form `BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]`:
//! up to `count` elements from the first non-empty list, replied as
//! `[key, [element ...]]`, or a null array when every list is empty (after
//! `BLMPOP`'s timeout).

use strata_kv::Store;

use super::pop::pop_from;
use super::End;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::blocking_pop::{pop_first_or_null, MPop};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Whether the command may wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `LMPOP`.
    Now,
    /// `BLMPOP`, its timeout first.
    Blocking,
}

/// Pops from the first list among the keys that has elements.
pub fn lmpop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let at = if form == Form::Blocking { 2 } else { 1 };
    let request = MPop::parse(&args, at, End::parse)?;
    let (end, count) = (request.side, request.count);
    let pop = |ctx: &mut Ctx<'_, S>, key: &[u8]| -> Result<_, RespError> {
        let popped = pop_from(ctx, key, end, count)?;
        Ok(popped.filter(|p| !p.is_empty()))
    };
    let reply = |out: &mut ReplyWriter<'_>, key: &[u8], popped: Vec<Vec<u8>>| {
        out.array(2);
        out.bulk(key);
        out.array(popped.len());
        for element in &popped {
            out.bulk(element);
        }
    };
    let timeout = (form == Form::Blocking).then(|| args.get(1));
    pop_first_or_null(ctx, &request.keys, timeout, out, pop, reply)
}
