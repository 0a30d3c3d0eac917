//! `INCR`, `DECR`, `INCRBY`, `DECRBY`: 64-bit signed arithmetic on decimal
//! string values, keeping the key's flags and expiry.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::notify::{self, fire_created};
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Where the increment comes from.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// A fixed step (INCR: 1, DECR: -1).
    By(i64),
    /// The third argument (INCRBY).
    Arg,
    /// The third argument, negated (DECRBY).
    NegatedArg,
}

/// Adds the step to the stored integer (missing counts as 0); replies the
/// new value.
pub fn incr<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    step: Step,
) -> Result<(), RespError> {
    let by = match step {
        Step::By(n) => n,
        Step::Arg => parse_i64(args.get(2)).ok_or(RespError::NotInteger)?,
        Step::NegatedArg => {
            let n = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
            n.checked_neg().ok_or(RespError::DecrementOverflow)?
        }
    };
    let result = ctx.store.update(args.get(1), |old| {
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        let (current, flags, expires_at) = match old {
            None => (0, 0, None),
            Some(item) => match parse_i64(item.value) {
                Some(n) => (n, item.flags, item.expires_at),
                None => return (Mutation::Keep, Err(RespError::NotInteger)),
            },
        };
        let Some(next) = current.checked_add(by) else {
            return (Mutation::Keep, Err(RespError::Overflow));
        };
        let mut text = itoa::Buffer::new();
        let value = Cow::Owned(text.format(next).as_bytes().to_vec());
        (
            Mutation::Put(NewItem {
                value,
                flags,
                expires_at,
            }),
            Ok((next, old.is_none())),
        )
    })?;
    let (next, created) = result?;
    fire_created(ctx, created, notify::STRING, "incrby", args.get(1));
    out.integer(next);
    Ok(())
}
