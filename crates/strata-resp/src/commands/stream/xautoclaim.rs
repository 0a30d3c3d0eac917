//! `XAUTOCLAIM key group consumer min-idle-time start [COUNT count]
//! [JUSTID]`, as Redis 7.2's `xautoclaimCommand`: the arguments are read
//! before the key is looked at; the reply is Redis 7's `[next cursor,
//! claimed entries (or identifiers), identifiers deleted from the pending
//! list because their entries are gone]`.
//!
//! `COUNT` is bounded as Redis bounds it (1 to `i64::MAX / 16`), but
//! nothing is allocated by it: what is replied grows with what is found.
//! Redis allocates `COUNT` identifiers up front and refuses with
//! `Insufficient memory ... COUNT too high` when it cannot; Strata never
//! needs to.

use strata_kv::Store;

use super::entries::{entry, id as write_id};
use super::stored::{edit, has_consumer, Edit};
use super::xread::lossy;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::{RespError, StreamError};
use crate::stream::{AutoClaim, AutoClaimed, Entry, StreamId};
use crate::writer::ReplyWriter;

/// `COUNT` when not given.
const DEFAULT_COUNT: u64 = 100;

/// Largest `COUNT`: Redis's `LONG_MAX / max(sizeof(streamID), 10)`.
const MAX_COUNT: u64 = (i64::MAX as u64) / 16;

/// Claims idle pending entries from `start` on for the consumer.
pub fn xautoclaim<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let min_idle = parse_i64(args.get(4)).ok_or(StreamError::MinIdle("XAUTOCLAIM"))?;
    let start = StreamId::parse_bound(args.get(5), 0, true)?;
    let start = start.ok_or(StreamError::InvalidStart)?;
    let mut count = DEFAULT_COUNT;
    let mut just_id = false;
    let mut i = 6;
    while i < args.len() {
        let opt = args.get(i);
        if opt.eq_ignore_ascii_case(b"count") && i + 1 < args.len() {
            i += 1;
            let n = parse_i64(args.get(i)).and_then(|n| u64::try_from(n).ok());
            count = n
                .filter(|n| (1..=MAX_COUNT).contains(n))
                .ok_or(StreamError::ClaimCount)?;
        } else if opt.eq_ignore_ascii_case(b"justid") {
            just_id = true;
        } else {
            return Err(RespError::Syntax);
        }
        i += 1;
    }
    let (key, group, consumer) = (args.get(1), args.get(2), args.get(3));
    let now = ctx.shared.keyspace.now_ms();
    let mut joined = false;
    let (done, entries) = edit(ctx.store, key, |slot| {
        let no_group = || StreamError::NoKeyOrGroup {
            key: lossy(key),
            group: lossy(group),
        };
        let stream = slot.as_mut().ok_or_else(no_group)?;
        let how = AutoClaim {
            start,
            count,
            min_idle: min_idle.max(0),
            just_id,
        };
        let was_there = has_consumer(stream, group, consumer);
        let done = stream.auto_claim(group, consumer, &how, now)?;
        joined = !was_there && has_consumer(stream, group, consumer);
        let done = done.ok_or_else(no_group)?;
        let mut entries: Vec<Entry> = Vec::new();
        if !just_id {
            for &id in &done.claimed {
                entries.extend(stream.entry(id)?);
            }
        }
        Ok(match done.changed {
            true => Edit::Write((done, entries)),
            false => Edit::Keep((done, entries)),
        })
    })?;
    if joined {
        fire(ctx, notify::STREAM, "xgroup-createconsumer", key);
    }
    write_reply(out, &done, &entries, just_id);
    Ok(())
}

fn write_reply(out: &mut ReplyWriter<'_>, done: &AutoClaimed, entries: &[Entry], just_id: bool) {
    out.array(3);
    write_id(out, done.next);
    if just_id {
        out.array(done.claimed.len());
        done.claimed.iter().for_each(|&id| write_id(out, id));
    } else {
        out.array(entries.len());
        entries.iter().for_each(|e| entry(out, e));
    }
    out.array(done.deleted.len());
    done.deleted.iter().for_each(|&id| write_id(out, id));
}
