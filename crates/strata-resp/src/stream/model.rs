//! [`Stream`]: a stream as its commands see it, decoded: the entries in
//! identifier order, the counters Redis keeps beside them, and the
//! consumer groups with their pending entries.
//!
//! Invariants: entries are sorted by identifier, all at or below
//! `last_id`; `entries_added` counts every entry ever added; each pending
//! entry names a consumer of its group. Entries are grouped into runs of at
//! most [`NODE_ENTRIES`] as Redis groups them into listpack nodes
//! (`Entry::node_start` marks each run's first entry), so an approximate
//! trim (`~`) removes whole runs as Redis's does.

use std::collections::BTreeMap;

use super::id::StreamId;

/// Entries per node: Redis's default `stream-node-max-entries`.
pub const NODE_ENTRIES: u32 = 100;

/// One entry: its identifier and fields and values alternating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The identifier.
    pub id: StreamId,
    /// Field, value, field, value, ...
    pub fields: Vec<Vec<u8>>,
    /// The first entry of its node.
    pub node_start: bool,
}

/// An entry delivered to a consumer and not yet acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The consumer that holds it.
    pub consumer: Vec<u8>,
    /// When it was last delivered (Unix ms).
    pub delivery_time: u64,
    /// How many times it was delivered.
    pub delivery_count: u64,
}

/// A consumer of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consumer {
    /// Its name.
    pub name: Vec<u8>,
    /// Its last attempted interaction (Unix ms).
    pub seen_time: u64,
    /// Its last successful interaction (Unix ms); `None` before any.
    pub active_time: Option<u64>,
}

/// A consumer group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Its name.
    pub name: Vec<u8>,
    /// The last entry delivered to it.
    pub last_id: StreamId,
    /// Its logical read counter; `None` when it cannot be known (Redis's
    /// `SCG_INVALID_ENTRIES_READ`).
    pub entries_read: Option<u64>,
    /// Delivered, unacknowledged entries.
    pub pel: BTreeMap<StreamId, Pending>,
    /// Consumers in name order (as Redis's radix tree lists them).
    pub consumers: Vec<Consumer>,
}

impl Group {
    /// A new group.
    pub fn new(name: &[u8], last_id: StreamId, entries_read: Option<u64>) -> Group {
        Group {
            name: name.to_vec(),
            last_id,
            entries_read,
            pel: BTreeMap::new(),
            consumers: Vec::new(),
        }
    }

    /// The consumer named `name`.
    pub fn consumer(&self, name: &[u8]) -> Option<&Consumer> {
        let at = self.consumers.binary_search_by(|c| c.name[..].cmp(name));
        at.ok().map(|i| &self.consumers[i])
    }

    /// The consumer named `name`, created (seen now) if missing; the flag
    /// tells whether it was created.
    pub fn consumer_or_create(&mut self, name: &[u8], now: u64) -> (&mut Consumer, bool) {
        match self.consumers.binary_search_by(|c| c.name[..].cmp(name)) {
            Ok(i) => (&mut self.consumers[i], false),
            Err(i) => {
                let consumer = Consumer {
                    name: name.to_vec(),
                    seen_time: now,
                    active_time: None,
                };
                self.consumers.insert(i, consumer);
                (&mut self.consumers[i], true)
            }
        }
    }

    /// Pending entries held by `consumer`.
    pub fn pending_of<'a>(
        &'a self,
        consumer: &'a [u8],
    ) -> impl Iterator<Item = (&'a StreamId, &'a Pending)> + 'a {
        self.pel.iter().filter(move |(_, p)| p.consumer == consumer)
    }
}

/// A stream, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stream {
    /// The largest identifier ever added (or set by `XSETID`).
    pub last_id: StreamId,
    /// The largest identifier deleted by `XDEL`.
    pub max_deleted: StreamId,
    /// Entries ever added.
    pub entries_added: u64,
    /// Entries appended to the last node (deleted ones included).
    pub tail_used: u32,
    /// Live entries in identifier order.
    pub entries: Vec<Entry>,
    /// Consumer groups in name order (as Redis's radix tree lists them).
    pub groups: Vec<Group>,
}

impl Stream {
    /// Live entries.
    pub fn len(&self) -> u64 {
        self.entries.len() as u64
    }

    /// True without live entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first live entry's identifier; `0-0` when empty (Redis's
    /// `first_id`).
    pub fn first_id(&self) -> StreamId {
        self.entries.first().map_or(StreamId::MIN, |e| e.id)
    }

    /// Position of the first entry at or after `id`.
    pub fn position(&self, id: StreamId) -> usize {
        self.entries.partition_point(|e| e.id < id)
    }

    /// The entry `id`.
    pub fn entry(&self, id: StreamId) -> Option<&Entry> {
        let at = self.position(id);
        self.entries.get(at).filter(|e| e.id == id)
    }

    /// Entries with identifiers in `start..=end`.
    pub fn range(&self, start: StreamId, end: StreamId) -> &[Entry] {
        if start > end {
            return &[];
        }
        let from = self.position(start);
        let to = self.entries.partition_point(|e| e.id <= end);
        &self.entries[from..to.max(from)]
    }

    /// The group named `name`.
    pub fn group(&self, name: &[u8]) -> Option<&Group> {
        let at = self.groups.binary_search_by(|g| g.name[..].cmp(name));
        at.ok().map(|i| &self.groups[i])
    }

    /// The group named `name`, to change.
    pub fn group_mut(&mut self, name: &[u8]) -> Option<&mut Group> {
        let at = self.groups.binary_search_by(|g| g.name[..].cmp(name));
        at.ok().map(|i| &mut self.groups[i])
    }

    /// Adds `group` in name order; false (nothing added) when one of that
    /// name exists.
    pub fn add_group(&mut self, group: Group) -> bool {
        match self.groups.binary_search_by(|g| g.name.cmp(&group.name)) {
            Ok(_) => false,
            Err(i) => {
                self.groups.insert(i, group);
                true
            }
        }
    }

    /// Removes the group named `name`; whether it was there.
    pub fn remove_group(&mut self, name: &[u8]) -> bool {
        match self.groups.binary_search_by(|g| g.name[..].cmp(name)) {
            Ok(i) => {
                self.groups.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// Appends an entry (`id` above `last_id`, checked by the caller).
    pub fn append(&mut self, id: StreamId, fields: Vec<Vec<u8>>) {
        let node_start = self.entries.is_empty() || self.tail_used >= NODE_ENTRIES;
        self.tail_used = if node_start { 1 } else { self.tail_used + 1 };
        self.entries.push(Entry {
            id,
            fields,
            node_start,
        });
        self.last_id = id;
        self.entries_added += 1;
    }

    /// Deletes entry `id`; whether it was there. The next entry of its node
    /// starts the node when it was the first.
    pub fn delete(&mut self, id: StreamId) -> bool {
        let at = self.position(id);
        if self.entries.get(at).is_none_or(|e| e.id != id) {
            return false;
        }
        let removed = self.entries.remove(at);
        if removed.node_start {
            match self.entries.get_mut(at) {
                Some(next) => next.node_start = true,
                // The last node emptied: Redis frees it, and the next entry
                // opens a node of its own.
                None => self.tail_used = NODE_ENTRIES,
            }
        }
        if self.entries.is_empty() {
            self.tail_used = 0;
        }
        if id > self.max_deleted {
            self.max_deleted = id;
        }
        true
    }

    /// The entries-read counter of an entry `id` as Redis estimates it
    /// (`streamEstimateDistanceFromFirstEverEntry`); `None` when unknown.
    pub fn estimate_read(&self, id: StreamId) -> Option<u64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if self.is_empty() && id <= self.last_id {
            return Some(self.entries_added);
        }
        if id == self.last_id {
            return Some(self.entries_added);
        }
        if id > self.last_id {
            return None;
        }
        let first = self.first_id();
        if self.max_deleted.is_zero() || self.max_deleted < first {
            if id < first {
                return Some(self.entries_added - self.len());
            }
            if id == first {
                return Some(self.entries_added - self.len() + 1);
            }
        }
        None
    }

    /// Whether an `XDEL` left a gap between `start` and `end` (Redis's
    /// `streamRangeHasTombstones`).
    pub fn has_tombstones(&self, start: StreamId, end: StreamId) -> bool {
        if self.is_empty() || self.max_deleted.is_zero() || self.first_id() > self.max_deleted {
            return false;
        }
        start <= self.max_deleted && self.max_deleted <= end
    }

    /// A group's lag: entries not yet read by it, when it can be known
    /// (negative when `ENTRIESREAD` claimed more than was added, as in
    /// Redis).
    pub fn lag(&self, group: &Group) -> Option<i64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        let lag = |read: u64| (self.entries_added as i64).wrapping_sub(read as i64);
        if let Some(read) = group.entries_read {
            if !self.has_tombstones(group.last_id, StreamId::MAX) {
                return Some(lag(read));
            }
        }
        // Redis estimates the counter of the group's last entry afresh.
        self.estimate_read(group.last_id).map(lag)
    }
}
