//! `XPENDING key group [[IDLE min-idle-time] start end count [consumer]]`,
//! as Redis 7.2's `xpendingCommand`: the arguments are read before the
//! key is looked at, so their errors come first. Without a range it
//! summarizes the group's pending entries; with one it lists them.

use strata_kv::Store;

use super::entries::id as write_id;
use super::stored::read;
use super::xread::lossy;
use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{RespError, StreamError};
use crate::stream::{elapsed, Group, StreamId};
use crate::writer::ReplyWriter;

/// The extended form's arguments.
struct Range<'a> {
    min_idle: i64,
    start: StreamId,
    end: StreamId,
    /// At most this many (0: none).
    count: u64,
    consumer: Option<&'a [u8]>,
}

/// Replies the summary or the listed pending entries of the group.
pub fn xpending<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let range = match args.len() {
        3 => None,
        6..=9 => Some(parse(&args)?),
        _ => return Err(RespError::Syntax),
    };
    let (key, group) = (args.get(1), args.get(2));
    let now = ctx.shared.keyspace.now_ms();
    let written = read(ctx.store, key, |s| {
        let Some(g) = s.group(group) else {
            return Ok(None);
        };
        match &range {
            None => summary(out, g),
            Some(r) => list(out, g, r, now),
        }
        Ok(Some(()))
    })?;
    if written.flatten().is_none() {
        return Err(StreamError::NoKeyOrGroup {
            key: lossy(key),
            group: lossy(group),
        }
        .into());
    }
    Ok(())
}

/// Reads `[IDLE n] start end count [consumer]`: the count, then the
/// bounds, as Redis reads them. Arguments past the consumer are ignored
/// (as Redis does when `IDLE` is not given).
fn parse<'a>(args: &Args<'a>) -> Result<Range<'a>, RespError> {
    let mut at = 3;
    let mut min_idle = 0;
    if args.get(3).eq_ignore_ascii_case(b"idle") {
        min_idle = parse_i64(args.get(4)).ok_or(RespError::NotInteger)?;
        if args.len() < 8 {
            return Err(RespError::Syntax);
        }
        at += 2;
    }
    let count = parse_i64(args.get(at + 2)).ok_or(RespError::NotInteger)?;
    let start = StreamId::parse_bound(args.get(at), 0, true)?;
    let start = start.ok_or(StreamError::InvalidStart)?;
    let end = StreamId::parse_bound(args.get(at + 1), u64::MAX, false)?;
    let end = end.ok_or(StreamError::InvalidEnd)?;
    Ok(Range {
        min_idle,
        start,
        end,
        count: u64::try_from(count).unwrap_or(0),
        consumer: (at + 3 < args.len()).then(|| args.get(at + 3)),
    })
}

/// `[count, first, last, [[consumer, count], ...]]`, the consumers in
/// name order; nulls for an empty list.
fn summary(out: &mut ReplyWriter<'_>, g: &Group) {
    out.array(4);
    out.integer(i64::try_from(g.pel.len()).unwrap_or(i64::MAX));
    let (Some((first, _)), Some((last, _))) = (g.pel.first_key_value(), g.pel.last_key_value())
    else {
        out.null();
        out.null();
        out.null_array();
        return;
    };
    write_id(out, *first);
    write_id(out, *last);
    let held = g.pending_counts();
    out.array(held.len());
    for (name, n) in held {
        out.array(2);
        out.bulk(name);
        out.bulk_integer(n);
    }
}

/// `[[id, consumer, idle ms, deliveries], ...]` in identifier order.
fn list(out: &mut ReplyWriter<'_>, g: &Group, r: &Range<'_>, now: u64) {
    if r.consumer.is_some_and(|c| g.consumer(c).is_none()) || r.start > r.end {
        out.array(0);
        return;
    }
    let limit = usize::try_from(r.count).unwrap_or(usize::MAX);
    let found: Vec<_> = g
        .pel
        .range(r.start..=r.end)
        .filter(|(_, p)| r.consumer.is_none_or(|c| p.consumer == c))
        .filter(|(_, p)| r.min_idle == 0 || elapsed(now, p.delivery_time) >= r.min_idle)
        .take(limit)
        .collect();
    out.array(found.len());
    for (id, p) in found {
        out.array(4);
        write_id(out, *id);
        out.bulk(&p.consumer);
        out.integer(elapsed(now, p.delivery_time).max(0));
        // Redis writes its unsigned counter as a signed one.
        out.integer(p.delivery_count as i64);
    }
}
