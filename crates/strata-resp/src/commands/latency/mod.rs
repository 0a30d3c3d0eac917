//! `LATENCY LATEST | HISTORY | RESET | GRAPH | DOCTOR | HISTOGRAM | HELP`,
//! as Redis 7.2's `latencyCommand`, over the front end's latency monitor
//! ([`crate::latency`]: `command` and `fast-command` events, recorded
//! from `latency-monitor-threshold` on) and its per-command latency
//! histograms (`INFO latencystats`'s). `doctor.rs` writes the report,
//! `graph.rs` draws the graph.

mod doctor;
mod graph;

use strata_kv::Store;

use crate::acl::command_set;
use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::command_stats::histogram_usec;
use crate::commands::client::write_help;
use crate::latency::{unix_secs, Sample};
use crate::reply::{lossy_prefix, RespError};
use crate::shared::Shared;
use crate::spec::CommandSpec;
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DOCTOR",
    "    Return a human readable latency analysis report.",
    "GRAPH <event>",
    "    Return an ASCII latency graph for the <event> class.",
    "HISTORY <event>",
    "    Return time-latency samples for the <event> class.",
    "LATEST",
    "    Return the latest latency samples for all events.",
    "RESET [<event> ...]",
    "    Reset latency data of one or more <event> classes.",
    "    (default: reset all data for all event classes)",
    "HISTOGRAM [COMMAND ...]",
    "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
    "    If no commands are specified then all histograms are replied.",
    "HELP",
    "    Print this help.",
];

/// `LATENCY <subcommand>`.
pub fn latency<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("latency", &args)?;
    let shared = ctx.shared;
    let monitor = &shared.latency;
    match sub.name {
        "latency|latest" => {
            let all = monitor.all();
            out.array(all.len());
            for series in all {
                let latest = series.latest();
                out.array(4);
                out.bulk(series.event.as_bytes());
                out.integer(seconds(latest.time));
                out.integer(i64::from(latest.latency_ms));
                out.integer(i64::from(series.max_ms));
            }
        }
        "latency|history" => {
            let samples = monitor
                .series(args.get(2))
                .map_or(Vec::new(), |s| s.samples);
            out.array(samples.len());
            for Sample { time, latency_ms } in samples {
                out.array(2);
                out.integer(seconds(time));
                out.integer(i64::from(latency_ms));
            }
        }
        "latency|reset" => {
            let resets = match args.len() {
                2 => monitor.reset(None),
                _ => args.iter_from(2).map(|e| monitor.reset(Some(e))).sum(),
            };
            out.integer(i64::try_from(resets).unwrap_or(i64::MAX));
        }
        "latency|graph" => {
            let series = monitor
                .series(args.get(2))
                .ok_or_else(|| RespError::NoSamples(lossy_prefix(args.get(2), 128)))?;
            out.verbatim("txt", graph::graph(&series, unix_secs()).as_bytes());
        }
        "latency|doctor" => {
            let inputs = doctor::Inputs {
                events: monitor.all(),
                threshold_ms: monitor.threshold_ms(),
                slowlog_us: shared.slowlog.slower_than(),
                huge_pages: doctor::has_huge_pages(),
                now: unix_secs(),
            };
            out.verbatim("txt", doctor::report(&inputs).as_bytes());
        }
        "latency|histogram" => histograms(shared, &args, out),
        _ => write_help(out, HELP),
    }
    Ok(())
}

fn seconds(time: u64) -> i64 {
    i64::try_from(time).unwrap_or(i64::MAX)
}

/// `LATENCY HISTOGRAM [command ...]`: a map from each command with calls
/// counted (every one without arguments) to its calls and histogram.
/// Named as Redis looks them up: `name` or `container|sub`, any case; a
/// container brings its subcommands' histograms too; unknown names are
/// skipped, and a name given twice answers twice.
fn histograms(shared: &Shared, args: &Args<'_>, out: &mut ReplyWriter<'_>) {
    let mut rows: Vec<&'static CommandSpec> = Vec::new();
    if args.len() == 2 {
        rows.extend(command_set::all().iter().copied());
    }
    for name in args.iter_from(2) {
        let Some(spec) = std::str::from_utf8(name)
            .ok()
            .and_then(command_set::by_name)
        else {
            continue;
        };
        rows.push(spec);
        rows.extend(spec.subcommands.iter());
    }
    let with_data: Vec<_> = rows
        .into_iter()
        .filter_map(|spec| {
            let latency = shared.commands.get(command_set::id_of(spec)?)?.latency;
            (latency.count > 0).then_some((spec.name, latency))
        })
        .collect();
    out.map(with_data.len());
    for (name, latency) in with_data {
        out.bulk(name.as_bytes());
        out.map(2);
        out.bulk(b"calls");
        out.integer(i64::try_from(latency.count).unwrap_or(i64::MAX));
        out.bulk(b"histogram_usec");
        let buckets = histogram_usec(&latency);
        out.map(buckets.len());
        for (usec, count) in buckets {
            out.integer(i64::try_from(usec).unwrap_or(i64::MAX));
            out.integer(i64::try_from(count).unwrap_or(i64::MAX));
        }
    }
}
