//! `SMOVE source destination member`.

use strata_kv::{Store, ValueKind};

use super::members::contains_each;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::commands::hashed::edit;
use crate::encodings::PackedLimits;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Moves the member atomically (both keys' shards held, one journal
/// record): 1 if it was in the source, else 0.
pub fn smove<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let task = Move {
        source: args.get(1),
        destination: args.get(2),
        member: args.get(3),
        limits: ctx.shared.encodings.set_limits(),
    };
    let moved = atomically(ctx, &[task.source, task.destination], task)?;
    out.integer(i64::from(moved));
    Ok(())
}

struct Move<'a> {
    source: &'a [u8],
    destination: &'a [u8],
    member: &'a [u8],
    limits: PackedLimits,
}

impl Atomic for Move<'_> {
    type Output = Result<bool, RespError>;

    /// As Redis: a missing source answers 0 whatever the destination is;
    /// otherwise both must be sets before anything changes.
    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let Some(kind) = store.kind(self.source) else {
            return Ok(false);
        };
        let not_set = |k: Option<ValueKind>| k.is_some_and(|k| k != ValueKind::Set);
        if not_set(Some(kind)) || not_set(store.kind(self.destination)) {
            return Err(RespError::WrongType);
        }
        if self.source == self.destination {
            let found = contains_each(store, self.source, std::iter::once(self.member))?;
            return Ok(found.first().copied().unwrap_or(false));
        }
        let limits = self.limits;
        let removed = edit(store, self.source, ValueKind::Set, limits, |set| {
            set.remove(self.member)
        })?;
        if removed {
            edit(store, self.destination, ValueKind::Set, limits, |set| {
                set.put(self.member, b"")
            })?;
        }
        Ok(removed)
    }
}
