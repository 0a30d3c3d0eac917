//! Per-command statistics of the RESP front end: a
//! [`strata_metrics::CommandTable`] indexed by the command table's dense
//! ids (the ones ACLs use, `acl::command_set`), counted under the name
//! Redis uses (`get`, `client|list`), and the `INFO commandstats` and
//! `INFO latencystats` sections rendered from it. The metrics port
//! exports the same table.

use std::fmt::Write as _;

use strata_metrics::CommandTable;

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
/// for a container command (`config|get`), else the command's own; its
/// id in the table.
pub fn stat_id(spec: &'static CommandSpec, args: &Args<'_>) -> Option<usize> {
    let counted = match spec.subcommands {
        [] => spec,
        _ => spec.subcommand(args.get(1)).unwrap_or(spec),
    };
    command_set::id_of(counted)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::lookup;

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
