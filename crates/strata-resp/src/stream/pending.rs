//! [`GroupPel`]: one group's pending entries, the group's counts kept
//! with them. Every change to a group's pending entries goes through it,
//! so the group's `pending` and each consumer's stay the number of
//! entries in the tree (see `pel/`) that name them.

use super::id::StreamId;
use super::model::{Group, Stream};
use super::pel::{Key, Pels, Pending};
use crate::reply::RespError;

/// Entries read from the tree at a time by scans that filter.
const BATCH: usize = 256;

/// A group with the stream's pending entries beside it.
pub struct GroupPel<'a, 's> {
    /// The group.
    pub group: &'a mut Group,
    pels: &'a mut Pels<'s>,
}

impl<'s> Stream<'s> {
    /// Group `name` with its pending entries.
    pub fn pel(&mut self, name: &[u8]) -> Option<GroupPel<'_, 's>> {
        let at = self.groups.binary_search_by(|g| g.name[..].cmp(name));
        self.pel_at(at.ok()?)
    }

    /// The group at `index` (in name order) with its pending entries.
    pub fn pel_at(&mut self, index: usize) -> Option<GroupPel<'_, 's>> {
        let group = self.groups.get_mut(index)?;
        Some(GroupPel::new(group, &mut self.pels))
    }
}

impl<'a, 's> GroupPel<'a, 's> {
    /// `group` with `pels`, the pending entries of its stream.
    pub(super) fn new(group: &'a mut Group, pels: &'a mut Pels<'s>) -> GroupPel<'a, 's> {
        GroupPel { group, pels }
    }
}

impl GroupPel<'_, '_> {
    fn key(&self, id: StreamId) -> Key {
        Key::new(self.group.number, id)
    }

    fn count(&mut self, consumer: u32, up: bool) {
        if let Some(c) = self.group.consumer_numbered_mut(consumer) {
            c.pending = if up {
                c.pending.saturating_add(1)
            } else {
                c.pending.saturating_sub(1)
            };
        }
    }

    /// Entry `id`, if pending.
    pub fn get(&mut self, id: StreamId) -> Result<Option<Pending>, RespError> {
        let key = self.key(id);
        self.pels.get(key)
    }

    /// Sets entry `id` pending as `p` (replacing what was there).
    pub fn insert(&mut self, id: StreamId, p: Pending) -> Result<(), RespError> {
        let key = self.key(id);
        match self.pels.insert(key, p)? {
            Some(old) => self.count(old.consumer, false),
            None => self.group.pending = self.group.pending.saturating_add(1),
        }
        self.count(p.consumer, true);
        Ok(())
    }

    /// Removes entry `id`; what was pending.
    pub fn remove(&mut self, id: StreamId) -> Result<Option<Pending>, RespError> {
        let key = self.key(id);
        let removed = self.pels.remove(key)?;
        if let Some(old) = removed {
            self.group.pending = self.group.pending.saturating_sub(1);
            self.count(old.consumer, false);
        }
        Ok(removed)
    }

    /// The first pending entry at or after `id`.
    pub fn first_from(&mut self, id: StreamId) -> Result<Option<(StreamId, Pending)>, RespError> {
        Ok(self.range(id, StreamId::MAX, 1)?.pop())
    }

    /// The last pending entry.
    pub fn last(&mut self) -> Result<Option<(StreamId, Pending)>, RespError> {
        let found = self.pels.last_upto(self.key(StreamId::MAX))?;
        Ok(found
            .filter(|(k, _)| k.group == self.group.number)
            .map(|(k, p)| (k.id, p)))
    }

    /// Pending entries in `start..=end`, at most `limit`, in id order.
    pub fn range(
        &mut self,
        start: StreamId,
        end: StreamId,
        limit: usize,
    ) -> Result<Vec<(StreamId, Pending)>, RespError> {
        let (from, to) = (self.key(start), self.key(end));
        let found = self.pels.scan(from, Some(to), limit)?;
        Ok(found.into_iter().map(|(k, p)| (k.id, p)).collect())
    }

    /// Pending entries in `start..=end` that `keep` accepts, at most
    /// `limit`, in id order (reading no further than the last one).
    pub fn filtered(
        &mut self,
        start: StreamId,
        end: StreamId,
        limit: usize,
        mut keep: impl FnMut(StreamId, &Pending) -> bool,
    ) -> Result<Vec<(StreamId, Pending)>, RespError> {
        let mut out = Vec::new();
        let mut from = start;
        while out.len() < limit {
            let batch = self.range(from, end, BATCH)?;
            let Some(&(last, _)) = batch.last() else {
                break;
            };
            for (id, p) in batch {
                if out.len() < limit && keep(id, &p) {
                    out.push((id, p));
                }
            }
            match last.next() {
                Some(next) if last < end => from = next,
                _ => break,
            }
        }
        Ok(out)
    }

    /// Pending entries of consumer `number` from `start` on, at most
    /// `limit`, in id order (reading no further than its last).
    pub fn of_consumer(
        &mut self,
        number: u32,
        start: StreamId,
        limit: usize,
    ) -> Result<Vec<(StreamId, Pending)>, RespError> {
        let held = self
            .group
            .consumer_numbered(number)
            .map_or(0, |c| c.pending);
        let limit = limit.min(usize::try_from(held).unwrap_or(usize::MAX));
        self.filtered(start, StreamId::MAX, limit, |_, p| p.consumer == number)
    }

    /// Removes consumer `name` and the entries it held; how many it held,
    /// `None` when there is no such consumer.
    pub fn remove_consumer(&mut self, name: &[u8]) -> Result<Option<u64>, RespError> {
        let g = &self.group;
        let Ok(at) = g.consumers.binary_search_by(|c| c.name[..].cmp(name)) else {
            return Ok(None);
        };
        let number = g.consumers[at].number;
        let mine = self.of_consumer(number, StreamId::MIN, usize::MAX)?;
        for (id, _) in &mine {
            self.remove(*id)?;
        }
        self.group.consumers.remove(at);
        Ok(Some(mine.len() as u64))
    }
}
