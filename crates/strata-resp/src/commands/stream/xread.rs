//! `XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]` and
//! `XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK]
//! STREAMS key [key ...] id [id ...]`, as Redis's `xreadCommand` reads
//! and serves them.
//!
//! With `BLOCK`, a read that finds nothing blocks the connection (see
//! [`crate::blocking`]); `XADD` wakes every reader blocked on its key, and
//! the request runs again. `$` is fixed at the first attempt
//! (`BlockState::stream_ids`), so a re-run waits past the same entry.

use std::time::Duration;

use strata_kv::Store;

use super::entries::{entry, id as write_id};
use super::stored::{edit, has_consumer, read, Edit};
use crate::args::Args;
use crate::blocking::{block_on, parse_timeout_ms, Outcome};
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::{RespError, StreamError};
use crate::stream::{Entry, HistoryItem, StreamId};
use crate::writer::{ReplyWriter, RespVersion};

/// Which of the two commands runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `XREAD`.
    Plain,
    /// `XREADGROUP`.
    Group,
}

/// A parsed request.
struct Request<'a> {
    count: usize,
    /// `None`: no `BLOCK`; `Some(None)`: block forever.
    block: Option<Option<Duration>>,
    noack: bool,
    group: Option<(&'a [u8], &'a [u8])>,
    keys: Vec<&'a [u8]>,
    ids: Vec<&'a [u8]>,
}

/// Where a read starts for one key.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// Entries after this identifier (the consumer's history, for groups).
    After(StreamId),
    /// `>`: entries never delivered to the group.
    New,
}

/// What one key gave.
enum Served {
    Entries(Vec<Entry>),
    History(Vec<HistoryItem>),
}

/// Whether a request of either command asks to block (scripts refuse it).
pub fn asks_to_block(args: &Args<'_>) -> bool {
    (1..args.len())
        .take_while(|&i| !args.get(i).eq_ignore_ascii_case(b"streams"))
        .any(|i| args.get(i).eq_ignore_ascii_case(b"block"))
}

fn parse<'a>(args: &Args<'a>, mode: Mode) -> Result<Request<'a>, RespError> {
    let mut req = Request {
        count: 0,
        block: None,
        noack: false,
        group: None,
        keys: Vec::new(),
        ids: Vec::new(),
    };
    let mut streams_at = None;
    let mut i = 1;
    while i < args.len() {
        let more = args.len() - i - 1;
        let opt = args.get(i);
        if opt.eq_ignore_ascii_case(b"block") && more > 0 {
            i += 1;
            req.block = Some(parse_timeout_ms(args.get(i))?);
        } else if opt.eq_ignore_ascii_case(b"count") && more > 0 {
            i += 1;
            let n = parse_i64(args.get(i)).ok_or(RespError::NotInteger)?;
            req.count = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        } else if opt.eq_ignore_ascii_case(b"streams") && more > 0 {
            if more % 2 != 0 {
                let (command, symbol) = match mode {
                    Mode::Plain => ("xread", '$'),
                    Mode::Group => ("xreadgroup", '>'),
                };
                return Err(StreamError::Unbalanced { command, symbol }.into());
            }
            streams_at = Some(i + 1);
            break;
        } else if opt.eq_ignore_ascii_case(b"group") && more >= 2 {
            if mode == Mode::Plain {
                return Err(StreamError::GroupInXread.into());
            }
            req.group = Some((args.get(i + 1), args.get(i + 2)));
            i += 2;
        } else if opt.eq_ignore_ascii_case(b"noack") {
            if mode == Mode::Plain {
                return Err(StreamError::NoackInXread.into());
            }
            req.noack = true;
        } else {
            return Err(RespError::Syntax);
        }
        i += 1;
    }
    let Some(at) = streams_at else {
        return Err(RespError::Syntax);
    };
    if mode == Mode::Group && req.group.is_none() {
        return Err(StreamError::MissingGroup.into());
    }
    let n = (args.len() - at) / 2;
    req.keys = (at..at + n).map(|i| args.get(i)).collect();
    req.ids = (at + n..args.len()).map(|i| args.get(i)).collect();
    Ok(req)
}

/// Reads the streams (delivering to the group's consumer for
/// `XREADGROUP`); blocks when nothing was found and `BLOCK` was given.
pub fn xread<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    mode: Mode,
) -> Result<(), RespError> {
    let req = parse(&args, mode)?;
    let seq = ctx.shared.waiters.seq(req.keys.iter().copied());
    let starts = resolve(ctx, &req)?;
    let now = ctx.shared.keyspace.now_ms();
    let mut served: Vec<(&[u8], Served)> = Vec::new();
    for (&key, start) in req.keys.iter().zip(&starts) {
        let (got, joined) = serve(ctx.store, key, *start, &req, now)?;
        if joined {
            fire(ctx, notify::STREAM, "xgroup-createconsumer", key);
        }
        if let Some(s) = got {
            served.push((key, s));
        }
    }
    if !served.is_empty() {
        ctx.conn.block.stream_ids = None;
        write_reply(out, &served);
        return Ok(());
    }
    let Some(timeout) = req.block else {
        out.null_array();
        return Ok(());
    };
    if let Some(ids) = starts_to_ids(&starts) {
        ctx.conn.block.stream_ids = Some(ids);
    }
    let can_wait = !ctx.store.is_exclusive();
    let keys = req.keys.iter().map(|&k| Box::from(k));
    match block_on(&mut ctx.conn.block, keys, timeout, seq, can_wait)? {
        Outcome::TimedOut => out.null_array(),
        Outcome::Blocked => {}
    }
    Ok(())
}

/// Each key's start, checking types and groups in Redis's order; a re-run
/// after blocking keeps the identifiers of its first attempt.
fn resolve<S: Store>(ctx: &mut Ctx<'_, S>, req: &Request<'_>) -> Result<Vec<Start>, RespError> {
    if let Some(ids) = &ctx.conn.block.stream_ids {
        if ids.len() == req.keys.len() {
            return Ok(ids.iter().map(|&id| Start::After(id)).collect());
        }
    }
    let mut starts = Vec::with_capacity(req.keys.len());
    for (&key, &id) in req.keys.iter().zip(&req.ids) {
        let found = read(ctx.store, key, |s| {
            let has_group = req.group.is_some_and(|(g, _)| s.group(g).is_some());
            Ok((s.last_id, has_group))
        })?;
        if let Some((group, _)) = req.group {
            if !found.is_some_and(|(_, has)| has) {
                return Err(StreamError::NoGroupRead {
                    key: lossy(key),
                    group: lossy(group),
                }
                .into());
            }
        }
        starts.push(match id {
            b"$" if req.group.is_some() => return Err(StreamError::DollarInGroup.into()),
            b"$" => Start::After(found.map_or(StreamId::MIN, |(last, _)| last)),
            b">" if req.group.is_none() => return Err(StreamError::GreaterOutsideGroup.into()),
            b">" => Start::New,
            _ => Start::After(StreamId::parse(id, 0, true)?),
        });
    }
    Ok(starts)
}

/// The identifiers to keep across a block: every start, when none is `>`.
fn starts_to_ids(starts: &[Start]) -> Option<Vec<StreamId>> {
    starts
        .iter()
        .map(|s| match s {
            Start::After(id) => Some(*id),
            Start::New => None,
        })
        .collect()
}

/// What `key` gives from `start` (`None` when nothing is served from it),
/// and whether that added the reading consumer to its group.
fn serve<S: Store>(
    store: &mut S,
    key: &[u8],
    start: Start,
    req: &Request<'_>,
    now: u64,
) -> Result<(Option<Served>, bool), RespError> {
    let Some((group, consumer)) = req.group else {
        let Start::After(after) = start else {
            return Ok((None, false));
        };
        let Some(from) = after.next() else {
            return Ok((None, false));
        };
        let limit = if req.count == 0 {
            usize::MAX
        } else {
            req.count
        };
        let found = read(store, key, |s| s.range(from, StreamId::MAX, limit, false))?;
        return Ok((found.filter(|e| !e.is_empty()).map(Served::Entries), false));
    };
    let no_group = || StreamError::NoGroupRead {
        key: lossy(key),
        group: lossy(group),
    };
    let mut joined = false;
    let served = edit(store, key, |slot| {
        let stream = slot.as_mut().ok_or_else(no_group)?;
        let was_there = has_consumer(stream, group, consumer);
        let served = match start {
            Start::New => {
                let got = stream.deliver_new(group, consumer, req.count, req.noack, now);
                let got = got?.ok_or_else(no_group)?;
                (!got.is_empty()).then_some(Served::Entries(got))
            }
            Start::After(after) => {
                let from = after.next().unwrap_or(StreamId::MAX);
                let got = stream.deliver_history(group, consumer, from, req.count, now);
                Some(Served::History(got?.ok_or_else(no_group)?))
            }
        };
        joined = !was_there && has_consumer(stream, group, consumer);
        Ok(Edit::Write(served))
    })?;
    Ok((served, joined))
}

fn write_reply(out: &mut ReplyWriter<'_>, served: &[(&[u8], Served)]) {
    let resp3 = out.version() == RespVersion::Resp3;
    if resp3 {
        out.map(served.len());
    } else {
        out.array(served.len());
    }
    for (key, s) in served {
        if !resp3 {
            out.array(2);
        }
        out.bulk(key);
        match s {
            Served::Entries(list) => {
                out.array(list.len());
                list.iter().for_each(|e| entry(out, e));
            }
            Served::History(items) => {
                out.array(items.len());
                for (id, found) in items {
                    match found {
                        Some(e) => entry(out, e),
                        None => {
                            out.array(2);
                            write_id(out, *id);
                            out.null_array();
                        }
                    }
                }
            }
        }
    }
}

/// A key or name for an error line.
pub(super) fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
