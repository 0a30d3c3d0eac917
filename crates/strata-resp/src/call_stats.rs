//! [`note_call`]: one call counted where Redis's `call()` counts it (the
//! command statistics, the latency monitor, the slow log), for a client's
//! command and for one a script runs alike. Below the dispatcher, so that
//! scripts' `redis.call` can count without importing it.

use strata_metrics::Stopwatch;
use strata_service::ClientInfo;

use crate::args::Args;
use crate::command::CommandSpec;
use crate::command_stats;
use crate::shared::Shared;

/// Counts a call that ran since `started` in the command's statistics
/// and, if slow enough, in the slow log and the latency monitor (as
/// Redis's `call()`: a `fast` command's sample is a `fast-command` event,
/// any other's a `command` event; a container's flags are its
/// subcommand's). A call whose values are being read from the SSD tier
/// runs again and counts then. `client` is `None` for a command a script
/// ran.
pub(crate) fn note_call(
    shared: &Shared,
    client: Option<&ClientInfo>,
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
