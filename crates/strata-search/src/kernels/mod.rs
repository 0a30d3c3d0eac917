//! Strata's own hot loops over blocks of column values, with run-time
//! CPU dispatch.
//!
//! Each kernel's body is written once and runs through [`dispatch`]: on a
//! CPU with x86-64-v3 (`cpu`) it is compiled a second time inside a
//! function with those target features, so the compiler may use 256-bit
//! vectors and the BMI instructions there, while the binary as a whole
//! stays portable. Both copies compute the same results: Rust never fuses
//! or reorders floating-point operations, so the wider copy only does the
//! same arithmetic in wider registers. A body given to [`dispatch`] must be
//! an `#[inline(always)]` closure, or it would be compiled once, for the
//! baseline, and called from both copies.
//!
//! The loops here are those the dashboards' profiles put on top among
//! Strata's own code: counting a block's values inside a range (the time
//! buckets' range children), finding where a run of dates leaves the bucket
//! being filled, and the geohash cells of a block of points
//! (`mapping::geo::cell_finder` dispatches its own body).

#![allow(unsafe_code)]

pub mod cpu;

/// Runs `body` compiled for the best level this CPU has (see the module
/// docs); `body` must be an `#[inline(always)]` closure.
#[inline(always)]
pub fn dispatch<R>(body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if cpu::level() == cpu::Level::V3 {
        // SAFETY: `cpu::level` is `V3` only when the running CPU has every
        // feature `v3` enables (`cpu::has_v3` checks each one).
        return unsafe { v3(body) };
    }
    body()
}

/// `body` with x86-64-v3's features enabled (it is inlined here).
///
/// # Safety
/// The CPU must have every feature enabled below.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma,bmi1,bmi2,lzcnt,movbe,popcnt")]
unsafe fn v3<R>(body: impl FnOnce() -> R) -> R {
    body()
}

/// How many of `values` lie in `low..=high`.
pub fn count_in_range(values: &[i64], low: i64, high: i64) -> u64 {
    dispatch(
        #[inline(always)]
        || {
            // Branch-free, so the compiler can count a vector of values at once.
            values
                .iter()
                .map(|&v| u64::from((low <= v) & (v <= high)))
                .sum()
        },
    )
}

/// Values checked together by [`first_outside`] before it looks for the one.
const SCAN: usize = 16;

/// The index of the first of `values` outside `start..end`, if any.
pub fn first_outside(values: &[i64], start: i64, end: i64) -> Option<usize> {
    dispatch(
        #[inline(always)]
        || {
            let outside = |v: i64| (v < start) | (v >= end);
            // Whole groups are tested without a branch per value (one
            // vector comparison each), the group holding one value outside
            // is then searched.
            let mut chunks = values.chunks_exact(SCAN);
            let mut base = 0;
            for chunk in &mut chunks {
                if chunk.iter().fold(false, |any, &v| any | outside(v)) {
                    return chunk.iter().position(|&v| outside(v)).map(|i| base + i);
                }
                base += SCAN;
            }
            chunks
                .remainder()
                .iter()
                .position(|&v| outside(v))
                .map(|i| base + i)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernels against their one-line definitions, on lengths around
    /// the group size and values on, inside and outside the bounds.
    #[test]
    fn kernels_agree_with_their_definitions() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0, 1, 7, 15, 16, 17, 31, 32, 33, 100, 257] {
            for _ in 0..50 {
                let values: Vec<i64> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        (state % 40) as i64 - 20
                    })
                    .collect();
                for (low, high) in [(-5, 5), (0, 0), (i64::MIN, i64::MAX), (3, -3)] {
                    let want = values.iter().filter(|&&v| low <= v && v <= high).count();
                    assert_eq!(count_in_range(&values, low, high), want as u64);
                    let want = values.iter().position(|&v| v < low || v >= high);
                    assert_eq!(
                        first_outside(&values, low, high),
                        want,
                        "{values:?} {low} {high}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_level_is_decided_once() {
        assert_eq!(cpu::level(), cpu::level());
    }
}
