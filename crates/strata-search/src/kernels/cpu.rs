//! Which instruction set the kernels use, and how many processors the
//! process has, each decided once per process.
//!
//! The release binary targets the portable x86-64 baseline (SSE2); the
//! kernels also carry an x86-64-v3 copy (AVX2, FMA, BMI1/2, LZCNT, MOVBE),
//! taken when the CPU has every one of those features. `STRATA_CPU=baseline`
//! in the environment keeps the baseline copies even then, to compare the
//! two on one machine or to rule the wide copies out when chasing a fault.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// The processors available to the process, read once: the standard
/// library reads the cgroup's CPU quota files on every call (tens of
/// microseconds of opens and reads, once per search and more before).
pub fn processors() -> usize {
    static PROCESSORS: OnceLock<usize> = OnceLock::new();
    *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// Not decided yet; then [`Level`] as a byte.
const UNKNOWN: u8 = 0;

/// An instruction-set level the kernels are compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// x86-64 as every 64-bit x86 CPU has it (and every other target).
    Baseline = 1,
    /// x86-64-v3: AVX2, FMA, BMI1, BMI2, LZCNT, MOVBE (Haswell, Zen and later).
    V3 = 2,
}

static LEVEL: AtomicU8 = AtomicU8::new(UNKNOWN);

/// The level the kernels run at in this process.
#[inline]
pub fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        1 => Level::Baseline,
        2 => Level::V3,
        _ => {
            let level = detect();
            // Every thread decides the same; which store lands first does not matter.
            LEVEL.store(level as u8, Ordering::Relaxed);
            level
        }
    }
}

fn detect() -> Level {
    if std::env::var_os("STRATA_CPU").is_some_and(|v| v == "baseline") {
        return Level::Baseline;
    }
    if has_v3() {
        Level::V3
    } else {
        Level::Baseline
    }
}

#[cfg(target_arch = "x86_64")]
fn has_v3() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("movbe")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_v3() -> bool {
    false
}
