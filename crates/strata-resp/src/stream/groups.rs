//! A stream's consumer groups as stored (see `codec.rs`), in two forms.
//!
//! Version 1 (a packed stream's, and a large head's before the pending
//! entries' tree): count (u32) and each group: name, last id, entries
//! read (u64, `u64::MAX` unknown), consumer count (u32) and each
//! consumer: name, seen time, active time (u64, `u64::MAX` never);
//! pending count (u64) and each pending entry: id, consumer index (u32,
//! in the list before), delivery time, delivery count. Groups and
//! consumers are numbered by their place when read.
//! Version 2 (a large head's; the pending entries are the tree's): count
//! (u32) and each group: name, number (u32), last id, entries read,
//! pending count (u64), consumer count (u32) and each consumer: name,
//! number (u32), seen time, active time, pending count (u64).
//! Names are a u32 length and the bytes. Numbers repeated within a
//! stream (groups) or a group (consumers) are refused as damage.

use std::collections::{HashMap, HashSet};

use super::id::StreamId;
use super::model::{Consumer, Group};
use super::node::{len32, put_id, put_u32, put_u64, Reader};
use super::pel::{Key, Pels, Pending};
use crate::reply::RespError;

fn put_bytes(w: &mut Vec<u8>, b: &[u8]) {
    put_u32(w, len32(b.len()));
    w.extend_from_slice(b);
}

/// Writes `groups` with their pending entries (read from `pels`).
pub fn put_groups_v1(
    w: &mut Vec<u8>,
    groups: &[Group],
    pels: &mut Pels<'_>,
) -> Result<(), RespError> {
    put_u32(w, len32(groups.len()));
    for g in groups {
        put_bytes(w, &g.name);
        put_id(w, g.last_id);
        put_u64(w, g.entries_read.unwrap_or(u64::MAX));
        put_u32(w, len32(g.consumers.len()));
        let mut index = HashMap::with_capacity(g.consumers.len());
        for (i, c) in g.consumers.iter().enumerate() {
            index.insert(c.number, len32(i));
            put_bytes(w, &c.name);
            put_u64(w, c.seen_time);
            put_u64(w, c.active_time.unwrap_or(u64::MAX));
        }
        let (from, to) = (
            Key::new(g.number, StreamId::MIN),
            Key::new(g.number, StreamId::MAX),
        );
        let pending = pels.scan(from, Some(to), usize::MAX)?;
        put_u64(w, pending.len() as u64);
        for (k, p) in pending {
            put_id(w, k.id);
            put_u32(w, index.get(&p.consumer).copied().unwrap_or(u32::MAX));
            put_u64(w, p.delivery_time);
            put_u64(w, p.delivery_count);
        }
    }
    Ok(())
}

/// Reads version 1 groups, their pending entries put into `pels`.
pub fn read_groups_v1(r: &mut Reader<'_>, pels: &mut Pels<'_>) -> Option<Vec<Group>> {
    let mut groups = Vec::new();
    for number in 0..r.u32()? {
        let mut g = Group::new(r.bytes()?, r.id()?, None);
        g.number = number;
        g.entries_read = Some(r.u64()?).filter(|&n| n != u64::MAX);
        for number in 0..r.u32()? {
            g.consumers.push(Consumer {
                name: r.bytes()?.to_vec(),
                number,
                seen_time: r.u64()?,
                active_time: Some(r.u64()?).filter(|&t| t != u64::MAX),
                pending: 0,
            });
        }
        for _ in 0..r.u64()? {
            let id = r.id()?;
            let owner = g.consumers.get_mut(usize::try_from(r.u32()?).ok()?)?;
            owner.pending += 1;
            let pending = Pending {
                consumer: owner.number,
                delivery_time: r.u64()?,
                delivery_count: r.u64()?,
            };
            if pels.insert(Key::new(number, id), pending).ok()?.is_some() {
                return None;
            }
            g.pending += 1;
        }
        groups.push(g);
    }
    Some(groups)
}

/// Writes `groups` without their pending entries.
pub fn put_groups_v2(w: &mut Vec<u8>, groups: &[Group]) {
    put_u32(w, len32(groups.len()));
    for g in groups {
        put_bytes(w, &g.name);
        put_u32(w, g.number);
        put_id(w, g.last_id);
        put_u64(w, g.entries_read.unwrap_or(u64::MAX));
        put_u64(w, g.pending);
        put_u32(w, len32(g.consumers.len()));
        for c in &g.consumers {
            put_bytes(w, &c.name);
            put_u32(w, c.number);
            put_u64(w, c.seen_time);
            put_u64(w, c.active_time.unwrap_or(u64::MAX));
            put_u64(w, c.pending);
        }
    }
}

/// Reads version 2 groups.
pub fn read_groups_v2(r: &mut Reader<'_>) -> Option<Vec<Group>> {
    let mut groups = Vec::new();
    let mut numbers = HashSet::new();
    for _ in 0..r.u32()? {
        let name = r.bytes()?;
        let number = r.u32()?;
        let mut g = Group::new(name, r.id()?, None);
        g.number = number;
        g.entries_read = Some(r.u64()?).filter(|&n| n != u64::MAX);
        g.pending = r.u64()?;
        let mut owners = HashSet::new();
        for _ in 0..r.u32()? {
            let c = Consumer {
                name: r.bytes()?.to_vec(),
                number: r.u32()?,
                seen_time: r.u64()?,
                active_time: Some(r.u64()?).filter(|&t| t != u64::MAX),
                pending: r.u64()?,
            };
            if !owners.insert(c.number) {
                return None;
            }
            g.consumers.push(c);
        }
        if !numbers.insert(number) {
            return None;
        }
        groups.push(g);
    }
    Some(groups)
}
