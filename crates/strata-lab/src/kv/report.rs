//! Results of a `bench kv` run: the serializable [`KvResult`], the human table printed on
//! stdout, and the JSON file.
//!
//! [`KvResult`] is the stable exchange format between runs, comparison scripts and later
//! benchmarks; add fields with `#[serde(default)]` so older result files still load.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::keys::KeyPattern;
use super::mix::Ratio;
use super::protocol::Protocol;
use super::queue::QueueCheck;
use super::server_cpu::CpuUsage;
use super::workload::Workload;
use crate::LabError;

/// Everything one run measured, with the configuration that produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KvResult {
    /// How the run was configured (the password is never included).
    pub config: KvConfig,
    /// Where the client ran.
    pub machine: Machine,
    /// Seconds of measurement: from the end of warm-up to the last measured reply.
    pub elapsed_secs: f64,
    /// Measured requests (sets + gets), errors included.
    pub ops: u64,
    /// Measured sets.
    pub sets: u64,
    /// Measured gets.
    pub gets: u64,
    /// Gets that found a value.
    pub hits: u64,
    /// Gets that found nothing.
    pub misses: u64,
    /// Error replies, and replies of the wrong kind (a set not answered with success).
    pub errors: u64,
    /// `ops / elapsed_secs`.
    pub ops_per_sec: f64,
    /// `sets / elapsed_secs`.
    pub sets_per_sec: f64,
    /// `gets / elapsed_secs`.
    pub gets_per_sec: f64,
    /// Latency from writing a request's batch to reading its reply.
    pub latency_ms: LatencySummary,
    /// Per-second rows, when the run was asked for a timeline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Vec<TimelineSecond>>,
    /// CPU of the server over the measured phase, when its pid was known (`--server-pid`,
    /// `--spawn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu: Option<CpuUsage>,
    /// CPU of this load generator over the measured phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cpu: Option<CpuUsage>,
    /// The queue workload's delivery check (`--workload queue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueCheck>,
}

impl KvResult {
    /// Fails when the run's own check failed: the queue workload lost, duplicated or altered
    /// an element. Error replies are counted, not failures.
    pub fn check(&self) -> Result<(), LabError> {
        match self.queue.as_ref().and_then(QueueCheck::failure) {
            Some(failure) => Err(LabError::Check(failure)),
            None => Ok(()),
        }
    }
}

/// The configuration of a run, as recorded in its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KvConfig {
    /// Wire protocol.
    pub protocol: Protocol,
    /// Server host.
    pub host: String,
    /// Server port.
    pub port: u16,
    /// Whether the server was spawned for the run.
    pub spawned: bool,
    /// Extra arguments given to a spawned server.
    #[serde(default)]
    pub server_args: Vec<String>,
    /// Client connections.
    pub connections: usize,
    /// Pipeline depth.
    pub pipeline: usize,
    /// Client runtime worker threads.
    pub threads: usize,
    /// Set:get ratio.
    pub ratio: Ratio,
    /// Data type exercised.
    #[serde(default)]
    pub workload: Workload,
    /// Key pattern.
    pub key_pattern: KeyPattern,
    /// Zipf exponent (used by the zipfian pattern).
    pub zipf_exponent: f64,
    /// Gaussian standard deviation, if set explicitly.
    pub key_stddev: Option<f64>,
    /// First key number.
    pub key_min: u64,
    /// Key number bound (exclusive).
    pub key_max: u64,
    /// Key prefix.
    pub key_prefix: String,
    /// Value size in bytes.
    pub value_size: usize,
    /// Request limit, if any.
    pub requests: Option<u64>,
    /// Measuring time limit, if any.
    pub duration_secs: Option<f64>,
    /// Discarded warm-up seconds.
    pub warmup_secs: f64,
    /// Seed of the per-connection generators; rerun with `--seed` to repeat the key sequence.
    pub seed: u64,
    /// Whether the keyspace was flushed first.
    pub flush: bool,
}

/// The client machine, so results from different hosts are not compared blindly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Operating system (`std::env::consts::OS`).
    pub os: String,
    /// CPU architecture.
    pub arch: String,
    /// Logical CPUs available to the client process.
    pub cpus: usize,
}

impl Machine {
    /// Describes the current machine.
    pub fn current() -> Self {
        Self {
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// Latency percentiles in milliseconds (microsecond resolution, three significant figures).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Slowest request.
    pub max: f64,
}

/// One second of a timeline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimelineSecond {
    /// Whole seconds since measuring began.
    pub second: u64,
    /// Replies received during this second.
    pub ops: u64,
    /// Throughput; the last second is scaled by its actual length.
    pub ops_per_sec: f64,
    /// Median latency (two significant figures).
    pub p50_ms: f64,
    /// 99th percentile latency (two significant figures).
    pub p99_ms: f64,
    /// Slowest request completed during this second.
    pub max_ms: f64,
}

/// The human-readable report: configuration line, counts and rates, latency percentiles and,
/// if recorded, the timeline.
pub fn render_table(r: &KvResult) -> String {
    let c = &r.config;
    let mut out = String::new();
    // Writing to a String cannot fail.
    let load = match &r.queue {
        Some(q) => format!(
            "{} producers x pipeline {}, {} consumers, {} lists",
            q.producers, c.pipeline, q.consumers, q.queues
        ),
        None => format!(
            "{} connections x pipeline {}, ratio {}, {} keys [{}, {})",
            c.connections,
            c.pipeline,
            c.ratio,
            c.key_pattern.name(),
            c.key_min,
            c.key_max
        ),
    };
    let _ = writeln!(
        out,
        "bench kv: {} {}:{}{}, {} workload, {load}, {} B values",
        c.protocol.name(),
        c.host,
        c.port,
        if c.spawned { " (spawned)" } else { "" },
        c.workload.name(),
        c.value_size,
    );
    let _ = writeln!(out, "measured {:.3} s\n", r.elapsed_secs);
    let _ = writeln!(out, "{:<8}{:>14}{:>16}", "", "count", "per second");
    for (name, count, rate) in [
        ("ops", r.ops, r.ops_per_sec),
        ("sets", r.sets, r.sets_per_sec),
        ("gets", r.gets, r.gets_per_sec),
    ] {
        let _ = writeln!(out, "{name:<8}{count:>14}{rate:>16.1}");
    }
    for (name, count) in [("hits", r.hits), ("misses", r.misses), ("errors", r.errors)] {
        let _ = writeln!(out, "{name:<8}{count:>14}");
    }
    let l = &r.latency_ms;
    let _ = writeln!(
        out,
        "\n{:<14}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}",
        "latency (ms)", "p50", "p90", "p95", "p99", "p99.9", "max"
    );
    let _ = writeln!(
        out,
        "{:<14}{:>9.3}{:>9.3}{:>9.3}{:>9.3}{:>9.3}{:>9.3}\n",
        "", l.p50, l.p90, l.p95, l.p99, l.p999, l.max
    );
    for (name, cpu) in [("server", &r.server_cpu), ("client", &r.client_cpu)] {
        if let Some(cpu) = cpu {
            let _ = writeln!(
                out,
                "{name} cpu (pid {}): {:.2} us/request (user {:.3} s, system {:.3} s, {:.2} cores busy)",
                cpu.pid, cpu.us_per_request, cpu.user_secs, cpu.system_secs, cpu.cores_busy
            );
        }
    }
    if let Some(q) = &r.queue {
        out.push_str(&q.render());
    }
    if let Some(timeline) = &r.timeline {
        let _ = writeln!(
            out,
            "\n{:>6}{:>14}{:>10}{:>10}{:>10}",
            "second", "ops/s", "p50 ms", "p99 ms", "max ms"
        );
        for s in timeline {
            let _ = writeln!(
                out,
                "{:>6}{:>14.1}{:>10.3}{:>10.3}{:>10.3}",
                s.second, s.ops_per_sec, s.p50_ms, s.p99_ms, s.max_ms
            );
        }
    }
    out
}

/// Writes `result` as pretty JSON to `path`, replacing any existing file.
pub fn write_json(result: &KvResult, path: &Path) -> Result<(), LabError> {
    let fail = |source| LabError::WriteResult {
        path: path.to_owned(),
        source,
    };
    let mut json = serde_json::to_vec_pretty(result).map_err(|e| fail(e.into()))?;
    json.push(b'\n');
    std::fs::write(path, json).map_err(fail)
}
