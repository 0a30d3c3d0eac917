//! [`Notifier`]: the `notify-keyspace-events` setting as the server holds
//! it (one atomic word), and the publishing of one event to the pub/sub
//! hub: `__keyspace@0__:<key>` with the event name, then
//! `__keyevent@0__:<event>` with the key, as a `PUBLISH` of each would
//! (patterns included, each subscriber's output bound applies).
//!
//! `expired` and `evicted` happen in the engine: while the setting selects
//! either class, a [`DepartureObserver`] is added to the keyspace that
//! publishes them synchronously (its contract: the hub's mailboxes are
//! bounded, and publishing never touches the keyspace).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_kv::{Departure, DepartureObserver, Keyspace, ObserverId};

use super::flags::{EVICTED, EXPIRED, KEYEVENT, KEYSPACE};
use crate::pubsub::{Hub, Kind};

/// The keyspace notifications setting (Redis's `notify-keyspace-events`).
#[derive(Debug, Default)]
pub struct Notifier {
    flags: Arc<AtomicU32>,
    /// The engine observer added for `expired`/`evicted`, if any (the
    /// lock also serializes changes of the setting).
    observer: Mutex<Option<ObserverId>>,
}

impl Notifier {
    /// The flags now (one relaxed load).
    #[inline]
    pub fn flags(&self) -> u32 {
        self.flags.load(Ordering::Relaxed)
    }

    /// Replaces the flags; sets or removes the engine's departure
    /// observer on `keyspace` as `expired`/`evicted` are wanted.
    pub fn set(&self, flags: u32, keyspace: &Keyspace, hub: &Arc<Hub>) {
        let mut observer = self.observer.lock();
        self.flags.store(flags, Ordering::Relaxed);
        let wanted = flags & (EXPIRED | EVICTED) != 0 && flags & (KEYSPACE | KEYEVENT) != 0;
        match (wanted, *observer) {
            (true, None) => {
                let publisher = Publisher {
                    flags: self.flags.clone(),
                    hub: hub.clone(),
                };
                *observer = Some(keyspace.add_departure_observer(Arc::new(publisher)));
            }
            (false, Some(id)) => {
                keyspace.remove_departure_observer(id);
                *observer = None;
            }
            _ => {}
        }
    }
}

/// Publishes `event` about `key` as `flags` ask, if `class` is on.
pub fn publish(hub: &Hub, flags: u32, class: u32, event: &str, key: &[u8]) {
    if flags & class == 0 {
        return;
    }
    const DB: &[u8] = b"@0__:";
    if flags & KEYSPACE != 0 {
        let mut channel = Vec::with_capacity(16 + key.len());
        channel.extend_from_slice(b"__keyspace");
        channel.extend_from_slice(DB);
        channel.extend_from_slice(key);
        hub.publish(Kind::Channel, &channel, event.as_bytes());
    }
    if flags & KEYEVENT != 0 {
        let mut channel = Vec::with_capacity(16 + event.len());
        channel.extend_from_slice(b"__keyevent");
        channel.extend_from_slice(DB);
        channel.extend_from_slice(event.as_bytes());
        hub.publish(Kind::Channel, &channel, key);
    }
}

/// The engine's departure observer: `expired` and `evicted`.
struct Publisher {
    flags: Arc<AtomicU32>,
    hub: Arc<Hub>,
}

impl DepartureObserver for Publisher {
    fn departed(&self, key: &[u8], why: Departure) {
        let (class, event) = match why {
            Departure::Expired => (EXPIRED, "expired"),
            Departure::Evicted => (EVICTED, "evicted"),
            _ => return,
        };
        publish(
            &self.hub,
            self.flags.load(Ordering::Relaxed),
            class,
            event,
            key,
        );
    }
}
