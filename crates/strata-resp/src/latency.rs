//! Redis's latency monitor (`latency.c`): for each event (a command that
//! ran at least `latency-monitor-threshold` milliseconds: `command`, or
//! `fast-command` for a command flagged `fast`), the latest
//! [`HISTORY_LEN`] samples as (Unix second, milliseconds), at most one a
//! second (a second's later samples keep the worst), and the worst ever
//! seen. `LATENCY LATEST`, `HISTORY`, `RESET`, `GRAPH` and `DOCTOR` read
//! it (`commands/latency/`).
//!
//! The threshold is 0 (off) by default, as in Redis; then the hot path
//! costs one relaxed atomic load per command ([`LatencyMonitor::sample_ms`]).
//! Only a command at or over the threshold takes the lock. Memory is
//! bounded: the events are named by the caller from a fixed set, each
//! with a ring of [`HISTORY_LEN`] samples.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

/// Samples kept per event (Redis's `LATENCY_TS_LEN`).
pub const HISTORY_LEN: usize = 160;

/// One sample: when (Unix seconds; 0 marks a free slot) and how long.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    /// Unix seconds.
    pub time: u64,
    /// Milliseconds (the worst of its second).
    pub latency_ms: u32,
}

/// One event's samples, as a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    /// The event's name.
    pub event: &'static str,
    /// The samples held, oldest first (at least one).
    pub samples: Vec<Sample>,
    /// The worst latency seen since the event's data was last reset.
    pub max_ms: u32,
}

impl Series {
    /// The newest sample.
    pub fn latest(&self) -> Sample {
        self.samples.last().copied().unwrap_or_default()
    }
}

/// The ring of one event.
#[derive(Debug)]
struct Ring {
    event: &'static str,
    /// Where the next sample goes.
    next: usize,
    max_ms: u32,
    samples: Box<[Sample; HISTORY_LEN]>,
}

impl Ring {
    fn new(event: &'static str) -> Self {
        Self {
            event,
            next: 0,
            max_ms: 0,
            samples: Box::new([Sample::default(); HISTORY_LEN]),
        }
    }

    /// Adds a sample, merged into the previous one when in the same second.
    fn add(&mut self, latency_ms: u32, now: u64) {
        self.max_ms = self.max_ms.max(latency_ms);
        let prev = &mut self.samples[(self.next + HISTORY_LEN - 1) % HISTORY_LEN];
        if prev.time == now {
            prev.latency_ms = prev.latency_ms.max(latency_ms);
            return;
        }
        self.samples[self.next] = Sample {
            time: now,
            latency_ms,
        };
        self.next = (self.next + 1) % HISTORY_LEN;
    }

    fn snapshot(&self) -> Series {
        let samples = (0..HISTORY_LEN)
            .map(|i| self.samples[(self.next + i) % HISTORY_LEN])
            .filter(|s| s.time != 0)
            .collect();
        Series {
            event: self.event,
            samples,
            max_ms: self.max_ms,
        }
    }
}

/// The latency monitor of one front end.
#[derive(Debug, Default)]
pub struct LatencyMonitor {
    /// `latency-monitor-threshold`, ms; 0: off.
    threshold_ms: AtomicU64,
    /// One ring per event seen since its last reset, in order of first
    /// sample.
    rings: Mutex<Vec<Ring>>,
}

/// Seconds since the Unix epoch, as Redis's `time(NULL)`.
pub fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl LatencyMonitor {
    /// `latency-monitor-threshold`, milliseconds (0: off).
    pub fn threshold_ms(&self) -> u64 {
        self.threshold_ms.load(Ordering::Relaxed)
    }

    /// Sets `latency-monitor-threshold`.
    pub fn set_threshold_ms(&self, ms: u64) {
        self.threshold_ms.store(ms, Ordering::Relaxed);
    }

    /// The milliseconds to record for something that took `nanos`, when
    /// the monitor is on and that reaches its threshold (whole
    /// milliseconds, as Redis truncates them); `None` otherwise.
    #[inline]
    pub fn sample_ms(&self, nanos: u64) -> Option<u64> {
        let threshold = self.threshold_ms();
        if threshold == 0 {
            return None;
        }
        let ms = nanos / 1_000_000;
        (ms >= threshold).then_some(ms)
    }

    /// Records `latency_ms` for `event` now.
    pub fn add(&self, event: &'static str, latency_ms: u64) {
        self.add_at(event, latency_ms, unix_secs());
    }

    /// Records `latency_ms` for `event` at Unix second `now`.
    pub fn add_at(&self, event: &'static str, latency_ms: u64, now: u64) {
        let latency_ms = u32::try_from(latency_ms).unwrap_or(u32::MAX);
        let mut rings = self.rings.lock();
        let at = match rings.iter().position(|r| r.event == event) {
            Some(at) => at,
            None => {
                rings.push(Ring::new(event));
                rings.len() - 1
            }
        };
        rings[at].add(latency_ms, now);
    }

    /// Every event's samples, in order of first sample.
    pub fn all(&self) -> Vec<Series> {
        self.rings.lock().iter().map(Ring::snapshot).collect()
    }

    /// The samples of the event named exactly `event` (case matters, as
    /// for Redis's `LATENCY HISTORY` and `GRAPH`).
    pub fn series(&self, event: &[u8]) -> Option<Series> {
        let rings = self.rings.lock();
        let ring = rings.iter().find(|r| r.event.as_bytes() == event)?;
        Some(ring.snapshot())
    }

    /// Forgets the events named `event` in any case (all with `None`);
    /// how many were forgotten.
    pub fn reset(&self, event: Option<&[u8]>) -> usize {
        let mut rings = self.rings.lock();
        let before = rings.len();
        rings.retain(|r| event.is_some_and(|e| !r.event.as_bytes().eq_ignore_ascii_case(e)));
        before - rings.len()
    }

    /// True when no event has samples.
    pub fn is_empty(&self) -> bool {
        self.rings.lock().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_until_a_threshold_is_set() {
        let monitor = LatencyMonitor::default();
        assert_eq!(monitor.sample_ms(u64::MAX), None);
        monitor.set_threshold_ms(2);
        assert_eq!(monitor.sample_ms(1_999_999), None);
        assert_eq!(monitor.sample_ms(2_000_000), Some(2));
        assert_eq!(monitor.sample_ms(7_900_000), Some(7));
    }

    #[test]
    fn samples_of_one_second_merge_into_the_worst() {
        let monitor = LatencyMonitor::default();
        monitor.add_at("command", 5, 100);
        monitor.add_at("command", 3, 100);
        monitor.add_at("command", 9, 100);
        monitor.add_at("command", 4, 101);
        let series = monitor.series(b"command").unwrap();
        let got: Vec<(u64, u32)> = series
            .samples
            .iter()
            .map(|s| (s.time, s.latency_ms))
            .collect();
        assert_eq!(got, [(100, 9), (101, 4)]);
        assert_eq!(series.max_ms, 9);
        assert_eq!(
            series.latest(),
            Sample {
                time: 101,
                latency_ms: 4
            }
        );
        assert_eq!(monitor.series(b"COMMAND"), None, "names match exactly");
    }

    #[test]
    fn the_ring_keeps_the_latest_160_seconds() {
        let monitor = LatencyMonitor::default();
        for t in 1..=500u64 {
            monitor.add_at("fast-command", t, t);
        }
        let series = monitor.series(b"fast-command").unwrap();
        assert_eq!(series.samples.len(), HISTORY_LEN);
        assert_eq!(series.samples[0].time, 500 - HISTORY_LEN as u64 + 1);
        assert_eq!(series.latest().time, 500);
        assert!(series.samples.windows(2).all(|w| w[0].time < w[1].time));
        assert_eq!(series.max_ms, 500);
    }

    #[test]
    fn reset_forgets_events_named_in_any_case() {
        let monitor = LatencyMonitor::default();
        monitor.add_at("command", 1, 1);
        monitor.add_at("fast-command", 1, 1);
        assert_eq!(monitor.reset(Some(b"nosuch")), 0);
        assert_eq!(monitor.reset(Some(b"COMMAND")), 1);
        assert_eq!(monitor.reset(Some(b"command")), 0);
        let names: Vec<&str> = monitor.all().iter().map(|s| s.event).collect();
        assert_eq!(names, ["fast-command"]);
        monitor.add_at("command", 7, 2);
        assert_eq!(monitor.series(b"command").unwrap().max_ms, 7);
        assert_eq!(monitor.reset(None), 2);
        assert!(monitor.is_empty());
        // A reset event starts over: no old maximum.
        monitor.add_at("command", 2, 3);
        assert_eq!(monitor.series(b"command").unwrap().max_ms, 2);
    }

    #[test]
    fn latency_past_u32_is_clamped() {
        let monitor = LatencyMonitor::default();
        monitor.add_at("command", u64::MAX, 1);
        assert_eq!(monitor.series(b"command").unwrap().max_ms, u32::MAX);
    }
}
