//! `SPOP key [count]`, `SRANDMEMBER key [count]`.

use strata_kv::{Store, ValueKind};

use super::members::random;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Removing or only reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// SPOP: removes what it returns (a count must not be negative).
    Pop,
    /// SRANDMEMBER: a negative count may repeat members.
    Random,
}

/// Random members: one (bulk or null) without a count, else an array. A
/// large set reads (and SPOP rewrites) one random bucket per member picked.
pub fn spop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let count = match args.len() {
        2 => None,
        3 => Some(parse_i64(args.get(2)).ok_or(RespError::NotInteger)?),
        _ => return Err(RespError::Syntax),
    };
    if form == Form::Pop && count.is_some_and(|c| c < 0) {
        return Err(CollectionError::MustBePositive.into());
    }
    if count == Some(i64::MIN) {
        return Err(CollectionError::CountOutOfRange.into());
    }
    let key = args.get(1);
    let picked = match form {
        Form::Random => random(ctx.store, key, count.unwrap_or(1))?,
        Form::Pop => {
            let limits = ctx.shared.encodings.set_limits();
            let want = count.map_or(1, |c| c.unsigned_abs());
            let (popped, emptied) = edit(ctx.store, key, ValueKind::Set, limits, |set| {
                Ok((set.pop_random(want)?, set.is_empty()))
            })?;
            if !popped.is_empty() {
                notify::fire_removed(ctx, notify::SET, "spop", key, emptied);
            }
            popped
        }
    };
    match (count, picked.first()) {
        (None, Some(one)) => out.bulk(one),
        (None, None) => out.null(),
        (Some(_), _) => {
            out.array(picked.len());
            for m in &picked {
                out.bulk(m);
            }
        }
    }
    Ok(())
}
