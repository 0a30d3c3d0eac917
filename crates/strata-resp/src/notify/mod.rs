//! Keyspace notifications (Redis's `notify-keyspace-events`): events about
//! keys published through the pub/sub hub to `__keyspace@0__:<key>`
//! (message: the event) and `__keyevent@0__:<event>` (message: the key),
//! with Redis 7's event names, classes and order. Off by default.
//!
//! - `flags.rs`: the classes, parsing and showing the setting.
//! - `notifier.rs`: the setting as the server holds it, publishing, and
//!   the engine observer that publishes `expired` and `evicted`.
//! - `fire.rs`: what commands call, next to the change they announce.
//! - `tests.rs`: publishing per setting, and the engine observer.
//!
//! The memcached port shares the keyspace but announces nothing of its
//! own writes (Redis has no such port, and its clients never asked):
//! only `expired` and `evicted`, which the engine reports whatever wrote
//! the key, reach subscribers for keys it wrote. `keymiss` (`m`) and
//! module events (`d`) are accepted in the setting but never sent.

mod fire;
pub mod flags;
mod notifier;

pub use fire::{any, fire, fire_created, fire_created_in, fire_removed, fire_stored, wanted};
pub use flags::{
    ALL, EVICTED, EXPIRED, GENERIC, HASH, KEYEVENT, KEYSPACE, KEY_MISS, LIST, MODULE, NEW, SET,
    STREAM, STRING, ZSET,
};
pub use notifier::{publish, Notifier};

#[cfg(test)]
mod tests;
