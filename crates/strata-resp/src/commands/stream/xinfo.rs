//! `XINFO STREAM key [FULL [COUNT count]] | GROUPS key | CONSUMERS key
//! group | HELP`, as Redis 7.2's `xinfoCommand`: the key is looked up
//! (`no such key`, `WRONGTYPE`) before a subcommand reads its arguments.
//! Each group and consumer is a map (RESP3; a flat array in RESP2) with
//! Redis 7.2's fields: a group's `entries-read` and `lag`, a consumer's
//! `inactive` (milliseconds since its last successful interaction, -1
//! before any). `STREAM` is written by `info_stream.rs`.

use strata_kv::Store;

use super::entries::{entries_read, id as write_id, int, lag};
use super::info_stream;
use super::stored::read;
use super::xread::lossy;
use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::reply::{RespError, StreamError};
use crate::stream::{elapsed, Group, Stream};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CONSUMERS <key> <groupname>",
    "    Show consumers of <groupname>.",
    "GROUPS <key>",
    "    Show the stream consumer groups.",
    "STREAM <key> [FULL [COUNT <count>]",
    "    Show information about the stream.",
    "HELP",
    "    Print this help.",
];

/// Runs the `XINFO` subcommand named by `args[1]`.
pub fn xinfo<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let spec = resolve_subcommand("xinfo", &args)?;
    if spec.name == "xinfo|help" {
        write_help(out, HELP);
        return Ok(());
    }
    let key = args.get(2);
    let now = ctx.shared.keyspace.now_ms();
    let done = read(ctx.store, key, |s| match spec.name {
        "xinfo|consumers" => {
            let group = args.get(3);
            let g = s.group(group).ok_or_else(|| StreamError::NoGroup {
                group: lossy(group),
                key: lossy(key),
            })?;
            consumers(out, g, now);
            Ok(())
        }
        "xinfo|groups" => {
            groups(out, s);
            Ok(())
        }
        _ => info_stream::write(out, s, &args),
    })?;
    done.ok_or(RespError::NoSuchKey)
}

/// `GROUPS`: each group's name, consumers, pending entries, last
/// delivered identifier, read counter and lag, in name order.
fn groups(out: &mut ReplyWriter<'_>, s: &Stream<'_>) {
    out.array(s.groups.len());
    for g in &s.groups {
        out.map(6);
        out.bulk(b"name");
        out.bulk(&g.name);
        out.bulk(b"consumers");
        out.integer(int(g.consumers.len() as u64));
        out.bulk(b"pending");
        out.integer(int(g.pending));
        out.bulk(b"last-delivered-id");
        write_id(out, g.last_id);
        out.bulk(b"entries-read");
        entries_read(out, g);
        out.bulk(b"lag");
        lag(out, s, g);
    }
}

/// `CONSUMERS`: each consumer's name, pending entries, idle time (since
/// last seen, never below 0) and inactive time (since last active, -1
/// before any; not clamped, as in Redis), in name order.
fn consumers(out: &mut ReplyWriter<'_>, g: &Group, now: u64) {
    out.array(g.consumers.len());
    for c in &g.consumers {
        out.map(4);
        out.bulk(b"name");
        out.bulk(&c.name);
        out.bulk(b"pending");
        out.integer(int(c.pending));
        out.bulk(b"idle");
        out.integer(elapsed(now, c.seen_time).max(0));
        out.bulk(b"inactive");
        out.integer(c.active_time.map_or(-1, |t| elapsed(now, t)));
    }
}
