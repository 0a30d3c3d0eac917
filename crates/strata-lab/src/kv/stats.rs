//! Measurement: per-connection counters and latency histograms, merged at the end of a run,
//! and the optional per-second timeline.
//!
//! Each connection task owns its [`ConnStats`] and records without synchronisation. The
//! timeline is the only shared structure: each task keeps the histogram of the current second
//! and adds it to the shared [`Timeline`] when the second changes, so the lock is taken about
//! once per second per connection.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use super::protocol::{Op, ReplyKind};
use super::report::{KvConfig, KvResult, LatencySummary, Machine, TimelineSecond};
use super::server_cpu::CpuUsage;

/// Largest latency tracked exactly, in microseconds (60 s); slower replies count as 60 s.
const MAX_LATENCY_US: u64 = 60_000_000;

/// Latency histogram of a whole run: microseconds, three significant figures.
fn run_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("static histogram bounds are valid")
}

/// Latency histogram of one timeline second: two significant figures keep a long run's
/// timeline small (about 20 KiB per second).
fn second_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 2).expect("static histogram bounds are valid")
}

fn micros(latency: Duration) -> u64 {
    u64::try_from(latency.as_micros())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// What one connection (or, after merging, the whole run) measured.
#[derive(Debug)]
pub struct ConnStats {
    latency: Histogram<u64>,
    pub(crate) sets: u64,
    pub(crate) gets: u64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) errors: u64,
    /// When the last measured reply arrived.
    pub(crate) last_reply: Option<Instant>,
    timeline: Option<SecondRecorder>,
}

#[derive(Debug)]
struct SecondRecorder {
    shared: Arc<Timeline>,
    measure_start: Instant,
    second: usize,
    latency: Histogram<u64>,
}

impl ConnStats {
    /// Empty statistics; with a timeline, seconds are counted from `measure_start`.
    pub fn new(timeline: Option<Arc<Timeline>>, measure_start: Instant) -> Self {
        Self {
            latency: run_histogram(),
            sets: 0,
            gets: 0,
            hits: 0,
            misses: 0,
            errors: 0,
            last_reply: None,
            timeline: timeline.map(|shared| SecondRecorder {
                shared,
                measure_start,
                second: 0,
                latency: second_histogram(),
            }),
        }
    }

    /// Counts one reply to `op`, sent at `sent` and complete at `done`. A set succeeds only
    /// with a success reply; a get is a hit or a miss; anything else is an error.
    pub fn record(&mut self, op: Op, kind: ReplyKind, sent: Instant, done: Instant) {
        let us = micros(done.saturating_duration_since(sent));
        self.latency.saturating_record(us);
        match (op, kind) {
            (Op::Set, ReplyKind::Success) => self.sets += 1,
            (Op::Set, _) => {
                self.sets += 1;
                self.errors += 1;
            }
            (Op::Get, ReplyKind::Hit) => {
                self.gets += 1;
                self.hits += 1;
            }
            (Op::Get, ReplyKind::Miss) => {
                self.gets += 1;
                self.misses += 1;
            }
            (Op::Get, _) => {
                self.gets += 1;
                self.errors += 1;
            }
        }
        self.last_reply = Some(done);
        if let Some(recorder) = &mut self.timeline {
            let second = usize::try_from(
                done.saturating_duration_since(recorder.measure_start)
                    .as_secs(),
            )
            .unwrap_or(usize::MAX);
            if second != recorder.second {
                recorder.flush();
                recorder.second = second;
            }
            recorder.latency.saturating_record(us);
        }
    }

    /// Hands any partly filled timeline second to the shared timeline. Call once when the
    /// connection is done.
    pub fn finish(&mut self) {
        if let Some(recorder) = &mut self.timeline {
            recorder.flush();
        }
    }

    /// Adds `other`'s counts and latencies to these.
    pub fn merge(&mut self, other: &ConnStats) {
        self.latency
            .add(&other.latency)
            .expect("histograms share bounds");
        self.sets += other.sets;
        self.gets += other.gets;
        self.hits += other.hits;
        self.misses += other.misses;
        self.errors += other.errors;
        self.last_reply = self.last_reply.max(other.last_reply);
    }

    /// Measured requests.
    pub fn ops(&self) -> u64 {
        self.sets + self.gets
    }

    /// Latency percentiles in milliseconds.
    pub fn latency_summary(&self) -> LatencySummary {
        summarize(&self.latency)
    }

    /// The result of a run with these totals over `elapsed` of measurement
    /// and its (server, client) CPU; no timeline and no queue check (the
    /// caller adds its own).
    pub fn result(
        &self,
        config: KvConfig,
        elapsed: Duration,
        (server_cpu, client_cpu): (Option<CpuUsage>, CpuUsage),
    ) -> KvResult {
        let secs = elapsed.as_secs_f64().max(1e-9);
        KvResult {
            config,
            machine: Machine::current(),
            elapsed_secs: elapsed.as_secs_f64(),
            ops: self.ops(),
            sets: self.sets,
            gets: self.gets,
            hits: self.hits,
            misses: self.misses,
            errors: self.errors,
            ops_per_sec: self.ops() as f64 / secs,
            sets_per_sec: self.sets as f64 / secs,
            gets_per_sec: self.gets as f64 / secs,
            latency_ms: self.latency_summary(),
            timeline: None,
            server_cpu,
            client_cpu: Some(client_cpu),
            queue: None,
        }
    }
}

impl SecondRecorder {
    fn flush(&mut self) {
        if !self.latency.is_empty() {
            self.shared.add(self.second, &self.latency);
            self.latency.reset();
        }
    }
}

fn summarize(h: &Histogram<u64>) -> LatencySummary {
    let ms = |us: u64| us as f64 / 1000.0;
    if h.is_empty() {
        return LatencySummary::default();
    }
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

/// Per-second latency histograms of a run, indexed by whole seconds since measuring began.
#[derive(Debug, Default)]
pub struct Timeline {
    seconds: Mutex<Vec<Histogram<u64>>>,
}

impl Timeline {
    fn add(&self, second: usize, latency: &Histogram<u64>) {
        let mut seconds = self.seconds.lock().unwrap_or_else(PoisonError::into_inner);
        if seconds.len() <= second {
            seconds.resize_with(second + 1, second_histogram);
        }
        seconds[second]
            .add(latency)
            .expect("histograms share bounds");
    }

    /// One row per second of a run that measured for `elapsed`; the last, partial second's
    /// throughput is scaled by its actual length.
    pub fn seconds(&self, elapsed: Duration) -> Vec<TimelineSecond> {
        let seconds = self.seconds.lock().unwrap_or_else(PoisonError::into_inner);
        let total = elapsed.as_secs_f64();
        seconds
            .iter()
            .enumerate()
            .map(|(second, h)| {
                let span = (total - second as f64).clamp(1e-3, 1.0);
                let summary = summarize(h);
                TimelineSecond {
                    second: second as u64,
                    ops: h.len(),
                    ops_per_sec: h.len() as f64 / span,
                    p50_ms: summary.p50,
                    p99_ms: summary.p99,
                    max_ms: summary.max,
                }
            })
            .collect()
    }
}
