//! `redis.call` and `redis.pcall`: a command run from a script through the
//! same command table, checks and handlers as a client's, with the checks
//! Redis adds for scripts (no `noscript` commands, no writes from a
//! read-only script).

use std::sync::atomic::Ordering;

use bytes::BytesMut;
use strata_kv::Store;
use strata_metrics::Stopwatch;

use crate::acl::log::Context;
use crate::acl::User;
use crate::args::Args;
use crate::call_stats::note_call;
use crate::command::{self, CommandSpec, Ctx};
use crate::command_stats;
use crate::monitor::Source;
use crate::permissions;
use crate::route::execute;
use crate::stats::Tally;
use crate::writer::{ReplyWriter, RespVersion};

pub use super::errors::Failed;
use super::{Access, RunGuard};

const NO_ARGUMENTS: &str = "ERR Please specify at least one argument for this redis lib call";

/// `argv` in one buffer, with each argument's range, as [`Args`] reads it.
fn packed(argv: &[Vec<u8>]) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut buf = Vec::with_capacity(argv.iter().map(Vec::len).sum());
    let mut ranges = Vec::with_capacity(argv.len());
    for arg in argv {
        ranges.push((buf.len(), buf.len() + arg.len()));
        buf.extend_from_slice(arg);
    }
    (buf, ranges)
}

/// `redis.acl_check_cmd`: whether `user` may run `argv` (its command and
/// keys), neither running it nor logging a denial.
pub fn acl_allows(user: &User, argv: &[Vec<u8>]) -> Result<bool, String> {
    let (buf, ranges) = packed(argv);
    let args = Args::new(&buf, &ranges);
    if args.is_empty() {
        return Err(NO_ARGUMENTS.into());
    }
    let Some(spec) = command::lookup(args.get(0)) else {
        return Err("ERR Invalid command passed to redis.acl_check_cmd()".into());
    };
    let effective = spec.effective(&args).unwrap_or(spec);
    Ok(crate::acl::check(user, effective, &args).is_ok())
}

/// What runs before a script's command, once it passed the checks (`SCRIPT
/// DEBUG YES`'s rollback copies what the command will change).
pub trait BeforeCommand {
    /// May refuse the command with an error line.
    fn before<S: Store>(
        &mut self,
        ctx: &mut Ctx<'_, S>,
        spec: &CommandSpec,
        args: &Args<'_>,
    ) -> Result<(), String>;

    /// True when the script's writes are undone at its end (`SCRIPT
    /// DEBUG YES`): they do not make it unkillable.
    fn undoes_writes(&self) -> bool {
        false
    }
}

/// Runs `argv` as `ctx`'s connection, for a script whose command declared
/// `script_keys`; the reply bytes in `version` (`redis.setresp`), or why
/// not. `before` (if any) runs first. Counted as Redis counts its script
/// client's commands: a command that ran in `INFO commandstats` (calls,
/// time, failures), the slow log and the latency monitor, and in the
/// totals of commands and writes; every failure, a check's included, once
/// in the error statistics (a check's also as the command's rejected
/// call).
#[allow(clippy::too_many_arguments)]
pub fn call<S: Store, B: BeforeCommand>(
    ctx: &mut Ctx<'_, S>,
    argv: &[Vec<u8>],
    access: Access,
    guard: &RunGuard<'_>,
    script_keys: &[&[u8]],
    version: RespVersion,
    before: Option<&mut B>,
) -> Result<BytesMut, Failed> {
    let (buf, ranges) = packed(argv);
    let args = Args::new(&buf, &ranges);
    if args.is_empty() {
        // The script's own error (Redis raises it uncounted).
        return Err(NO_ARGUMENTS.into());
    }
    let shared = ctx.shared;
    let result = checked(ctx, &args, access, guard, script_keys, version, before);
    let failed = match &result {
        Ok(reply) => reply.first() == Some(&b'-'),
        Err(_) => true,
    };
    if failed {
        let text = match &result {
            Ok(reply) => String::from_utf8_lossy(reply.get(1..).unwrap_or_default()),
            Err(failed) => failed.text.as_str().into(),
        };
        shared.errorstats.record(text.trim_end().as_bytes());
        shared.stats.record(Tally {
            errors: 1,
            ..Tally::default()
        });
    }
    result.map_err(|failed| Failed {
        counted: true,
        ..failed
    })
}

/// [`call`] past its argument count: the checks, then the command.
#[allow(clippy::too_many_arguments)]
fn checked<S: Store, B: BeforeCommand>(
    ctx: &mut Ctx<'_, S>,
    args: &Args<'_>,
    access: Access,
    guard: &RunGuard<'_>,
    script_keys: &[&[u8]],
    version: RespVersion,
    before: Option<&mut B>,
) -> Result<BytesMut, Failed> {
    let Some(spec) = command::lookup(args.get(0)) else {
        return Err("ERR Unknown Redis command called from script".into());
    };
    let refused = |text: String| {
        if let Some(id) = command_stats::stat_id(spec, args) {
            ctx.shared.commands.reject(id);
        }
        Failed::from(text)
    };
    if !spec.arity_ok(args.len()) {
        return Err(refused(
            "ERR Wrong number of args calling Redis command from script".into(),
        ));
    }
    let effective = spec.effective(args).unwrap_or(spec);
    if spec.flags.contains(&"noscript") || effective.flags.contains(&"noscript") {
        return Err(refused(
            "ERR This Redis command is not allowed from script".into(),
        ));
    }
    if access == Access::ReadOnly && spec.is_write() {
        return Err(refused(
            "ERR Write commands are not allowed from read-only scripts.".into(),
        ));
    }
    if matches!(spec.name, "xread" | "xreadgroup")
        && crate::commands::stream::xread::asks_to_block(args)
    {
        let name = String::from_utf8_lossy(args.get(0)).into_owned();
        return Err(refused(
            crate::reply::StreamError::BlockInScript(name).to_string(),
        ));
    }
    permissions::authorize(ctx.shared, ctx.conn, effective, args, Context::Lua)
        .map_err(|err| refused(err.to_string()))?;
    let mut undone = false;
    if let Some(before) = before {
        before.before(ctx, effective, args)?;
        undone = before.undoes_writes();
    }
    let mut reply = BytesMut::new();
    let mut out = ReplyWriter::new(&mut reply, version);
    let was_in_script = std::mem::replace(&mut ctx.conn.in_script, true);
    let started = Stopwatch::start();
    let ran = execute(spec, ctx, *args, &mut out);
    ctx.conn.in_script = was_in_script;
    let failed = ran.is_err() || out.is_error_at(0);
    note_call(ctx.shared, None, spec, args, started, failed);
    ctx.shared.stats.record(Tally {
        commands: 1,
        writes: u64::from(!failed && spec.is_write()),
        ..Tally::default()
    });
    if ctx.conn.tracking.is_some() {
        crate::tracking::after_script_command(ctx.shared, ctx.conn, effective, script_keys);
    }
    // As Redis's `call()` for its script client: `[0 lua]`.
    let monitors = &ctx.shared.monitors;
    if monitors.active() {
        monitors.command_ran(&ctx.shared.pubsub, Source::Script, spec, args);
    }
    match ran {
        Ok(()) => {
            if spec.is_write() && !undone {
                guard.wrote.store(true, Ordering::Relaxed);
            }
            Ok(reply)
        }
        Err(err) => Err(Failed {
            text: err.to_string(),
            ran: true,
            counted: false,
        }),
    }
}

/// Runs `argv` for the server itself (a rollback's `RESTORE`): no ACL
/// check, no monitor line, the reply dropped.
pub(super) fn internal<S: Store>(ctx: &mut Ctx<'_, S>, argv: &[Vec<u8>]) -> Result<(), String> {
    let (buf, ranges) = packed(argv);
    let args = Args::new(&buf, &ranges);
    let spec = command::lookup(args.get(0)).ok_or("ERR unknown command")?;
    let mut reply = BytesMut::new();
    let mut out = ReplyWriter::new(&mut reply, RespVersion::Resp2);
    execute(spec, ctx, args, &mut out).map_err(|err| err.to_string())
}
