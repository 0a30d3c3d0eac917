//! `XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n] | SETID key
//! group id|$ [ENTRIESREAD n] | DESTROY key group | CREATECONSUMER key
//! group consumer | DELCONSUMER key group consumer | HELP`, in the order
//! of Redis 7.2's `xgroupCommand`: the options first, then the key (its
//! type; its existence unless `MKSTREAM`; the group, for the subcommands
//! that need one), then the subcommand's own arguments.

use strata_kv::Store;

use super::stored::{edit, Edit};
use super::xread::lossy;
use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::notify::{self, fire_created};
use crate::number::parse_i64;
use crate::reply::{lossy_prefix, RespError, StreamError};
use crate::stream::{Group, Stream, StreamId};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
    "HELP",
    "    Print this help.",
];

/// Which subcommand runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sub {
    Create,
    SetId,
    Destroy,
    CreateConsumer,
    DelConsumer,
}

/// The options of `CREATE` and `SETID`.
struct Options {
    mkstream: bool,
    /// `None`: unknown (`-1` or not given), as Redis's
    /// `SCG_INVALID_ENTRIES_READ`.
    entries_read: Option<u64>,
}

/// What a subcommand replies.
enum Reply {
    Ok,
    Int(i64),
}

/// Redis's `addReplySubcommandSyntaxError` for `XGROUP`.
fn syntax(args: &Args<'_>) -> RespError {
    RespError::SubcommandArgs {
        sub: lossy_prefix(args.get(1), 128),
        command: "XGROUP".into(),
    }
}

/// Runs the `XGROUP` subcommand named by `args[1]`.
pub fn xgroup<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let spec = resolve_subcommand("xgroup", &args)?;
    let sub = match spec.name {
        "xgroup|create" => Sub::Create,
        "xgroup|setid" => Sub::SetId,
        "xgroup|destroy" => Sub::Destroy,
        "xgroup|createconsumer" => Sub::CreateConsumer,
        "xgroup|delconsumer" => Sub::DelConsumer,
        _ => {
            write_help(out, HELP);
            return Ok(());
        }
    };
    let opts = options(&args, sub)?;
    let now = ctx.shared.keyspace.now_ms();
    let (key, group) = (args.get(2), args.get(3));
    let no_group = || StreamError::NoGroup {
        group: lossy(group),
        key: lossy(key),
    };
    // Whether the stream was created (MKSTREAM) and whether the command
    // changed anything, for the events.
    let (mut created, mut changed) = (false, false);
    let reply = edit(ctx.store, key, |slot| {
        created = slot.is_none();
        let edited = run(slot, sub, &args, &opts, now, no_group)?;
        changed = matches!(edited, Edit::Write(_));
        Ok(edited)
    })?;
    match reply {
        Reply::Ok => out.ok(),
        Reply::Int(n) => out.integer(n),
    }
    if changed {
        let event = match sub {
            Sub::Create => "xgroup-create",
            Sub::SetId => "xgroup-setid",
            Sub::Destroy => "xgroup-destroy",
            Sub::CreateConsumer => "xgroup-createconsumer",
            Sub::DelConsumer => "xgroup-delconsumer",
        };
        fire_created(ctx, created, notify::STREAM, event, key);
    }
    if sub == Sub::Destroy && matches!(reply, Reply::Int(1)) {
        // Readers blocked on the group run again and find it gone.
        ctx.shared.waiters.pushed_all(key);
    }
    Ok(())
}

/// Runs subcommand `sub` on the stream in `slot`.
fn run(
    slot: &mut Option<Stream<'_>>,
    sub: Sub,
    args: &Args<'_>,
    opts: &Options,
    now: u64,
    no_group: impl Fn() -> StreamError,
) -> Result<Edit<Reply>, RespError> {
    let group = args.get(3);
    {
        if !opts.mkstream {
            let stream = slot.as_ref().ok_or(StreamError::GroupNeedsKey)?;
            let needs_group = matches!(sub, Sub::SetId | Sub::CreateConsumer | Sub::DelConsumer);
            if needs_group && stream.group(group).is_none() {
                return Err(no_group().into());
            }
        }
        if sub == Sub::Create {
            return create(slot, args, opts);
        }
        // Every other subcommand found the stream above.
        let stream = slot.as_mut().ok_or(StreamError::GroupNeedsKey)?;
        if sub == Sub::Destroy {
            return Ok(match stream.remove_group(group)? {
                true => Edit::Write(Reply::Int(1)),
                false => Edit::Keep(Reply::Int(0)),
            });
        }
        if sub == Sub::SetId {
            return set_id(stream, args, opts);
        }
        let mut pel = stream.pel(group).ok_or_else(no_group)?;
        let consumer = args.get(4);
        Ok(if sub == Sub::CreateConsumer {
            match pel.group.consumer_or_create(consumer, now).1 {
                true => Edit::Write(Reply::Int(1)),
                false => Edit::Keep(Reply::Int(0)),
            }
        } else {
            match pel.remove_consumer(consumer)? {
                Some(n) => Edit::Write(Reply::Int(i64::try_from(n).unwrap_or(i64::MAX))),
                None => Edit::Keep(Reply::Int(0)),
            }
        })
    }
}

/// Reads `MKSTREAM` (`CREATE`) and `ENTRIESREAD` (`CREATE`, `SETID`) from
/// `args[5..]`, refusing anything else.
fn options(args: &Args<'_>, sub: Sub) -> Result<Options, RespError> {
    let mut opts = Options {
        mkstream: false,
        entries_read: None,
    };
    let takes_id = matches!(sub, Sub::Create | Sub::SetId);
    let mut i = 5;
    while i < args.len() {
        let opt = args.get(i);
        if sub == Sub::Create && opt.eq_ignore_ascii_case(b"mkstream") {
            opts.mkstream = true;
            i += 1;
        } else if takes_id && opt.eq_ignore_ascii_case(b"entriesread") && i + 1 < args.len() {
            let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
            if n < -1 {
                return Err(StreamError::EntriesRead.into());
            }
            opts.entries_read = u64::try_from(n).ok();
            i += 2;
        } else {
            return Err(syntax(args));
        }
    }
    Ok(opts)
}

/// `CREATE`: the group at `args[4]` (`$`: the stream's last identifier,
/// `0-0` for a stream `MKSTREAM` creates), the stream created if missing.
fn create(
    slot: &mut Option<Stream<'_>>,
    args: &Args<'_>,
    opts: &Options,
) -> Result<Edit<Reply>, RespError> {
    if args.len() > 8 {
        return Err(syntax(args));
    }
    let id = match args.get(4) {
        b"$" => slot.as_ref().map_or(StreamId::MIN, |s| s.last_id),
        arg => StreamId::parse(arg, 0, true)?,
    };
    // Only now can the command no longer fail for its arguments.
    let stream = slot.get_or_insert_with(Stream::default);
    if !stream.add_group(Group::new(args.get(3), id, opts.entries_read)) {
        return Err(StreamError::BusyGroup.into());
    }
    Ok(Edit::Write(Reply::Ok))
}

/// `SETID`: the group's last delivered identifier (`$`: the stream's
/// last; `-` and `+` allowed, as Redis reads it) and read counter.
fn set_id(stream: &mut Stream, args: &Args<'_>, opts: &Options) -> Result<Edit<Reply>, RespError> {
    if args.len() != 5 && args.len() != 7 {
        return Err(syntax(args));
    }
    let id = match args.get(4) {
        b"$" => stream.last_id,
        arg => StreamId::parse_plain(arg)?,
    };
    let Some(g) = stream.group_mut(args.get(3)) else {
        return Err(StreamError::NoGroup {
            group: lossy(args.get(3)),
            key: lossy(args.get(2)),
        }
        .into());
    };
    g.last_id = id;
    g.entries_read = opts.entries_read;
    Ok(Edit::Write(Reply::Ok))
}
