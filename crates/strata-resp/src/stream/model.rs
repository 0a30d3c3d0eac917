//! [`Stream`]: a stream as its commands see it: the counters Redis keeps
//! (last identifier, largest deleted one, entries ever added), the
//! consumer groups with their pending entries, and the entries themselves
//! in a [`Body`] of nodes, in hand or read on demand (see `body.rs`).
//!
//! Invariants: entries rise, all at or below `last_id`; `entries_added`
//! counts every entry ever added; each pending entry names a consumer of
//! its group; groups and consumers are kept in name order (Redis lists
//! them from radix trees).

use std::collections::BTreeMap;

use super::body::Body;
use super::id::StreamId;
use super::node::Entry;
use super::trim::Trim;
use crate::reply::RespError;

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

/// A stream: counters and groups in hand, entries in a [`Body`] (which
/// may read the stream's chunks from `'s`).
#[derive(Debug)]
pub struct Stream<'s> {
    /// The largest identifier ever added (or set by `XSETID`).
    pub last_id: StreamId,
    /// The largest identifier deleted by `XDEL`.
    pub max_deleted: StreamId,
    /// Entries ever added.
    pub entries_added: u64,
    /// Consumer groups in name order (as Redis's radix tree lists them).
    pub groups: Vec<Group>,
    /// The entries.
    pub body: Body<'s>,
}

impl<'s> Stream<'s> {
    /// A new, empty stream (packed).
    pub fn new() -> Stream<'s> {
        Stream {
            last_id: StreamId::MIN,
            max_deleted: StreamId::MIN,
            entries_added: 0,
            groups: Vec::new(),
            body: Body::packed(Vec::new(), 0),
        }
    }
}

impl Default for Stream<'_> {
    fn default() -> Self {
        Stream::new()
    }
}

impl Stream<'_> {
    /// Live entries.
    pub fn len(&self) -> u64 {
        self.body.len
    }

    /// True without live entries.
    pub fn is_empty(&self) -> bool {
        self.body.len == 0
    }

    /// The first live entry's identifier; `0-0` when empty (Redis's
    /// `first_id`).
    pub fn first_id(&self) -> StreamId {
        self.body.first_id
    }

    /// Entries with identifiers in `start..=end`, at most `limit`, oldest
    /// first (newest first when `reverse`).
    pub fn range(
        &mut self,
        start: StreamId,
        end: StreamId,
        limit: usize,
        reverse: bool,
    ) -> Result<Vec<Entry>, RespError> {
        self.body.range(start, end, limit, reverse)
    }

    /// The entry `id`, if held.
    pub fn entry(&mut self, id: StreamId) -> Result<Option<Entry>, RespError> {
        self.body.entry(id)
    }

    /// The oldest entry.
    pub fn first_entry(&mut self) -> Result<Option<Entry>, RespError> {
        Ok(self.range(StreamId::MIN, StreamId::MAX, 1, false)?.pop())
    }

    /// The newest entry (Redis's `streamLastValidID` is its identifier).
    pub fn last_entry(&mut self) -> Result<Option<Entry>, RespError> {
        Ok(self.range(StreamId::MIN, StreamId::MAX, 1, true)?.pop())
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
    pub fn append(&mut self, id: StreamId, fields: Vec<Vec<u8>>) -> Result<(), RespError> {
        self.body.append(id, fields)?;
        self.last_id = id;
        self.entries_added += 1;
        Ok(())
    }

    /// Trims from the front as `trim` asks; returns how many entries went.
    pub fn trim(&mut self, trim: &Trim) -> Result<u64, RespError> {
        self.body.trim(trim)
    }

    /// Deletes entry `id`; whether it was there.
    pub fn delete(&mut self, id: StreamId) -> Result<bool, RespError> {
        let deleted = self.body.delete(id)?;
        if deleted && id > self.max_deleted {
            self.max_deleted = id;
        }
        Ok(deleted)
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
