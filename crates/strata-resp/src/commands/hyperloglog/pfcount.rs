//! `PFCOUNT key [key ...]`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use super::value::hll_of;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::hll::{count_registers, REGISTERS};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The union's cardinality over several keys, their shards held.
struct Union<'a> {
    keys: Vec<&'a [u8]>,
}

impl Atomic for Union<'_> {
    type Output = Result<u64, RespError>;

    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let mut max = [0u8; REGISTERS];
        for key in self.keys {
            let merged = store.get(key, |item| -> Result<(), RespError> {
                hll_of(item)?.merge_into(&mut max)?;
                Ok(())
            });
            merged.transpose()?;
        }
        Ok(count_registers(&max))
    }
}

/// One key: its cardinality, from the value's cache or computed and
/// cached in the value (a change to the key, as in Redis); 0 when missing.
/// Several: the cardinality of their union, nothing cached.
pub fn pfcount<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if args.len() > 2 {
        let keys: Vec<&[u8]> = args.iter_from(1).collect();
        let held = keys.clone();
        let count = atomically(ctx, &held, Union { keys })?;
        out.integer(count as i64);
        return Ok(());
    }
    let count = ctx.store.update(args.get(1), |old| {
        let Some(item) = old else {
            return (Mutation::Keep, Ok(0));
        };
        let mut hll = match hll_of(item) {
            Ok(hll) => hll,
            Err(err) => return (Mutation::Keep, Err(err)),
        };
        if let Some(card) = hll.cached() {
            return (Mutation::Keep, Ok(card));
        }
        let card = match hll.count_and_cache() {
            Ok(card) => card,
            Err(corrupt) => return (Mutation::Keep, Err(corrupt.into())),
        };
        let (flags, expires_at) = (item.flags, item.expires_at);
        let item = NewItem {
            value: Cow::Owned(hll.into_bytes()),
            flags,
            expires_at,
        };
        (Mutation::Put(item), Ok(card))
    })?;
    out.integer(count? as i64);
    Ok(())
}
