//! One request of a RESP session: the checks Redis makes before `call()`
//! (known name, arity, authentication, subscribed mode, ACL permissions),
//! then the command run, queued inside `MULTI`, or refused.

use strata_kv::ExclusiveStore;
use strata_metrics::Stopwatch;

use crate::acl::log::Context;
use crate::args::Args;
use crate::blocking::Served;
use crate::call_stats::note_call;
use crate::cluster;
use crate::command::{self, Command, CommandSpec, Ctx};
use crate::command_stats;
use crate::commands::list::bpop;
use crate::commands::{debug, multi, quit, shutdown, watch};
use crate::connection::Connection;
use crate::invoke::{run_command, Feed};
use crate::key_args::key_args;
use crate::monitor::allowed_while_monitoring;
use crate::permissions::{self, is_authenticated};
use crate::reply::{ClientError, RespError};
use crate::shared::Shared;
use crate::stats::Tally;
use crate::writer::{ReplyWriter, RespVersion};

/// Runs one request: the checks Redis makes before `call()`, then the
/// command (or queues it inside `MULTI`).
pub(super) fn run(
    shared: &Shared,
    conn: &mut Connection,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    tally: &mut Tally,
) {
    // Changes this command makes are its client's (`CLIENT TRACKING`'s
    // NOLOOP); nobody tracking costs one relaxed load.
    let _running = shared
        .tracking
        .any()
        .then(|| crate::tracking::running(conn.client.id));
    if !permissions::refresh(shared, conn) {
        // The user was deleted: close without running anything more.
        conn.close = true;
        return;
    }
    let Some(spec) = command::lookup(args.get(0)) else {
        let err = RespError::unknown_command(args.get(0), args.iter_from(1));
        return refuse(conn, out, tally, err);
    };
    if !spec.arity_ok(args.len()) {
        let err = RespError::WrongArity(spec.name.to_string());
        return reject(shared, conn, spec, &args, out, tally, err);
    }
    if !spec.no_auth() && !is_authenticated(shared, conn) {
        return reject(shared, conn, spec, &args, out, tally, RespError::NoAuth);
    }
    if conn.version == RespVersion::Resp2 && conn.pubsub.active() && !allowed_subscribed(spec) {
        let err = RespError::SubscribedMode(spec.name.to_string());
        return reject(shared, conn, spec, &args, out, tally, err);
    }
    if let Some(effective) = spec.effective(&args) {
        if !effective.arity_ok(args.len()) {
            let err = RespError::WrongArity(effective.name.to_string());
            return reject(shared, conn, spec, &args, out, tally, err);
        }
        let context = match conn.transaction {
            Some(_) => Context::Multi,
            None => Context::TopLevel,
        };
        if let Err(err) = permissions::authorize(shared, conn, effective, &args, context) {
            return reject(shared, conn, spec, &args, out, tally, err);
        }
    }
    if let Some(err) = cross_slot(shared, conn, spec, &args) {
        if spec.command == Command::Exec {
            // As Redis: the transaction is discarded with the refusal.
            multi::abandon(conn);
        }
        return reject(shared, conn, spec, &args, out, tally, err);
    }
    // CLIENT NO-TOUCH: what this command reads keeps its access records
    // (TOUCH itself still touches).
    let _untouched =
        (conn.peer.no_touch() && spec.command != Command::Touch).then(strata_kv::untouched);
    // Nobody monitoring costs one relaxed load; a monitor is then known
    // to exist, and this may be it (Redis refuses a monitor, marked as a
    // replica, every command on the keyspace).
    let feed = Feed::begin(shared, conn);
    if feed.is_some() && conn.monitoring && !allowed_while_monitoring(spec, &args) {
        let err = RespError::MonitorKeyspace;
        return reject(shared, conn, spec, &args, out, tally, err);
    }
    // CLIENT LIST shows `client|list`-style names for container commands.
    let shown = match spec.subcommands {
        [] => spec.name,
        _ => spec
            .subcommand(args.get(1))
            .map_or(spec.name, |sub| sub.name),
    };
    conn.client.touch(shown);
    conn.peer.set_argv_mem(args.byte_len());
    match spec.command {
        // EXEC holds every shard locked: a checkpoint inside could not scan;
        // SHUTDOWN closes the connection, SYNC sends a file and closes it
        // (Redis flags them all `no_multi`).
        Command::Save | Command::Shutdown | Command::Sync | Command::PSync
            if conn.transaction.is_some() =>
        {
            reject(
                shared,
                conn,
                spec,
                &args,
                out,
                tally,
                RespError::NotInTransaction,
            )
        }
        Command::Multi
        | Command::Exec
        | Command::Discard
        | Command::Watch
        | Command::Quit
        | Command::Reset
        | Command::Shutdown => {
            let started = Stopwatch::start();
            let reply_start = out.position();
            match spec.command {
                Command::Multi => multi::multi(conn, out, tally),
                Command::Exec => multi::exec(shared, conn, out, tally),
                Command::Discard => multi::discard(conn, out, tally),
                Command::Watch => watch::watch(shared, conn, args, out, tally),
                Command::Quit => quit::quit(shared, conn, out, tally),
                Command::Shutdown => shutdown::shutdown(shared, conn, args, out, tally),
                _ => quit::reset(shared, conn, out, tally),
            }
            let failed = out.is_error_at(reply_start);
            note_call(shared, Some(&conn.client), spec, &args, started, failed);
            // After the queued commands `EXEC` ran; `RESET` has left the
            // monitors by now, as in Redis.
            if let Some(feed) = feed {
                feed.after(shared, conn, spec, &args);
            }
        }
        _ if conn.transaction.is_some() => multi::queue(conn, spec, args, out, tally),
        // A script holds the whole keyspace, as EXEC does; so do an
        // allowed DEBUG (a digest is one snapshot, SLEEP stops every
        // command) and a SYNC's snapshot (a refused one takes no lock).
        // Each may hold it for long: other workers' requests in flight end
        // first, and later ones wait without blocking their thread.
        // A script begins in place, as in Redis (most end in microseconds),
        // unless another holder has the keyspace; one that runs long
        // hands this worker's other connections off (`scripting::lua`).
        command if holds_keyspace(shared, conn, command) => {
            let run = |store: &mut ExclusiveStore<'_>| {
                let mut ctx = Ctx {
                    store,
                    shared,
                    conn,
                };
                run_command(spec, &mut ctx, args, out, tally, feed);
            };
            if !multi::runs_a_script(command) {
                off_worker(|| shared.keyspace.exclusive_drained(run));
                return;
            }
            // A script takes its declared keys' shards at once and any
            // other shard as it reaches it (all of them for `KEYS`,
            // `DBSIZE`, `FLUSHALL`, ...), with the gate closed throughout.
            let keys = script_keys(spec, &args);
            let keys = || keys.iter().copied();
            if let Err(run) = shared.keyspace.try_exclusive_drained_keys(keys(), run) {
                off_worker(|| shared.keyspace.exclusive_drained_keys(keys(), run));
            }
        }
        _ => {
            let mut store = shared.keyspace.store();
            let mut ctx = Ctx {
                store: &mut store,
                shared,
                conn,
            };
            run_command(spec, &mut ctx, args, out, tally, feed);
        }
    }
}

/// Answers a blocked `BLPOP`/`BRPOP` with the element a push handed it
/// (`blocking::ServeSlot`), counting the call in its statistics as its
/// run would have.
pub(super) fn answer_served(
    shared: &Shared,
    conn: &Connection,
    args: Args<'_>,
    served: &Served,
    out: &mut ReplyWriter<'_>,
) {
    let started = Stopwatch::start();
    bpop::reply_served(out, &served.key, &served.element);
    if let Some(spec) = command::lookup(args.get(0)) {
        note_call(shared, Some(&conn.client), spec, &args, started, false);
    }
}

/// The keys a script's command declares (none when its `numkeys` is not a
/// count of the arguments: the command refuses it).
fn script_keys<'a>(spec: &CommandSpec, args: &Args<'a>) -> Vec<&'a [u8]> {
    key_args(spec, args).map_or_else(Vec::new, |keys| {
        keys.into_iter().map(|(at, _)| args.get(at)).collect()
    })
}

/// Whether `command` runs with the whole keyspace held: scripts always,
/// `DEBUG` once `enable-debug-command` allows it, `SYNC`/`PSYNC` of an
/// RDB snapshot.
pub(super) fn holds_keyspace(shared: &Shared, conn: &Connection, command: Command) -> bool {
    match command {
        Command::Debug => debug::allowed(shared, conn),
        Command::Sync | Command::PSync => conn.snapshot.rdb_only,
        command => multi::runs_a_script(command),
    }
}

/// In cluster mode, `CROSSSLOT` for a request (an `EXEC`: the commands it
/// queued) whose keys hash to different slots.
fn cross_slot(
    shared: &Shared,
    conn: &Connection,
    spec: &'static CommandSpec,
    args: &Args<'_>,
) -> Option<RespError> {
    shared.cluster.get()?;
    let slot = match (spec.command, conn.transaction.as_ref()) {
        (Command::Exec, Some(tx)) => cluster::transaction_slot(tx),
        _ => cluster::request_slot(spec.effective(args).unwrap_or(spec), args),
    };
    slot.err().map(|_| ClientError::CrossSlot.into())
}

/// Runs `f` (a section holding every shard, or waiting for it) where
/// blocking is allowed: on a multi-thread runtime the worker's other
/// connections move to another thread meanwhile, so `SCRIPT KILL` can
/// still be served.
fn off_worker<R>(f: impl FnOnce() -> R) -> R {
    strata_service::workers::block_in_place(f)
}

/// What a RESP2 connection may run while subscribed.
fn allowed_subscribed(spec: &CommandSpec) -> bool {
    matches!(
        spec.command,
        Command::Subscribe
            | Command::Unsubscribe
            | Command::PSubscribe
            | Command::PUnsubscribe
            | Command::SSubscribe
            | Command::SUnsubscribe
            | Command::Ping
            | Command::Quit
            | Command::Reset
    )
}

/// Answers a known command refused before running, counting the refusal
/// in its statistics (Redis's `rejected_calls`).
fn reject(
    shared: &Shared,
    conn: &mut Connection,
    spec: &'static CommandSpec,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
    tally: &mut Tally,
    err: RespError,
) {
    if let Some(id) = command_stats::stat_id(spec, args) {
        shared.commands.reject(id);
    }
    refuse(conn, out, tally, err);
}

/// Answers a command refused before running; inside `MULTI` this dooms the
/// transaction, as in Redis.
fn refuse(conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally, err: RespError) {
    if let Some(tx) = conn.transaction.as_mut() {
        tx.dirty = true;
    }
    out.error(&err.to_string());
    tally.errors += 1;
}
