//! [`Hub`]: every channel, pattern and shard-channel subscriber of the
//! server, and [`Kind`], which of the three a subscription is.

use super::mailbox::{Mailbox, OutputLimit};
use crate::glob;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The three namespaces of subscriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `SUBSCRIBE`: exact channel names.
    Channel,
    /// `PSUBSCRIBE`: glob patterns over channel names.
    Pattern,
    /// `SSUBSCRIBE`: shard channels (`SPUBLISH`), apart from the others.
    Shard,
}

impl Kind {
    /// The reply's first element for subscribing and unsubscribing.
    pub fn verbs(self) -> (&'static str, &'static str) {
        match self {
            Kind::Channel => ("subscribe", "unsubscribe"),
            Kind::Pattern => ("psubscribe", "punsubscribe"),
            Kind::Shard => ("ssubscribe", "sunsubscribe"),
        }
    }
}

type Subscribers = HashMap<Box<[u8]>, HashMap<u64, Arc<Mailbox>>>;

/// Every subscription of the front end, by name, then by client id.
#[derive(Debug, Default)]
pub struct Hub {
    channels: RwLock<Subscribers>,
    patterns: RwLock<Subscribers>,
    shard_channels: RwLock<Subscribers>,
    /// The `pubsub` class of `client-output-buffer-limit`.
    pub limit: OutputLimit,
    /// Subscribers disconnected for passing the limit
    /// (`client_output_buffer_limit_disconnections`).
    pub disconnections: AtomicU64,
}

impl Hub {
    fn table(&self, kind: Kind) -> &RwLock<Subscribers> {
        match kind {
            Kind::Channel => &self.channels,
            Kind::Pattern => &self.patterns,
            Kind::Shard => &self.shard_channels,
        }
    }

    pub(crate) fn add(&self, kind: Kind, name: &[u8], mailbox: &Arc<Mailbox>) {
        self.table(kind)
            .write()
            .entry(name.into())
            .or_default()
            .insert(mailbox.id(), mailbox.clone());
    }

    pub(crate) fn remove(&self, kind: Kind, name: &[u8], id: u64) {
        let mut table = self.table(kind).write();
        if let Some(subscribers) = table.get_mut(name) {
            subscribers.remove(&id);
            if subscribers.is_empty() {
                table.remove(name);
            }
        }
    }

    /// Delivers `message` to the subscribers of `channel` and of every
    /// pattern matching it (for [`Kind::Shard`], of the shard channel
    /// only); returns how many received it.
    pub fn publish(&self, kind: Kind, channel: &[u8], message: &[u8]) -> i64 {
        let mut receivers = 0;
        let mut deliver = |mailbox: &Mailbox, parts: &[&[u8]]| {
            if mailbox.deliver(parts, &self.limit) {
                receivers += 1;
            } else if mailbox.just_closed() {
                self.disconnections.fetch_add(1, Ordering::Relaxed);
            }
        };
        let verb: &[u8] = match kind {
            Kind::Shard => b"smessage",
            _ => b"message",
        };
        let table = match kind {
            Kind::Shard => &self.shard_channels,
            _ => &self.channels,
        };
        if let Some(subscribers) = table.read().get(channel) {
            for mailbox in subscribers.values() {
                deliver(mailbox, &[verb, channel, message]);
            }
        }
        if kind != Kind::Shard {
            for (pattern, subscribers) in self.patterns.read().iter() {
                if glob::matches(pattern, channel) {
                    for mailbox in subscribers.values() {
                        deliver(mailbox, &[b"pmessage", pattern, channel, message]);
                    }
                }
            }
        }
        receivers
    }

    /// Names with at least one subscriber matching `pattern` (all when
    /// `None`): `PUBSUB CHANNELS` and `SHARDCHANNELS`.
    pub fn active(&self, kind: Kind, pattern: Option<&[u8]>) -> Vec<Box<[u8]>> {
        self.table(kind)
            .read()
            .keys()
            .filter(|name| pattern.is_none_or(|p| glob::matches(p, name)))
            .cloned()
            .collect()
    }

    /// Subscribers of the exact name `name` (`PUBSUB NUMSUB`).
    pub fn count(&self, kind: Kind, name: &[u8]) -> usize {
        self.table(kind).read().get(name).map_or(0, HashMap::len)
    }

    /// Distinct patterns subscribed to (`PUBSUB NUMPAT`).
    pub fn patterns(&self) -> usize {
        self.patterns.read().len()
    }
}
