//! Counters for `INFO stats` that belong to the RESP front end (commands,
//! errors, writes) and the instantaneous rates derived from periodic
//! samples, plus the baselines `CONFIG RESETSTAT` subtracts from the
//! engine's and the connection registry's monotonic counters.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use strata_metrics::Stopwatch;

/// Samples are taken at most this often.
const SAMPLE_EVERY_MS: u64 = 100;
/// Rates are computed over about this window.
const WINDOW_MS: u64 = 1600;
const SAMPLES: usize = 16;

/// Totals observed at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Commands processed.
    pub commands: u64,
    /// Bytes read from clients.
    pub net_in: u64,
    /// Bytes written to clients.
    pub net_out: u64,
}

/// Per-second rates over the last couple of seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rates {
    /// Commands per second.
    pub ops_per_sec: u64,
    /// Input kilobytes per second.
    pub input_kbps: f64,
    /// Output kilobytes per second.
    pub output_kbps: f64,
}

/// Values of monotonic external counters at the last `CONFIG RESETSTAT`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Baseline {
    /// Keyspace hits.
    pub hits: u64,
    /// Keyspace misses.
    pub misses: u64,
    /// Expired keys.
    pub expired: u64,
    /// Evicted keys.
    pub evicted: u64,
    /// Clients evicted (`maxmemory-clients`).
    pub evicted_clients: u64,
    /// Connections accepted.
    pub connections: u64,
    /// Connections rejected.
    pub rejected: u64,
    /// Bytes read.
    pub net_in: u64,
    /// Bytes written.
    pub net_out: u64,
}

/// Counts of one `process` call, added to [`Stats`] in one go.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    /// Commands executed.
    pub commands: u64,
    /// Error replies sent.
    pub errors: u64,
    /// Write commands that succeeded.
    pub writes: u64,
}

/// Front-end counters shared by all connections.
#[derive(Debug)]
pub struct Stats {
    /// Read for every batch of requests (`maybe_sample`): quanta's clock,
    /// not the OS's, for the cost.
    started: Stopwatch,
    commands: AtomicU64,
    errors: AtomicU64,
    writes: AtomicU64,
    next_sample_ms: AtomicU64,
    samples: Mutex<VecDeque<(u64, Totals)>>,
    baseline: Mutex<Baseline>,
}

impl Default for Stats {
    fn default() -> Self {
        Self::new()
    }
}

impl Stats {
    /// Zeroed counters.
    pub fn new() -> Self {
        Self {
            started: Stopwatch::start(),
            commands: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            next_sample_ms: AtomicU64::new(0),
            samples: Mutex::new(VecDeque::with_capacity(SAMPLES)),
            baseline: Mutex::new(Baseline::default()),
        }
    }

    /// Adds one `process` call's counts.
    pub fn record(&self, tally: Tally) {
        if tally.commands > 0 {
            self.commands.fetch_add(tally.commands, Ordering::Relaxed);
        }
        if tally.errors > 0 {
            self.errors.fetch_add(tally.errors, Ordering::Relaxed);
        }
        if tally.writes > 0 {
            self.writes.fetch_add(tally.writes, Ordering::Relaxed);
        }
    }

    /// Commands processed since start (or the last reset).
    pub fn commands(&self) -> u64 {
        self.commands.load(Ordering::Relaxed)
    }

    /// Error replies since start (or the last reset).
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    /// Successful write commands since start (never reset: it stands for
    /// Redis's changes-since-last-save).
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed_nanos() / 1_000_000
    }

    /// Takes a rate sample if the last one is old enough. `totals` is only
    /// called when a sample is due.
    pub fn maybe_sample(&self, totals: impl FnOnce() -> Totals) {
        let now = self.elapsed_ms();
        let due = self.next_sample_ms.load(Ordering::Relaxed);
        if now < due
            || self
                .next_sample_ms
                .compare_exchange(
                    due,
                    now + SAMPLE_EVERY_MS,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let totals = totals();
        let mut samples = self.samples.lock();
        if samples.len() == SAMPLES {
            samples.pop_front();
        }
        samples.push_back((now, totals));
    }

    /// Rates between the oldest sample within the window (or the newest
    /// older one) and `current`.
    pub fn rates(&self, current: Totals) -> Rates {
        let now = self.elapsed_ms();
        let samples = self.samples.lock();
        let base = samples
            .iter()
            .find(|(at, _)| now.saturating_sub(*at) <= WINDOW_MS)
            .or_else(|| samples.back())
            .copied();
        let Some((at, then)) = base else {
            return Rates::default();
        };
        let ms = now.saturating_sub(at);
        if ms == 0 {
            return Rates::default();
        }
        let per_sec = |a: u64, b: u64| a.saturating_sub(b) as f64 * 1000.0 / ms as f64;
        Rates {
            ops_per_sec: per_sec(current.commands, then.commands).round() as u64,
            input_kbps: per_sec(current.net_in, then.net_in) / 1024.0,
            output_kbps: per_sec(current.net_out, then.net_out) / 1024.0,
        }
    }

    /// The baselines of the last reset.
    pub fn baseline(&self) -> Baseline {
        *self.baseline.lock()
    }

    /// `CONFIG RESETSTAT`: zeroes own counters and records `baseline`.
    pub fn reset(&self, baseline: Baseline) {
        self.commands.store(0, Ordering::Relaxed);
        self.errors.store(0, Ordering::Relaxed);
        self.samples.lock().clear();
        *self.baseline.lock() = baseline;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_resets() {
        let stats = Stats::new();
        stats.record(Tally {
            commands: 5,
            errors: 1,
            writes: 2,
        });
        assert_eq!(
            (stats.commands(), stats.errors(), stats.writes()),
            (5, 1, 2)
        );
        stats.reset(Baseline {
            hits: 7,
            ..Baseline::default()
        });
        assert_eq!(
            (stats.commands(), stats.errors(), stats.writes()),
            (0, 0, 2)
        );
        assert_eq!(stats.baseline().hits, 7);
    }

    #[test]
    fn rates_without_samples_are_zero() {
        let stats = Stats::new();
        assert_eq!(
            stats
                .rates(Totals {
                    commands: 100,
                    ..Totals::default()
                })
                .ops_per_sec,
            0
        );
        stats.maybe_sample(Totals::default);
        // A second sample right away is not due.
        stats.maybe_sample(|| Totals {
            commands: 1,
            ..Totals::default()
        });
        assert_eq!(stats.samples.lock().len(), 1);
    }
}
