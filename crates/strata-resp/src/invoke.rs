//! `run_command`: runs one command that passed its checks, writes its
//! reply or error, counts it ([`note_call`]: command statistics, slow
//! log, latency monitor) and feeds it to the monitors ([`Feed`]). Shared
//! by the session and `EXEC`, below both.

use strata_kv::Store;
use strata_metrics::Stopwatch;

use crate::args::Args;
use crate::call_stats::note_call;
use crate::command::{CommandSpec, Ctx};
use crate::connection::Connection;
use crate::dispatch::execute;
use crate::monitor::Source;
use crate::reply::RespError;
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
    let reply_start = out.position();
    let result = execute(spec, ctx, args, out);
    // An error reply counts as a failed call however it was written (a
    // script's returned error table, say), as in Redis.
    let failed = result.is_err() || out.is_error_at(reply_start);
    if ctx.conn.tracking.is_some() && !strata_kv::fetch::deferred() {
        crate::tracking::after_command(ctx.shared, ctx.conn, spec, &args, result.is_ok());
    }
    match result {
        Ok(()) if spec.is_write() => tally.writes += 1,
        Ok(()) => {}
        // A script's error that re-raises a failed command's: counted
        // when that command failed (Redis's `ignore_error_stats_update`).
        Err(RespError::ScriptCounted(text)) => out.error_uncounted(&text),
        Err(err) => {
            out.error(&err.to_string());
            tally.errors += 1;
        }
    }
    // A blocked attempt counts when its request is answered (Redis counts
    // a blocked command once, when it is served or times out).
    if ctx.conn.block.wait.is_none() {
        note_call(
            ctx.shared,
            Some(&ctx.conn.client),
            spec,
            &args,
            started,
            failed,
        );
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
