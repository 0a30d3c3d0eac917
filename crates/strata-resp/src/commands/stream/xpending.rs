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
use crate::stream::{elapsed, Consumer, GroupPel, StreamId};
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
        let Some(mut pel) = s.pel(group) else {
            return Ok(None);
        };
        match &range {
            None => summary(out, &mut pel)?,
            Some(r) => list(out, &mut pel, r, now)?,
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
fn summary(out: &mut ReplyWriter<'_>, pel: &mut GroupPel<'_, '_>) -> Result<(), RespError> {
    let first = pel.first_from(StreamId::MIN)?;
    let last = pel.last()?;
    out.array(4);
    out.integer(i64::try_from(pel.group.pending).unwrap_or(i64::MAX));
    let (Some((first, _)), Some((last, _))) = (first, last) else {
        out.null();
        out.null();
        out.null_array();
        return Ok(());
    };
    write_id(out, first);
    write_id(out, last);
    let held: Vec<&Consumer> = pel
        .group
        .consumers
        .iter()
        .filter(|c| c.pending > 0)
        .collect();
    out.array(held.len());
    for c in held {
        out.array(2);
        out.bulk(&c.name);
        out.bulk_integer(c.pending);
    }
    Ok(())
}

/// `[[id, consumer, idle ms, deliveries], ...]` in identifier order.
fn list(
    out: &mut ReplyWriter<'_>,
    pel: &mut GroupPel<'_, '_>,
    r: &Range<'_>,
    now: u64,
) -> Result<(), RespError> {
    let owner = match r.consumer {
        None => None,
        Some(name) => match pel.group.consumer(name) {
            Some(c) => Some(c.number),
            None => {
                out.array(0);
                return Ok(());
            }
        },
    };
    if r.start > r.end {
        out.array(0);
        return Ok(());
    }
    let limit = usize::try_from(r.count).unwrap_or(usize::MAX);
    let found = pel.filtered(r.start, r.end, limit, |_, p| {
        owner.is_none_or(|c| p.consumer == c)
            && (r.min_idle == 0 || elapsed(now, p.delivery_time) >= r.min_idle)
    })?;
    let mut rows = Vec::with_capacity(found.len());
    for (id, p) in found {
        let owner = pel.group.consumer_numbered(p.consumer);
        rows.push((id, &owner.ok_or(StreamError::Damaged)?.name, p));
    }
    out.array(rows.len());
    for (id, name, p) in rows {
        out.array(4);
        write_id(out, id);
        out.bulk(name);
        out.integer(elapsed(now, p.delivery_time).max(0));
        // Redis writes its unsigned counter as a signed one.
        out.integer(p.delivery_count as i64);
    }
    Ok(())
}
