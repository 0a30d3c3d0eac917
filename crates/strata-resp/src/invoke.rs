//! `run_command`: runs one command that passed its checks, writes its
//! reply or error, counts it (command statistics, slow log, latency
//! monitor) and feeds it to the monitors ([`Feed`]). Shared by the session
//! and `EXEC`, below both.

use strata_kv::Store;
use strata_metrics::Stopwatch;
use strata_service::ClientInfo;

use crate::args::Args;
use crate::command::{CommandSpec, Ctx};
use crate::command_stats;
use crate::connection::Connection;
use crate::dispatch::execute;
use crate::monitor::Source;
use crate::shared::Shared;
use crate::stats::Tally;
use crate::writer::ReplyWriter;

/// Runs a command that passed the checks and writes its reply or error;
/// `feed` ([`Feed::begin`], taken by the caller) when anyone monitors.
pub(crate) fn run_command<S: Store>(
    spec: &'static CommandSpec,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    tally: &mut Tally,
    feed: Option<Feed>,
) {
    tally.commands += 1;
    if let Some(feed) = feed {
        feed.before(ctx.shared, ctx.conn, spec, &args);
    }
    let started = Stopwatch::start();
    let result = execute(spec, ctx, args, out);
    let failed = result.is_err();
    if ctx.conn.tracking.is_some() && !strata_kv::fetch::deferred() {
        crate::tracking::after_command(ctx.shared, ctx.conn, spec, &args, !failed);
    }
    match result {
        Ok(()) if spec.is_write() => tally.writes += 1,
        Ok(()) => {}
        Err(err) => {
            out.error(&err.to_string());
            tally.errors += 1;
        }
    }
    // A blocked attempt counts when its request is answered (Redis counts
    // a blocked command once, when it is served or times out).
    if ctx.conn.block.wait.is_none() {
        note_call(ctx.shared, &ctx.conn.client, spec, &args, started, failed);
    }
    if let Some(feed) = feed {
        feed.after(ctx.shared, ctx.conn, spec, &args);
    }
}

/// A client's command on its way to the monitors: taken before it runs,
/// and only when someone monitors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Feed {
    /// A blocked command's later attempt: Redis fed its first.
    again: bool,
}

impl Feed {
    /// `Some` when anyone monitors. Nobody monitoring costs a command
    /// this one relaxed load; callers take it once per command and pass
    /// it on.
    #[inline]
    pub(crate) fn begin(shared: &Shared, conn: &Connection) -> Option<Feed> {
        if !shared.monitors.active() {
            return None;
        }
        Some(Feed {
            again: conn.block.deadline.is_some(),
        })
    }

    /// Before the command runs: `EVAL`, `FCALL` and their forms are fed
    /// now, so the commands their script runs follow them (Redis's
    /// `evalCommand` and `fcallCommandGeneric` do the same).
    fn before(
        self,
        shared: &Shared,
        conn: &Connection,
        spec: &'static CommandSpec,
        args: &Args<'_>,
    ) {
        if spec.runs_script() && !self.again {
            let source = Source::Client(conn.client.addr);
            shared.monitors.feed(&shared.pubsub, source, args);
        }
    }

    /// After the command ran: fed unless Redis hides it. Fed once per
    /// request: not on a blocked command's later attempts, nor on an
    /// attempt whose values are being read from the SSD tier (the request
    /// runs again and is fed then) unless that attempt blocked.
    pub(crate) fn after(
        self,
        shared: &Shared,
        conn: &Connection,
        spec: &'static CommandSpec,
        args: &Args<'_>,
    ) {
        if self.again {
            return;
        }
        let deferred = shared.keyspace.ssd().is_some() && strata_kv::fetch::deferred();
        if deferred && conn.block.deadline.is_none() {
            return;
        }
        let source = Source::Client(conn.client.addr);
        shared
            .monitors
            .command_ran(&shared.pubsub, source, spec, args);
    }
}

/// Counts a call that ran since `started` in the command's statistics
/// and, if slow enough, in the slow log and the latency monitor (as
/// Redis's `call()`: a `fast` command's sample is a `fast-command` event,
/// any other's a `command` event; a container's flags are its
/// subcommand's). A call whose values are being read from the SSD tier
/// runs again and counts then.
pub(crate) fn note_call(
    shared: &Shared,
    client: &ClientInfo,
    spec: &'static CommandSpec,
    args: &Args<'_>,
    started: Stopwatch,
    failed: bool,
) {
    let nanos = started.elapsed_nanos();
    if shared.keyspace.ssd().is_some() && strata_kv::fetch::deferred() {
        return;
    }
    if let Some(id) = command_stats::stat_id(spec, args) {
        shared.commands.record(id, nanos, failed);
    }
    if let Some(ms) = shared.latency.sample_ms(nanos) {
        let event = match command_stats::counted_spec(spec, args)
            .flags
            .contains(&"fast")
        {
            true => "fast-command",
            false => "command",
        };
        shared.latency.add(event, ms);
    }
    if shared.slowlog.is_slow(nanos) && !spec.flags.contains(&"skip_slowlog") {
        shared.slowlog.push(nanos, args, client);
    }
}
