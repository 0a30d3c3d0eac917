//! [`fire`]: what a command calls next to the change it announces. With
//! notifications off it costs one relaxed load; the channel names are
//! built only for a class that is on.

use super::flags::{GENERIC, NEW};
use super::notifier::publish;
use crate::command::Ctx;
use crate::shared::Shared;

/// Announces `event` (of `class`, a [`flags`](super::flags) bit) about
/// `key`.
#[inline]
pub fn fire<S>(ctx: &Ctx<'_, S>, class: u32, event: &str, key: &[u8]) {
    let flags = ctx.shared.notify.flags();
    if flags & class != 0 {
        publish(&ctx.shared.pubsub, flags, class, event, key);
    }
}

/// Announces `new` when `created` (the key was added to the database),
/// then `event`: the two Redis sends when a command creates a key (one
/// load of the setting for both).
#[inline]
pub fn fire_created<S>(ctx: &Ctx<'_, S>, created: bool, class: u32, event: &str, key: &[u8]) {
    fire_created_in(ctx.shared, created, class, event, key);
}

/// [`fire_created`] for a change made outside a command (an element
/// given back to its list by a connection that closed).
#[inline]
pub fn fire_created_in(shared: &Shared, created: bool, class: u32, event: &str, key: &[u8]) {
    let flags = shared.notify.flags();
    if flags & (class | NEW) != 0 {
        if created {
            publish(&shared.pubsub, flags, NEW, "new", key);
        }
        publish(&shared.pubsub, flags, class, event, key);
    }
}

/// `event` (of `class`) about `key`, then `del` when that `emptied` it
/// (a pop or removal of its last element), as Redis sends them; one load
/// of the setting.
#[inline]
pub fn fire_removed<S>(ctx: &Ctx<'_, S>, class: u32, event: &str, key: &[u8], emptied: bool) {
    let flags = ctx.shared.notify.flags();
    if flags & (class | GENERIC) != 0 {
        publish(&ctx.shared.pubsub, flags, class, event, key);
        if emptied {
            publish(&ctx.shared.pubsub, flags, GENERIC, "del", key);
        }
    }
}

/// The events of a `STORE` form: `new` (when `key` was not there) and
/// `event` when a result was stored, `del` when an empty result removed
/// an existing `key`, nothing when it removed nothing.
#[inline]
pub fn fire_stored<S>(
    ctx: &Ctx<'_, S>,
    existed: bool,
    stored: bool,
    (class, event): (u32, &str),
    key: &[u8],
) {
    match (stored, existed) {
        (true, _) => fire_created(ctx, !existed, class, event, key),
        (false, true) => fire(ctx, GENERIC, "del", key),
        (false, false) => {}
    }
}

/// True when any event is on: a command that announces several events
/// checks it first, so that with notifications off it pays one load.
#[inline]
pub fn any<S>(ctx: &Ctx<'_, S>) -> bool {
    ctx.shared.notify.flags() != 0
}

/// True when events of `class` are on: for a command that would have to
/// do more work (read what it otherwise writes blind) to announce them.
#[inline]
pub fn wanted<S>(ctx: &Ctx<'_, S>, class: u32) -> bool {
    ctx.shared.notify.flags() & class != 0
}
