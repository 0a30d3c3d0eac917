//! [`Stream`]: a stream as its commands see it: the counters Redis keeps
//! (last identifier, largest deleted one, entries ever added), the
//! consumer groups with their consumers, the pending entries of every
//! group in [`Pels`] (read on demand, see `pel/`; `pending.rs` changes
//! them with the counts kept here) and the entries themselves in a
//! [`Body`] of nodes, in hand or read on demand (see `body.rs`).
//!
//! Invariants: entries rise, all at or below `last_id`; `entries_added`
//! counts every entry ever added; each pending entry names a consumer of
//! its group by number, a group's `pending` counts its pending entries
//! and a consumer's those it holds; groups and consumers are kept in name
//! order (Redis lists them from radix trees), their numbers unique within
//! the stream and the group.

use super::body::Body;
use super::id::StreamId;
use super::node::Entry;
use super::pel::Pels;
use super::trim::Trim;
use crate::reply::RespError;

/// A consumer of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consumer {
    /// Its name.
    pub name: Vec<u8>,
    /// Its number within the group (its pending entries name it so).
    pub number: u32,
    /// Its last attempted interaction (Unix ms).
    pub seen_time: u64,
    /// Its last successful interaction (Unix ms); `None` before any.
    pub active_time: Option<u64>,
    /// How many pending entries it holds.
    pub pending: u64,
}

/// A consumer group (its pending entries are the stream's [`Pels`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Its name.
    pub name: Vec<u8>,
    /// Its number within the stream (its pending entries' keys start
    /// with it); set when the group is added.
    pub number: u32,
    /// The last entry delivered to it.
    pub last_id: StreamId,
    /// Its logical read counter; `None` when it cannot be known (Redis's
    /// `SCG_INVALID_ENTRIES_READ`).
    pub entries_read: Option<u64>,
    /// How many entries are pending.
    pub pending: u64,
    /// Consumers in name order (as Redis's radix tree lists them).
    pub consumers: Vec<Consumer>,
}

/// The least number not in `used`.
pub(super) fn free_number(used: impl Iterator<Item = u32>) -> u32 {
    let mut used: Vec<u32> = used.collect();
    used.sort_unstable();
    let mut n = 0;
    for u in used {
        if u != n {
            break;
        }
        n += 1;
    }
    n
}

impl Group {
    /// A new group.
    pub fn new(name: &[u8], last_id: StreamId, entries_read: Option<u64>) -> Group {
        Group {
            name: name.to_vec(),
            last_id,
            number: 0,
            entries_read,
            pending: 0,
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
                    number: free_number(self.consumers.iter().map(|c| c.number)),
                    seen_time: now,
                    active_time: None,
                    pending: 0,
                };
                self.consumers.insert(i, consumer);
                (&mut self.consumers[i], true)
            }
        }
    }

    /// The consumer numbered `number`.
    pub fn consumer_numbered(&self, number: u32) -> Option<&Consumer> {
        self.consumers.iter().find(|c| c.number == number)
    }

    /// The consumer numbered `number`, to change.
    pub(super) fn consumer_numbered_mut(&mut self, number: u32) -> Option<&mut Consumer> {
        self.consumers.iter_mut().find(|c| c.number == number)
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
    /// Every group's pending entries.
    pub pels: Pels<'s>,
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
            pels: Pels::in_hand(),
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

    /// Adds `group` in name order, numbered anew; false (nothing added)
    /// when one of that name exists.
    pub fn add_group(&mut self, mut group: Group) -> bool {
        match self.groups.binary_search_by(|g| g.name.cmp(&group.name)) {
            Ok(_) => false,
            Err(i) => {
                group.number = free_number(self.groups.iter().map(|g| g.number));
                self.groups.insert(i, group);
                true
            }
        }
    }

    /// Removes the group named `name` with its pending entries; whether
    /// it was there.
    pub fn remove_group(&mut self, name: &[u8]) -> Result<bool, RespError> {
        let Ok(i) = self.groups.binary_search_by(|g| g.name[..].cmp(name)) else {
            return Ok(false);
        };
        let number = self.groups[i].number;
        self.pels.clear_group(number)?;
        self.groups.remove(i);
        Ok(true)
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
