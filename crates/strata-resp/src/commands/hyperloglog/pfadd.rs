//! `PFADD key [element ...]`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use super::value::hll_of;
use crate::args::Args;
use crate::command::Ctx;
use crate::hll::Hll;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Adds the elements, creating the key if missing (even with none); 1 when
/// a register changed or the key was created, else 0. The expiry is kept.
pub fn pfadd<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let updated = ctx.store.update(args.get(1), |old| {
        let (mut hll, mut changed, flags, expires_at) = match old {
            None => (Hll::new(), true, 0, None),
            Some(item) => match hll_of(item) {
                Ok(hll) => (hll, false, item.flags, item.expires_at),
                Err(err) => return (Mutation::Keep, Err(err)),
            },
        };
        for element in args.iter_from(2) {
            match hll.add(element) {
                Ok(set) => changed |= set,
                Err(corrupt) => return (Mutation::Keep, Err(corrupt.into())),
            }
        }
        if !changed {
            return (Mutation::Keep, Ok(None));
        }
        hll.invalidate_cache();
        let item = NewItem {
            value: Cow::Owned(hll.into_bytes()),
            flags,
            expires_at,
        };
        (Mutation::Put(item), Ok(Some(old.is_none())))
    })?;
    let updated = updated?;
    if let Some(created) = updated {
        fire_created(ctx, created, notify::STRING, "pfadd", args.get(1));
    }
    out.integer(i64::from(updated.is_some()));
    Ok(())
}
