//! `SMOVE source destination member`.

use strata_kv::{Store, ValueKind};

use super::members::contains_each;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::commands::hashed::edit;
use crate::encodings::PackedLimits;
use crate::notify::{self, fire};
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
    let (source, destination) = (task.source, task.destination);
    let moved = atomically(ctx, &[source, destination], task)?;
    let events = moved.events.filter(|_| notify::any(ctx));
    if let Some(Moved {
        emptied,
        created,
        added,
    }) = events
    {
        fire(ctx, notify::SET, "srem", source);
        if emptied {
            fire(ctx, notify::GENERIC, "del", source);
        }
        if created {
            fire(ctx, notify::NEW, "new", destination);
        }
        if added {
            fire(ctx, notify::SET, "sadd", destination);
        }
    }
    out.integer(i64::from(moved.reply));
    Ok(())
}

/// SMOVE's reply and, when it moved the member, what Redis announces.
#[derive(Default)]
struct Outcome {
    reply: bool,
    events: Option<Moved>,
}

/// `srem` (and `del` if `emptied`) on the source, `new` if `created`
/// and `sadd` if `added` on the destination.
struct Moved {
    emptied: bool,
    created: bool,
    added: bool,
}

struct Move<'a> {
    source: &'a [u8],
    destination: &'a [u8],
    member: &'a [u8],
    limits: PackedLimits,
}

impl Atomic for Move<'_> {
    type Output = Result<Outcome, RespError>;

    /// As Redis: a missing source answers 0 whatever the destination is;
    /// otherwise both must be sets before anything changes.
    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let Some(kind) = store.kind(self.source) else {
            return Ok(Outcome::default());
        };
        let not_set = |k: Option<ValueKind>| k.is_some_and(|k| k != ValueKind::Set);
        if not_set(Some(kind)) || not_set(store.kind(self.destination)) {
            return Err(RespError::WrongType);
        }
        if self.source == self.destination {
            let found = contains_each(store, self.source, std::iter::once(self.member))?;
            let reply = found.first().copied().unwrap_or(false);
            return Ok(Outcome {
                reply,
                events: None,
            });
        }
        let limits = self.limits;
        let (removed, emptied) = edit(store, self.source, ValueKind::Set, limits, |set| {
            Ok((set.remove(self.member)?, set.is_empty()))
        })?;
        if !removed {
            return Ok(Outcome::default());
        }
        let (created, added) = edit(store, self.destination, ValueKind::Set, limits, |set| {
            Ok((set.is_empty(), set.put(self.member, b"")?))
        })?;
        Ok(Outcome {
            reply: true,
            events: Some(Moved {
                emptied,
                created,
                added,
            }),
        })
    }
}
