//! [`CommandTable`]: per-command counters of one front end, as Redis's
//! `INFO commandstats` and `latencystats` report them and the metrics
//! port exports them: calls, failed calls (the command ran and answered
//! an error), rejected calls (refused before running: arity,
//! authentication, permissions) and a latency histogram of the calls.
//!
//! The front end gives each command a dense id once (its row in a static
//! table), so recording is an index, a thread-local stripe number and
//! relaxed atomic additions on cache lines no other core writes. A
//! command's cells are allocated at its first use, so the table costs a
//! pointer per command that is never called.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crossbeam_utils::CachePadded;

use crate::histogram::{HistogramSnapshot, LatencyHistogram};
use crate::stripe::{self, STRIPES};

/// One thread stripe of one command.
#[derive(Debug, Default)]
struct Stripe {
    failed: AtomicU64,
    rejected: AtomicU64,
    /// Calls are its count, their time its sum.
    latency: LatencyHistogram,
}

/// The counters of one command.
#[derive(Debug)]
struct Cell {
    stripes: [CachePadded<Stripe>; STRIPES],
}

impl Cell {
    fn new() -> Box<Cell> {
        Box::new(Cell {
            stripes: std::array::from_fn(|_| CachePadded::new(Stripe::default())),
        })
    }

    fn mine(&self) -> &Stripe {
        &self.stripes[stripe::current()]
    }
}

/// What one command has counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandSnapshot {
    /// Calls that ran (failed ones included).
    pub calls: u64,
    /// Calls that ran and answered an error.
    pub failed: u64,
    /// Calls refused before running.
    pub rejected: u64,
    /// Latency of the calls that ran (`count` is `calls`).
    pub latency: HistogramSnapshot,
}

impl CommandSnapshot {
    /// Total time of the calls, in microseconds.
    pub fn usec(&self) -> u64 {
        self.latency.sum_nanos / 1000
    }
}

/// Counters of every command of one front end, by dense id.
#[derive(Debug)]
pub struct CommandTable {
    names: Vec<&'static str>,
    cells: Box<[OnceLock<Box<Cell>>]>,
}

impl CommandTable {
    /// A table for commands named `names`; a command's id is its
    /// position.
    pub fn new(names: impl IntoIterator<Item = &'static str>) -> Self {
        let names: Vec<&'static str> = names.into_iter().collect();
        let cells = names.iter().map(|_| OnceLock::new()).collect();
        Self { names, cells }
    }

    /// Number of command ids.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when the table has no commands.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of command `id`.
    pub fn name(&self, id: usize) -> Option<&'static str> {
        self.names.get(id).copied()
    }

    fn cell(&self, id: usize) -> Option<&Cell> {
        self.cells
            .get(id)
            .map(|cell| &**cell.get_or_init(Cell::new))
    }

    /// Counts a call of `id` that ran for `nanos`, and whether it answered
    /// an error. An id outside the table is ignored.
    pub fn record(&self, id: usize, nanos: u64, failed: bool) {
        if let Some(cell) = self.cell(id) {
            let stripe = cell.mine();
            stripe.latency.record_nanos(nanos);
            if failed {
                stripe.failed.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Counts a call of `id` refused before it ran.
    pub fn reject(&self, id: usize) {
        if let Some(cell) = self.cell(id) {
            cell.mine().rejected.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// What command `id` counted; `None` for a command never called
    /// (nor refused).
    pub fn get(&self, id: usize) -> Option<CommandSnapshot> {
        let cell = self.cells.get(id)?.get()?;
        let mut snapshot = CommandSnapshot::default();
        for stripe in &cell.stripes {
            snapshot.failed += stripe.failed.load(Ordering::Relaxed);
            snapshot.rejected += stripe.rejected.load(Ordering::Relaxed);
            stripe.latency.add_to(&mut snapshot.latency);
        }
        snapshot.calls = snapshot.latency.count;
        Some(snapshot)
    }

    /// Every command with something counted, by name.
    pub fn used(&self) -> Vec<(&'static str, CommandSnapshot)> {
        let mut used: Vec<_> = (0..self.names.len())
            .filter_map(|id| {
                let s = self.get(id)?;
                (s.calls + s.rejected > 0).then(|| (self.names[id], s))
            })
            .collect();
        used.sort_by_key(|(name, _)| *name);
        used
    }

    /// Zeroes every counter (`CONFIG RESETSTAT`, `stats reset`).
    pub fn reset(&self) {
        for cell in self.cells.iter().filter_map(OnceLock::get) {
            for stripe in &cell.stripes {
                stripe.failed.store(0, Ordering::Relaxed);
                stripe.rejected.store(0, Ordering::Relaxed);
                stripe.latency.reset();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn counts_from_many_threads() {
        let table = Arc::new(CommandTable::new(["get", "set", "del"]));
        let threads: Vec<_> = (0..12)
            .map(|t| {
                let table = table.clone();
                std::thread::spawn(move || {
                    for i in 0..1000u64 {
                        table.record(0, 1000 + i, i % 10 == 0);
                    }
                    if t % 2 == 0 {
                        table.reject(1);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let get = table.get(0).unwrap();
        assert_eq!((get.calls, get.failed, get.rejected), (12_000, 1200, 0));
        assert_eq!(get.latency.sum_nanos, 12 * (1000 * 1000 + 999 * 1000 / 2));
        let set = table.get(1).unwrap();
        assert_eq!((set.calls, set.rejected), (0, 6));
        assert_eq!(table.get(2), None);
        let used: Vec<_> = table.used().into_iter().map(|(n, _)| n).collect();
        assert_eq!(used, ["get", "set"]);
        table.record(99, 1, false);
        table.reset();
        assert_eq!(table.get(0).unwrap().calls, 0);
        assert!(table.used().is_empty());
    }
}
