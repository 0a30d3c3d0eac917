//! `XINFO STREAM key [FULL [COUNT count]]`'s reply, as Redis 7.2's
//! `xinfoReplyWithStreamInfo`: the stream's counters, then its groups'
//! count and first and last entries, or (`FULL`) its entries and every
//! group with its pending entries and consumers, each list at most
//! `COUNT` long (default 10, 0 for all, negative for the default).
//!
//! `radix-tree-keys` and `radix-tree-nodes` describe the radix tree Redis
//! would hold over the stream's nodes ([`RaxShape`], approximate after
//! some deletions; see `stream/nodes.rs`).

use std::collections::HashMap;

use super::entries::{entries, entries_read, entry, id as write_id, int, lag};
use crate::args::Args;
use crate::number::parse_i64;
use crate::reply::{lossy_prefix, RespError};
use crate::stream::{Group, GroupPel, Pending, RaxShape, Stream, StreamId};
use crate::writer::ReplyWriter;

/// A group's first pending entries, and each consumer's (by number).
struct Listed {
    pending: Vec<(StreamId, Pending)>,
    held: HashMap<u32, Vec<(StreamId, Pending)>>,
}

/// `COUNT` when not given (or negative).
const DEFAULT_COUNT: i64 = 10;

/// Reads the options and writes the stream's description.
pub fn write(
    out: &mut ReplyWriter<'_>,
    s: &mut Stream<'_>,
    args: &Args<'_>,
) -> Result<(), RespError> {
    let full = full_count(args)?;
    let shape = RaxShape::of(s)?;
    // Everything the reply needs is read before any of it is written.
    let (first, last, listed) = match full {
        None => (s.first_entry()?, s.last_entry()?, Vec::new()),
        Some(limit) => (
            None,
            None,
            s.range(StreamId::MIN, StreamId::MAX, limit, false)?,
        ),
    };
    let mut pending = Vec::new();
    if let Some(limit) = full {
        for i in 0..s.groups.len() {
            if let Some(mut pel) = s.pel_at(i) {
                pending.push(list(&mut pel, limit)?);
            }
        }
    }
    out.map(if full.is_some() { 9 } else { 10 });
    out.bulk(b"length");
    out.integer(int(s.len()));
    out.bulk(b"radix-tree-keys");
    out.integer(int(shape.keys));
    out.bulk(b"radix-tree-nodes");
    out.integer(int(shape.nodes));
    out.bulk(b"last-generated-id");
    write_id(out, s.last_id);
    out.bulk(b"max-deleted-entry-id");
    write_id(out, s.max_deleted);
    out.bulk(b"entries-added");
    out.integer(int(s.entries_added));
    out.bulk(b"recorded-first-entry-id");
    write_id(out, s.first_id());
    if full.is_none() {
        out.bulk(b"groups");
        out.integer(int(s.groups.len() as u64));
        out.bulk(b"first-entry");
        match &first {
            Some(e) => entry(out, e),
            None => out.null(),
        }
        out.bulk(b"last-entry");
        match &last {
            Some(e) => entry(out, e),
            None => out.null(),
        }
        return Ok(());
    }
    out.bulk(b"entries");
    entries(out, listed.iter());
    out.bulk(b"groups");
    out.array(s.groups.len());
    for (g, listed) in s.groups.iter().zip(&pending) {
        full_group(out, s, g, listed);
    }
    Ok(())
}

/// The group's first `limit` pending entries and each consumer's, read
/// no further than the last one listed.
fn list(pel: &mut GroupPel<'_, '_>, limit: usize) -> Result<Listed, RespError> {
    let pending = pel.range(StreamId::MIN, StreamId::MAX, limit)?;
    let mut wanted: HashMap<u32, u64> = HashMap::new();
    for c in &pel.group.consumers {
        let n = c.pending.min(u64::try_from(limit).unwrap_or(u64::MAX));
        wanted.insert(c.number, n);
    }
    let total = wanted.values().sum::<u64>();
    let total = usize::try_from(total).unwrap_or(usize::MAX);
    let mine = pel.filtered(StreamId::MIN, StreamId::MAX, total, |_, p| {
        match wanted.get_mut(&p.consumer) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    })?;
    let mut held: HashMap<u32, Vec<(StreamId, Pending)>> = HashMap::new();
    for (id, p) in mine {
        held.entry(p.consumer).or_default().push((id, p));
    }
    Ok(Listed { pending, held })
}

/// `None` without `FULL`; with it, how many of each list to write.
fn full_count(args: &Args<'_>) -> Result<Option<usize>, RespError> {
    let syntax = || RespError::SubcommandArgs {
        sub: lossy_prefix(args.get(1), 128),
        command: "XINFO".into(),
    };
    let count = match args.len() {
        3 => return Ok(None),
        4 | 6 if !args.get(3).eq_ignore_ascii_case(b"full") => return Err(syntax()),
        4 => DEFAULT_COUNT,
        6 if !args.get(4).eq_ignore_ascii_case(b"count") => return Err(syntax()),
        6 => parse_i64(args.get(5)).ok_or(RespError::NotInteger)?,
        _ => return Err(syntax()),
    };
    let count = if count < 0 { DEFAULT_COUNT } else { count };
    Ok(Some(match count {
        0 => usize::MAX,
        n => usize::try_from(n).unwrap_or(usize::MAX),
    }))
}

/// One group of `FULL`: its counters, its pending entries (`[id,
/// consumer, delivery time, deliveries]`) and its consumers, each with
/// its own pending entries (`[id, delivery time, deliveries]`).
fn full_group(out: &mut ReplyWriter<'_>, s: &Stream<'_>, g: &Group, listed: &Listed) {
    out.map(7);
    out.bulk(b"name");
    out.bulk(&g.name);
    out.bulk(b"last-delivered-id");
    write_id(out, g.last_id);
    out.bulk(b"entries-read");
    entries_read(out, g);
    out.bulk(b"lag");
    lag(out, s, g);
    out.bulk(b"pel-count");
    out.integer(int(g.pending));
    out.bulk(b"pending");
    out.array(listed.pending.len());
    for (id, p) in &listed.pending {
        let owner = g
            .consumer_numbered(p.consumer)
            .map_or(&[][..], |c| &c.name[..]);
        out.array(4);
        write_id(out, *id);
        out.bulk(owner);
        out.integer(int(p.delivery_time));
        out.integer(int(p.delivery_count));
    }
    out.bulk(b"consumers");
    out.array(g.consumers.len());
    for c in &g.consumers {
        let first = listed.held.get(&c.number).map_or(&[][..], |v| &v[..]);
        out.map(5);
        out.bulk(b"name");
        out.bulk(&c.name);
        out.bulk(b"seen-time");
        out.integer(int(c.seen_time));
        out.bulk(b"active-time");
        out.integer(c.active_time.map_or(-1, int));
        out.bulk(b"pel-count");
        out.integer(int(c.pending));
        out.bulk(b"pending");
        out.array(first.len());
        for (id, p) in first {
            out.array(3);
            write_id(out, *id);
            out.integer(int(p.delivery_time));
            out.integer(int(p.delivery_count));
        }
    }
}
