//! `run_command`: runs one command that passed its checks, writes its
//! reply or error, and counts it (command statistics, slow log, latency
//! monitor). Shared by the session and `EXEC`, below both.

use strata_kv::Store;
use strata_metrics::Stopwatch;
use strata_service::ClientInfo;

use crate::args::Args;
use crate::command::{CommandSpec, Ctx};
use crate::command_stats;
use crate::dispatch::execute;
use crate::shared::Shared;
use crate::stats::Tally;
use crate::writer::ReplyWriter;

/// Runs a command that passed the checks and writes its reply or error.
pub(crate) fn run_command<S: Store>(
    spec: &'static CommandSpec,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    tally: &mut Tally,
) {
    tally.commands += 1;
    let started = Stopwatch::start();
    let result = execute(spec, ctx, args, out);
    let failed = result.is_err();
    match result {
        Ok(()) if spec.is_write() => tally.writes += 1,
        Ok(()) => {}
        Err(err) => {
            out.error(&err.to_string());
            tally.errors += 1;
        }
    }
    note_call(ctx.shared, &ctx.conn.client, spec, &args, started, failed);
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
