//! Measurement for the phases: latency histograms, error tallies and the per-second
//! indexing timeline.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::kv::LatencySummary;

/// Largest latency tracked exactly, in microseconds (10 min); slower requests count as 10 min.
const MAX_LATENCY_US: u64 = 600_000_000;

/// A latency histogram: microseconds, three significant figures.
#[derive(Debug, Clone)]
pub struct Latencies(Histogram<u64>);

impl Latencies {
    /// An empty histogram.
    pub fn new() -> Self {
        Self(Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("static bounds are valid"))
    }

    /// Records one request that took `took`.
    pub fn record(&mut self, took: Duration) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX).max(1);
        self.0.saturating_record(us);
    }

    /// Adds `other`'s requests.
    pub fn merge(&mut self, other: &Latencies) {
        self.0.add(&other.0).expect("histograms share bounds");
    }

    /// Requests recorded.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// Percentiles in milliseconds (all zero when empty).
    pub fn summary(&self) -> LatencySummary {
        let h = &self.0;
        if h.is_empty() {
            return LatencySummary::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        LatencySummary {
            mean: h.mean() / 1000.0,
            p50: ms(h.value_at_quantile(0.50)),
            p90: ms(h.value_at_quantile(0.90)),
            p95: ms(h.value_at_quantile(0.95)),
            p99: ms(h.value_at_quantile(0.99)),
            p999: ms(h.value_at_quantile(0.999)),
            max: ms(h.max()),
        }
    }
}

impl Default for Latencies {
    fn default() -> Self {
        Self::new()
    }
}

/// Failures of one kind: how many, and the first one quoted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorTally {
    /// Failed requests, bulk items or searches.
    pub count: u64,
    /// The first failure's description.
    pub first: Option<String>,
}

impl ErrorTally {
    /// Counts `n` failures described by `why` (kept only if it is the first).
    pub fn add(&mut self, n: u64, why: Option<String>) {
        if n == 0 {
            return;
        }
        self.count += n;
        if self.first.is_none() {
            self.first = why;
        }
    }

    /// Adds `other`'s failures.
    pub fn merge(&mut self, other: &ErrorTally) {
        self.add(other.count, other.first.clone());
    }
}

/// Documents indexed in one second of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RateSecond {
    /// Whole seconds since the phase began.
    pub second: u64,
    /// Documents acknowledged during this second.
    pub docs: u64,
    /// Rate; the last second is scaled by its actual length.
    pub docs_per_sec: f64,
}

/// Acknowledged documents per second since a start instant; shared by the clients (one
/// lock per bulk reply).
#[derive(Debug)]
pub struct RateTimeline {
    start: Instant,
    seconds: Mutex<Vec<u64>>,
}

impl RateTimeline {
    /// A timeline whose second 0 begins at `start`.
    pub fn new(start: Instant) -> Self {
        Self {
            start,
            seconds: Mutex::new(Vec::new()),
        }
    }

    /// Counts `docs` acknowledged at `at`.
    pub fn add(&self, at: Instant, docs: u64) {
        let second = usize::try_from(at.saturating_duration_since(self.start).as_secs())
            .unwrap_or(usize::MAX);
        let mut seconds = self.seconds.lock().unwrap_or_else(PoisonError::into_inner);
        if seconds.len() <= second {
            seconds.resize(second + 1, 0);
        }
        seconds[second] += docs;
    }

    /// One row per second of a phase that lasted `elapsed`.
    pub fn rows(&self, elapsed: Duration) -> Vec<RateSecond> {
        let seconds = self.seconds.lock().unwrap_or_else(PoisonError::into_inner);
        let total = elapsed.as_secs_f64();
        seconds
            .iter()
            .enumerate()
            .map(|(second, &docs)| RateSecond {
                second: second as u64,
                docs,
                docs_per_sec: docs as f64 / (total - second as f64).clamp(1e-3, 1.0),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_summarize_in_milliseconds() {
        let mut a = Latencies::new();
        for ms in 1..=100 {
            a.record(Duration::from_millis(ms));
        }
        let mut b = Latencies::new();
        b.record(Duration::from_secs(2));
        a.merge(&b);
        let s = a.summary();
        assert_eq!(a.len(), 101);
        assert!((s.p50 - 51.0).abs() < 0.1, "{s:?}");
        assert!((s.max - 2000.0).abs() < 2.0, "{s:?}");
        assert_eq!(Latencies::new().summary(), LatencySummary::default());
    }

    #[test]
    fn error_tally_keeps_the_first_failure() {
        let mut t = ErrorTally::default();
        t.add(0, Some("ignored".into()));
        t.add(2, Some("first".into()));
        t.add(1, Some("second".into()));
        let mut total = ErrorTally::default();
        total.merge(&t);
        assert_eq!(
            total,
            ErrorTally {
                count: 3,
                first: Some("first".into())
            }
        );
    }

    #[test]
    fn timeline_counts_per_second() {
        let start = Instant::now();
        let timeline = RateTimeline::new(start);
        timeline.add(start, 10);
        timeline.add(start + Duration::from_millis(1500), 5);
        timeline.add(start + Duration::from_millis(1900), 5);
        let rows = timeline.rows(Duration::from_millis(1500));
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].docs, rows[0].docs_per_sec), (10, 10.0));
        assert_eq!((rows[1].docs, rows[1].docs_per_sec), (10, 20.0));
    }
}
