//! [`Subscriptions`]: what one connection is subscribed to, kept in step
//! with the [`Hub`]'s tables.

use std::collections::HashSet;
use std::sync::Arc;

use strata_service::ClientInfo;

use super::{Hub, Kind, Mailbox};

/// One connection's channels, patterns and shard channels, and its mailbox.
#[derive(Debug)]
pub struct Subscriptions {
    mailbox: Arc<Mailbox>,
    channels: HashSet<Box<[u8]>>,
    patterns: HashSet<Box<[u8]>>,
    shard_channels: HashSet<Box<[u8]>>,
    /// Approximate bytes the three sets hold (see [`ENTRY_OVERHEAD`]).
    bytes: usize,
}

/// Bytes one subscription costs besides its name: the set's slot and the
/// name's allocation here, and the hub's entry for it.
pub const ENTRY_OVERHEAD: usize = 64;

impl Subscriptions {
    /// None yet, for `client`.
    pub fn new(client: Arc<ClientInfo>) -> Self {
        Self {
            mailbox: Arc::new(Mailbox::new(client)),
            channels: HashSet::new(),
            patterns: HashSet::new(),
            shard_channels: HashSet::new(),
            bytes: 0,
        }
    }

    /// Approximate bytes the subscriptions hold (client memory).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Where this connection's messages wait.
    pub fn mailbox(&self) -> &Arc<Mailbox> {
        &self.mailbox
    }

    fn set(&mut self, kind: Kind) -> &mut HashSet<Box<[u8]>> {
        match kind {
            Kind::Channel => &mut self.channels,
            Kind::Pattern => &mut self.patterns,
            Kind::Shard => &mut self.shard_channels,
        }
    }

    /// True while subscribed to anything (RESP2's subscribed mode).
    pub fn active(&self) -> bool {
        !(self.channels.is_empty() && self.patterns.is_empty() && self.shard_channels.is_empty())
    }

    /// The count subscribe replies report: channels plus patterns, or
    /// shard channels for the shard kind (as Redis counts them).
    pub fn count(&self, kind: Kind) -> usize {
        match kind {
            Kind::Shard => self.shard_channels.len(),
            _ => self.channels.len() + self.patterns.len(),
        }
    }

    /// Channels plus patterns plus shard channels (`CLIENT LIST`'s
    /// `sub`/`psub`/`ssub` sum).
    pub fn counts(&self) -> (usize, usize, usize) {
        (
            self.channels.len(),
            self.patterns.len(),
            self.shard_channels.len(),
        )
    }

    /// Subscribes to `name`; false if already subscribed.
    pub fn subscribe(&mut self, hub: &Hub, kind: Kind, name: &[u8]) -> bool {
        if !self.set(kind).insert(name.into()) {
            return false;
        }
        self.bytes += name.len() + ENTRY_OVERHEAD;
        hub.add(kind, name, &self.mailbox);
        true
    }

    /// Unsubscribes from `name`; false if not subscribed.
    pub fn unsubscribe(&mut self, hub: &Hub, kind: Kind, name: &[u8]) -> bool {
        if !self.set(kind).remove(name) {
            return false;
        }
        self.bytes -= name.len() + ENTRY_OVERHEAD;
        hub.remove(kind, name, self.mailbox.id());
        true
    }

    /// The names of `kind` subscribed to, in no particular order.
    pub fn names(&self, kind: Kind) -> Vec<Box<[u8]>> {
        match kind {
            Kind::Channel => self.channels.iter().cloned().collect(),
            Kind::Pattern => self.patterns.iter().cloned().collect(),
            Kind::Shard => self.shard_channels.iter().cloned().collect(),
        }
    }

    /// Drops every subscription (`RESET`, connection close).
    pub fn clear(&mut self, hub: &Hub) {
        let id = self.mailbox.id();
        for kind in [Kind::Channel, Kind::Pattern, Kind::Shard] {
            for name in std::mem::take(self.set(kind)) {
                hub.remove(kind, &name, id);
            }
        }
        self.bytes = 0;
    }
}
