//! Resident memory of this process, as the kernel counts it: the current
//! value (`VmRSS`), the high-water mark since start (`VmHWM`), the part
//! that is the process's own data ([`current_data_rss`]) and a
//! [`RssSampler`] thread that records that part's peak in each job stage.
//!
//! The budget bounds data, not code: `VmRSS` also counts the pages of the
//! executable the job runs (`RssFile`), which grow as DataFusion's code
//! paths are first used (about 30 MiB in a debug build, far less in a
//! release one), are shared with other processes running the same binary
//! and are dropped by the kernel at will, never written to swap.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the sampler reads the resident size.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

/// Stages a sampler keeps a peak for; later stages share the last slot.
const MAX_STAGES: usize = 16;

/// `VmRSS` of this process in bytes (0 where `/proc` is missing).
pub fn current_rss() -> u64 {
    status_field("VmRSS:")
}

/// Resident memory that is this process's own data, in bytes: anonymous
/// pages (heap, stacks) and shared memory (`RssAnon + RssShmem`), not
/// the file-backed pages of its executable. 0 where `/proc` is missing.
pub fn current_data_rss() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    ["RssAnon:", "RssShmem:"]
        .iter()
        .map(|f| field(&status, f))
        .sum()
}

/// `VmHWM` of this process in bytes: the most it was ever resident.
pub fn peak_rss() -> u64 {
    status_field("VmHWM:")
}

/// A `kB` field of `/proc/self/status`, in bytes.
fn status_field(name: &str) -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    field(&status, name)
}

/// A `kB` field of a `/proc/<pid>/status` text, in bytes (0 if absent).
fn field(status: &str, name: &str) -> u64 {
    status
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

/// A thread reading the resident data size ([`current_data_rss`]) every
/// [`SAMPLE_INTERVAL`] and keeping the peak per stage. Stops when dropped.
pub struct RssSampler {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    stop: AtomicBool,
    stage: AtomicUsize,
    peaks: [AtomicU64; MAX_STAGES],
    samples: AtomicU64,
}

impl RssSampler {
    /// Starts sampling, in stage 0.
    pub fn start() -> RssSampler {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            stage: AtomicUsize::new(0),
            peaks: std::array::from_fn(|_| AtomicU64::new(0)),
            samples: AtomicU64::new(0),
        });
        let sampling = shared.clone();
        let thread = std::thread::Builder::new()
            .name("strata-rss".into())
            .spawn(move || {
                while !sampling.stop.load(Ordering::Relaxed) {
                    sampling.sample();
                    std::thread::sleep(SAMPLE_INTERVAL);
                }
            })
            .ok();
        RssSampler { shared, thread }
    }

    /// Samples from now on count toward `stage` (an index the caller
    /// keeps; at most 16 distinct).
    pub fn enter_stage(&self, stage: usize) {
        self.shared
            .stage
            .store(stage.min(MAX_STAGES - 1), Ordering::Relaxed);
        self.shared.sample();
    }

    /// The peak sampled during `stage`, in bytes.
    pub fn stage_peak(&self, stage: usize) -> u64 {
        self.shared.peaks[stage.min(MAX_STAGES - 1)].load(Ordering::Relaxed)
    }

    /// The peak over all stages sampled so far.
    pub fn peak(&self) -> u64 {
        self.shared
            .peaks
            .iter()
            .map(|p| p.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0)
    }

    /// Samples taken.
    pub fn samples(&self) -> u64 {
        self.shared.samples.load(Ordering::Relaxed)
    }
}

impl Shared {
    fn sample(&self) {
        let rss = current_data_rss();
        let stage = self.stage.load(Ordering::Relaxed);
        self.peaks[stage].fetch_max(rss, Ordering::Relaxed);
        self.samples.fetch_add(1, Ordering::Relaxed);
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sampler_sees_memory_this_process_touches() {
        let before = current_rss();
        assert!(before > 0, "no /proc/self/status?");
        let data_before = current_data_rss();
        assert!(data_before > 0 && data_before <= before);
        let sampler = RssSampler::start();
        sampler.enter_stage(1);
        let block = vec![1u8; 64 << 20];
        std::thread::sleep(SAMPLE_INTERVAL * 5);
        assert!(
            sampler.stage_peak(1) >= data_before + (48 << 20),
            "{}",
            sampler.stage_peak(1)
        );
        assert!(peak_rss() >= sampler.stage_peak(1));
        drop(block);
        assert!(sampler.samples() >= 2);
    }
}
