//! `XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME
//! ms-unix-time] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id]`, as
//! Redis 7.2's `xclaimCommand`: the key and group are looked up first,
//! then the arguments read (identifiers up to the first argument that is
//! not one, options after), all before anything changes.
//!
//! The consumer is created (and marked seen) even when nothing is claimed,
//! as in Redis 7.2 (7.0 created it only on a claim).

use strata_kv::Store;

use super::entries::{entry, id as write_id};
use super::stored::{edit, has_consumer, Edit};
use super::xread::lossy;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::{RespError, StreamError};
use crate::stream::{Claim, Entry, StreamId};
use crate::writer::ReplyWriter;

/// What was claimed, to reply.
enum Reply {
    Ids(Vec<StreamId>),
    Entries(Vec<Entry>),
}

/// Claims the pending entries for the consumer; replies them (or their
/// identifiers with `JUSTID`).
pub fn xclaim<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, group, consumer) = (args.get(1), args.get(2), args.get(3));
    let now = ctx.shared.keyspace.now_ms();
    let mut joined = false;
    let reply = edit(ctx.store, key, |slot| {
        let found = slot.as_mut().filter(|s| s.group(group).is_some());
        let Some(stream) = found else {
            return Err(StreamError::NoKeyOrGroup {
                key: lossy(key),
                group: lossy(group),
            }
            .into());
        };
        let (ids, how) = parse(&args, now)?;
        let was_there = has_consumer(stream, group, consumer);
        let claimed = stream.claim(group, consumer, &ids, &how, now)?;
        joined = !was_there && has_consumer(stream, group, consumer);
        let Some(claimed) = claimed else {
            return Ok(Edit::Keep(Reply::Ids(Vec::new())));
        };
        let reply = if how.just_id {
            Reply::Ids(claimed.ids)
        } else {
            // Claimed identifiers are entries of the stream.
            let mut found = Vec::with_capacity(claimed.ids.len());
            for &id in &claimed.ids {
                found.extend(stream.entry(id)?);
            }
            Reply::Entries(found)
        };
        Ok(match claimed.changed {
            true => Edit::Write(reply),
            false => Edit::Keep(reply),
        })
    })?;
    if joined {
        fire(ctx, notify::STREAM, "xgroup-createconsumer", key);
    }
    match reply {
        Reply::Ids(ids) => {
            out.array(ids.len());
            ids.into_iter().for_each(|id| write_id(out, id));
        }
        Reply::Entries(list) => {
            out.array(list.len());
            list.iter().for_each(|e| entry(out, e));
        }
    }
    Ok(())
}

/// Reads the minimum idle time, the identifiers and the options. As many
/// identifiers as arguments: bounded by the request.
fn parse(args: &Args<'_>, now: u64) -> Result<(Vec<StreamId>, Claim), RespError> {
    let min_idle = parse_i64(args.get(4)).ok_or(StreamError::MinIdle("XCLAIM"))?;
    let mut ids = Vec::new();
    let mut i = 5;
    while i < args.len() {
        match StreamId::parse(args.get(i), 0, true) {
            Ok(id) => ids.push(id),
            Err(_) => break,
        }
        i += 1;
    }
    let mut how = Claim {
        min_idle: min_idle.max(0),
        delivery_time: now,
        retry_count: None,
        force: false,
        just_id: false,
        last_id: StreamId::MIN,
    };
    // IDLE and TIME set it; the last one given counts.
    let mut delivery: Option<i64> = None;
    let number = |at: usize, name: &'static str| {
        parse_i64(args.get(at)).ok_or(StreamError::ClaimOptionValue(name))
    };
    while i < args.len() {
        let opt = args.get(i);
        let more = i + 1 < args.len();
        if opt.eq_ignore_ascii_case(b"force") {
            how.force = true;
        } else if opt.eq_ignore_ascii_case(b"justid") {
            how.just_id = true;
        } else if opt.eq_ignore_ascii_case(b"idle") && more {
            i += 1;
            let idle = number(i, "IDLE")?;
            // Past either end of the range: "bogus", so now (below).
            delivery = Some(i64::try_from(now).map_or(-1, |n| n.checked_sub(idle).unwrap_or(-1)));
        } else if opt.eq_ignore_ascii_case(b"time") && more {
            i += 1;
            delivery = Some(number(i, "TIME")?);
        } else if opt.eq_ignore_ascii_case(b"retrycount") && more {
            i += 1;
            // A negative count is as if none was given.
            how.retry_count = u64::try_from(number(i, "RETRYCOUNT")?).ok();
        } else if opt.eq_ignore_ascii_case(b"lastid") && more {
            i += 1;
            how.last_id = StreamId::parse(args.get(i), 0, true)?;
        } else {
            return Err(StreamError::UnknownClaimOption(lossy(opt)).into());
        }
        i += 1;
    }
    // A time before the epoch or after now is taken as now, as Redis
    // does rather than fail a client whose clock is ahead.
    if let Some(t) = delivery.and_then(|t| u64::try_from(t).ok()) {
        how.delivery_time = t.min(now);
    }
    Ok((ids, how))
}
