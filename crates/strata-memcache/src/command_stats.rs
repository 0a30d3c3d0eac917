//! Per-command statistics of the memcached front end for the metrics
//! port: calls, failures (the reply was `ERROR`, `CLIENT_ERROR` or
//! `SERVER_ERROR`), refusals before running (a data block too large or
//! not terminated) and latency, in a [`strata_metrics::CommandTable`].
//! memcached itself reports no per-command latency; its own `stats`
//! counters (`cmd_get`, `get_hits`, ...) stay in [`crate::stats`].

use strata_metrics::CommandTable;

/// Every command name [`Command::name`](crate::Command::name) returns,
/// sorted (a command's id is its position).
const NAMES: &[&str] = &[
    "add",
    "append",
    "cache_memlimit",
    "cas",
    "decr",
    "delete",
    "flush_all",
    "gat",
    "gats",
    "get",
    "gets",
    "incr",
    "ma",
    "md",
    "me",
    "mg",
    "mn",
    "ms",
    "prepend",
    "quit",
    "replace",
    "set",
    "stats",
    "touch",
    "verbosity",
    "version",
];

/// An empty table with a row per command.
pub fn new_table() -> CommandTable {
    CommandTable::new(NAMES.iter().copied())
}

/// The id of command `name` (a handful of comparisons of short names).
pub fn id_of(name: &str) -> Option<usize> {
    NAMES.binary_search(&name).ok()
}

/// Whether `reply` (a command's whole reply) is one of memcached's errors.
pub fn is_error(reply: &[u8]) -> bool {
    reply.starts_with(b"ERROR")
        || reply.starts_with(b"CLIENT_ERROR")
        || reply.starts_with(b"SERVER_ERROR")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Command;

    #[test]
    fn every_command_has_an_id() {
        assert!(NAMES.windows(2).all(|w| w[0] < w[1]), "sorted");
        for line in [
            "get k",
            "gets k",
            "gat 1 k",
            "gats 1 k",
            "set k 0 0 1",
            "add k 0 0 1",
            "replace k 0 0 1",
            "append k 0 0 1",
            "prepend k 0 0 1",
            "cas k 0 0 1 1",
            "cache_memlimit 64",
            "delete k",
            "incr k 1",
            "decr k 1",
            "touch k 1",
            "flush_all",
            "version",
            "verbosity 1",
            "quit",
            "stats",
            "mg k",
            "ms k 1",
            "md k",
            "ma k",
            "mn",
            "me k",
        ] {
            let cmd = Command::parse(line.as_bytes()).unwrap();
            assert!(id_of(cmd.name()).is_some(), "{line}");
        }
        assert_eq!(new_table().len(), NAMES.len());
        assert!(is_error(b"CLIENT_ERROR bad command line format\r\n"));
        assert!(!is_error(b"VALUE k 0 1\r\n"));
    }
}
