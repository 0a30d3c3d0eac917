//! `ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]` and its blocking
//! form `BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]`: up
//! to `count` members from the first non-empty sorted set, replied as
//! `[key, [[member, score] ...]]`, or a null array when every set is empty
//! (after `BZMPOP`'s timeout).

use strata_kv::Store;

use super::view::Owned;
use super::zpop::{pop_from, Side};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::blocking_pop::{pop_first_or_null, MPop};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Whether the command may wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `ZMPOP`.
    Now,
    /// `BZMPOP`, its timeout first.
    Blocking,
}

fn side(word: &[u8]) -> Result<Side, RespError> {
    if word.eq_ignore_ascii_case(b"min") {
        Ok(Side::Min)
    } else if word.eq_ignore_ascii_case(b"max") {
        Ok(Side::Max)
    } else {
        Err(RespError::Syntax)
    }
}

/// Pops from the first sorted set among the keys that has members.
pub fn zmpop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let at = if form == Form::Blocking { 2 } else { 1 };
    let request = MPop::parse(&args, at, side)?;
    let (side, count) = (request.side, request.count);
    let pop = |ctx: &mut Ctx<'_, S>, key: &[u8]| pop_from(ctx, key, side, count);
    let reply = |out: &mut ReplyWriter<'_>, key: &[u8], popped: Vec<Owned>| {
        out.array(2);
        out.bulk(key);
        out.array(popped.len());
        for (score, member) in &popped {
            out.array(2);
            out.bulk(member);
            out.double(*score);
        }
    };
    let timeout = (form == Form::Blocking).then(|| args.get(1));
    pop_first_or_null(ctx, &request.keys, timeout, out, pop, reply)
}
