//! A stream and its `DUMP` form ([`rdb::StreamValue`]) one into the
//! other, for `DUMP` and `RESTORE`: entries, counters, groups with their
//! pending entries and consumers. [`write()`] stores a restored stream at
//! a key being edited, packed or large as `stored.rs` decides.

use std::collections::HashMap;

use strata_kv::{LargeEdit, Store};

use super::stored;
use crate::rdb::{self, StreamGroup, StreamValue};
use crate::reply::{RespError, StreamError};
use crate::stream::{Group, Pending, Stream, StreamId};

fn id(id: rdb::Id) -> StreamId {
    StreamId {
        ms: id.0,
        seq: id.1,
    }
}

fn raw(id: StreamId) -> rdb::Id {
    (id.ms, id.seq)
}

/// The `DUMP` form of the stream at `key`; `None` when it is missing.
pub fn read<S: Store>(store: &mut S, key: &[u8]) -> Result<Option<StreamValue>, RespError> {
    stored::read(store, key, to_rdb)
}

/// The `DUMP` form of `s`.
pub fn to_rdb(s: &mut Stream<'_>) -> Result<StreamValue, RespError> {
    let entries = s.range(StreamId::MIN, StreamId::MAX, usize::MAX, false)?;
    let mut groups = Vec::with_capacity(s.groups.len());
    for i in 0..s.groups.len() {
        let Some(mut pel) = s.pel_at(i) else {
            continue;
        };
        let all = pel.range(StreamId::MIN, StreamId::MAX, usize::MAX)?;
        let g = &*pel.group;
        // Owners by their place in the (name-ordered) list.
        let places: HashMap<u32, usize> = (g.consumers.iter().enumerate())
            .map(|(i, c)| (c.number, i))
            .collect();
        let mut pending = Vec::with_capacity(all.len());
        for (pid, p) in all {
            let owner = places.get(&p.consumer).ok_or(StreamError::Damaged)?;
            pending.push((raw(pid), *owner, p.delivery_time, p.delivery_count));
        }
        let consumers = g.consumers.iter();
        groups.push(StreamGroup {
            name: g.name.clone(),
            last_id: raw(g.last_id),
            entries_read: g.entries_read,
            pending,
            consumers: consumers
                .map(|c| (c.name.clone(), c.seen_time, c.active_time))
                .collect(),
        });
    }
    Ok(StreamValue {
        entries: entries.into_iter().map(|e| (raw(e.id), e.fields)).collect(),
        last_id: raw(s.last_id),
        max_deleted: raw(s.max_deleted),
        entries_added: s.entries_added,
        groups,
    })
}

/// The stream `v` holds (checked by [`rdb::parse`]: entries rising, each
/// pending entry owned by one consumer, names unique).
pub fn from_rdb(v: StreamValue) -> Result<Stream<'static>, RespError> {
    let mut s = Stream::new();
    for (eid, fields) in v.entries {
        s.append(id(eid), fields)?;
    }
    s.last_id = id(v.last_id);
    s.max_deleted = id(v.max_deleted);
    s.entries_added = v.entries_added;
    for g in v.groups {
        let mut group = Group::new(&g.name, id(g.last_id), g.entries_read);
        let mut numbers = Vec::with_capacity(g.consumers.len());
        for (name, seen_time, active_time) in g.consumers {
            let (c, _) = group.consumer_or_create(&name, seen_time);
            c.active_time = active_time;
            numbers.push(c.number);
        }
        if !s.add_group(group) {
            return Err(StreamError::Damaged.into());
        }
        let mut pel = s.pel(&g.name).ok_or(StreamError::Damaged)?;
        for (pid, owner, delivery_time, delivery_count) in g.pending {
            let consumer = *numbers.get(owner).ok_or(StreamError::Damaged)?;
            let pending = Pending {
                consumer,
                delivery_time,
                delivery_count,
            };
            pel.insert(id(pid), pending)?;
        }
    }
    Ok(s)
}

/// Writes `s` expiring at `expires_at` at the (empty) key `edit` holds.
pub fn write(
    edit: &mut LargeEdit<'_>,
    s: Stream<'_>,
    expires_at: Option<u64>,
) -> Result<(), RespError> {
    stored::write_new(edit, s, expires_at)
}
