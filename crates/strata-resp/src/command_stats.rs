//! Per-command statistics of the RESP front end: a
//! [`strata_metrics::CommandTable`] indexed by the command table's dense
//! ids (the ones ACLs use, `acl::command_set`), counted under the name
//! Redis uses (`get`, `client|list`), and the `INFO commandstats` and
//! `INFO latencystats` sections rendered from it. The metrics port
//! exports the same table.

use std::fmt::Write as _;

use strata_metrics::{CommandTable, HistogramSnapshot};

use crate::acl::command_set;
use crate::args::Args;
use crate::command::CommandSpec;

/// Percentiles `INFO latencystats` reports (Redis's default
/// `latency-tracking-info-percentiles`).
const PERCENTILES: [(&str, f64); 3] = [("50", 50.0), ("99", 99.0), ("99.9", 99.9)];

/// An empty table with a row per command and subcommand.
pub fn new_table() -> CommandTable {
    CommandTable::new(command_set::all().iter().map(|spec| spec.name))
}

/// The row a call of `spec` with `args` counts under: the subcommand's
/// for a container command (`config|get`), else the command's own.
pub fn counted_spec(spec: &'static CommandSpec, args: &Args<'_>) -> &'static CommandSpec {
    match spec.subcommands {
        [] => spec,
        _ => spec.subcommand(args.get(1)).unwrap_or(spec),
    }
}

/// The id in the table of the row a call of `spec` with `args` counts
/// under ([`counted_spec`]).
pub fn stat_id(spec: &'static CommandSpec, args: &Args<'_>) -> Option<usize> {
    command_set::id_of(counted_spec(spec, args))
}

/// `INFO commandstats`: one line per command called or refused.
pub fn render_commandstats(table: &CommandTable, t: &mut String) {
    for (name, s) in table.used() {
        let per_call = match s.calls {
            0 => 0.0,
            calls => s.latency.sum_nanos as f64 / 1000.0 / calls as f64,
        };
        let _ = write!(
            t,
            "cmdstat_{name}:calls={},usec={},usec_per_call={per_call:.2},rejected_calls={},failed_calls={}\r\n",
            s.calls,
            s.usec(),
            s.rejected,
            s.failed
        );
    }
}

/// `INFO latencystats`: latency percentiles of every command called, in
/// microseconds (the upper end of the histogram bucket holding the
/// rank, within 12.5%).
pub fn render_latencystats(table: &CommandTable, t: &mut String) {
    for (name, s) in table.used() {
        if s.calls == 0 {
            continue;
        }
        let _ = write!(t, "latency_percentiles_usec_{name}:");
        for (i, (label, pct)) in PERCENTILES.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let usec = s.latency.percentile_nanos(*pct) as f64 / 1000.0;
            let _ = write!(t, "{sep}p{label}={usec:.3}");
        }
        t.push_str("\r\n");
    }
}

/// Levels of `LATENCY HISTOGRAM` below its last: every power of two
/// from 1,024 ns to 2^29 ns (Redis's log iteration from 1,024 ns by
/// factors of 2, up to the last level under its 1 s maximum).
const HISTOGRAM_LEVELS: usize = 20;

/// The label of the last level, which holds everything above the others
/// (Redis's histogram ends at 1 s: the highest value it tells apart,
/// 1,073,741,823 ns, in µs).
const HISTOGRAM_TOP_USEC: u64 = 1_073_741;

/// A command's latencies as Redis 7's `LATENCY HISTOGRAM` reports them
/// (`fillCommandCDF`): at each power-of-two level, the calls that took up
/// to it, labelled with the level's upper end in µs as Redis's histogram
/// has it (1, 2, 4, 8, 16, 33, 66, ...), each level only where the count
/// grew. Strata's histogram has every power of two as a bucket edge, so
/// the counts are exact at 2^k ns, where Redis's reach 2^k + 2^(k-7) - 1.
pub fn histogram_usec(latency: &HistogramSnapshot) -> Vec<(u64, u64)> {
    let levels = latency
        .cumulative_seconds()
        .into_iter()
        .take(HISTOGRAM_LEVELS)
        .enumerate()
        .map(|(i, (_, count))| {
            let level = 1u64 << (10 + i);
            ((level + level / 128 - 1) / 1000, count)
        })
        .chain([(HISTOGRAM_TOP_USEC, latency.count)]);
    let mut previous = 0;
    let mut out = Vec::new();
    for (usec, count) in levels {
        if count > previous {
            out.push((usec, count));
        }
        previous = count;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::lookup;

    #[test]
    fn histogram_levels_are_redis_ones() {
        let table = new_table();
        for nanos in [300, 1_500, 1_600, 40_000, 700_000_000, 5_000_000_000] {
            table.record(0, nanos, false);
        }
        let latency = table.get(0).unwrap().latency;
        assert_eq!(
            histogram_usec(&latency),
            [(1, 1), (2, 3), (66, 4), (1_073_741, 6)]
        );
        let labels: Vec<u64> = (0..HISTOGRAM_LEVELS)
            .map(|i| {
                let level = 1u64 << (10 + i);
                (level + level / 128 - 1) / 1000
            })
            .collect();
        // What redis-server prints (`hdr_histogram`, 2 significant digits).
        assert_eq!(labels[..8], [1, 2, 4, 8, 16, 33, 66, 132]);
        assert_eq!(labels[19], 541_065);
        assert!(histogram_usec(&HistogramSnapshot::default()).is_empty());
    }

    #[test]
    fn subcommands_count_apart() {
        let table = new_table();
        let buf = b"configget";
        let ranges = [(0, 6), (6, 9)];
        let args = Args::new(buf, &ranges);
        let id = stat_id(lookup(b"config").unwrap(), &args).unwrap();
        assert_eq!(table.name(id), Some("config|get"));
        table.record(id, 2_500, false);
        table.record(id, 1_500, true);
        let mut text = String::new();
        render_commandstats(&table, &mut text);
        assert_eq!(
            text,
            "cmdstat_config|get:calls=2,usec=4,usec_per_call=2.00,rejected_calls=0,failed_calls=1\r\n"
        );
        let mut text = String::new();
        render_latencystats(&table, &mut text);
        assert!(
            text.starts_with("latency_percentiles_usec_config|get:p50=1.5"),
            "{text}"
        );
        assert!(text.contains(",p99.9="), "{text}");
    }
}
