//! Delivering entries to a consumer of a group (`XREADGROUP`): new
//! entries past the group's last delivered one, which join the pending
//! lists, or the consumer's own pending history again.

use super::id::StreamId;
use super::model::Stream;
use super::node::Entry;
use super::pel::Pending;
use crate::reply::RespError;

/// A pending entry re-read from a consumer's history: the entry, or just
/// its identifier when it was deleted from the stream since.
pub type HistoryItem = (StreamId, Option<Entry>);

impl Stream<'_> {
    /// Entries after group `group`'s last delivered one, at most `count`
    /// (0: all), delivered to `consumer` (created if new) at `now`: each
    /// moves the group's last delivered identifier and read counter on and,
    /// unless `noack`, joins the pending lists (taken from another
    /// consumer if it was pending there). `None` when there is no such
    /// group.
    pub fn deliver_new(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        count: usize,
        noack: bool,
        now: u64,
    ) -> Result<Option<Vec<Entry>>, RespError> {
        let Some(g) = self.group(group) else {
            return Ok(None);
        };
        let (after, mut read) = (g.last_id, g.entries_read);
        let limit = if count == 0 { usize::MAX } else { count };
        let taken = match after.next() {
            Some(start) => self.range(start, StreamId::MAX, limit, false)?,
            None => Vec::new(),
        };
        // The read counter of each delivered entry, as Redis moves it on.
        let mut counters = Vec::with_capacity(taken.len());
        for e in &taken {
            read = match read {
                Some(n) if !self.has_tombstones(e.id, StreamId::MAX) => Some(n + 1),
                _ if self.entries_added > 0 => self.estimate_read(e.id),
                other => other,
            };
            counters.push(read);
        }
        let Some(mut pel) = self.pel(group) else {
            return Ok(None);
        };
        let g = &mut *pel.group;
        let (c, _) = g.consumer_or_create(consumer, now);
        c.seen_time = now;
        if !noack && !taken.is_empty() {
            c.active_time = Some(now);
        }
        let owner = c.number;
        if let (Some(last), Some(&read)) = (taken.last(), counters.last()) {
            g.last_id = last.id;
            g.entries_read = read;
        }
        if !noack {
            for e in &taken {
                let pending = Pending {
                    consumer: owner,
                    delivery_time: now,
                    delivery_count: 1,
                };
                pel.insert(e.id, pending)?;
            }
        }
        Ok(Some(taken))
    }

    /// `consumer`'s pending entries from `start` on, at most `count` (0:
    /// all), delivered again at `now` (the ones still in the stream count
    /// one more delivery). The consumer is created if new. `None` when
    /// there is no such group.
    pub fn deliver_history(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        start: StreamId,
        count: usize,
        now: u64,
    ) -> Result<Option<Vec<HistoryItem>>, RespError> {
        let mine = {
            let Some(mut pel) = self.pel(group) else {
                return Ok(None);
            };
            let limit = if count == 0 { usize::MAX } else { count };
            match pel.group.consumer(consumer).map(|c| c.number) {
                Some(number) => pel.of_consumer(number, start, limit)?,
                None => Vec::new(),
            }
        };
        let mut items: Vec<HistoryItem> = Vec::with_capacity(mine.len());
        for (id, _) in &mine {
            items.push((*id, self.entry(*id)?));
        }
        let Some(mut pel) = self.pel(group) else {
            return Ok(None);
        };
        pel.group.consumer_or_create(consumer, now).0.seen_time = now;
        for ((id, mut p), (_, found)) in mine.into_iter().zip(&items) {
            if found.is_some() {
                p.delivery_time = now;
                p.delivery_count += 1;
                pel.insert(id, p)?;
            }
        }
        Ok(Some(items))
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Group;
    use super::*;

    fn stream_with_group() -> Stream<'static> {
        let mut s = Stream::new();
        for ms in 1..=3 {
            s.append(StreamId::new(ms, 0), vec![b"f".to_vec(), b"v".to_vec()])
                .unwrap();
        }
        assert!(s.add_group(Group::new(b"g", StreamId::MIN, Some(0))));
        s
    }

    #[test]
    fn new_entries_are_pending_for_their_consumer_and_move_the_group_on() {
        let mut s = stream_with_group();
        let got = s
            .deliver_new(b"g", b"alice", 2, false, 50)
            .unwrap()
            .unwrap();
        assert_eq!(got.len(), 2);
        let g = s.group(b"g").unwrap();
        assert_eq!(g.last_id, StreamId::new(2, 0));
        assert_eq!(g.entries_read, Some(2));
        assert_eq!(g.pending, 2);
        assert_eq!(s.lag(g), Some(1));
        let again = s.deliver_new(b"g", b"bob", 0, true, 60).unwrap().unwrap();
        assert_eq!(again.len(), 1);
        let g = s.group(b"g").unwrap();
        assert_eq!(g.pending, 2, "NOACK leaves nothing pending");
        assert_eq!(g.consumers.len(), 2);
        assert_eq!(g.consumer(b"bob").unwrap().active_time, None);
    }

    #[test]
    fn history_counts_deliveries_and_names_deleted_entries() {
        let mut s = stream_with_group();
        s.deliver_new(b"g", b"alice", 0, false, 50)
            .unwrap()
            .unwrap();
        s.delete(StreamId::new(2, 0)).unwrap();
        let got = s
            .deliver_history(b"g", b"alice", StreamId::MIN, 0, 70)
            .unwrap()
            .unwrap();
        assert_eq!(got.len(), 3);
        assert!(got[1].1.is_none());
        let mut pel = s.pel(b"g").unwrap();
        let count = |pel: &mut crate::stream::GroupPel<'_, '_>, ms| {
            pel.get(StreamId::new(ms, 0))
                .unwrap()
                .unwrap()
                .delivery_count
        };
        assert_eq!(count(&mut pel, 1), 2);
        assert_eq!(count(&mut pel, 2), 1);
        assert!(s
            .deliver_history(b"nope", b"x", StreamId::MIN, 0, 0)
            .unwrap()
            .is_none());
    }
}
