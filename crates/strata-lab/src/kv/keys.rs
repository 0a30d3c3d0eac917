//! Key patterns: which key number each request uses, and how a number becomes key bytes.
//!
//! Keys are `{prefix}{n}` for `n` in the half-open range `[key_min, key_max)`. One
//! [`KeySpace`] is shared by all connections of a run; random patterns draw from each
//! connection's own RNG, the sequential pattern hands out numbers from shared cursors.

use std::sync::atomic::{AtomicU64, Ordering};

use clap::ValueEnum;
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::protocol::Op;
use super::zipf::Zipf;

/// How request keys are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyPattern {
    /// Walk the range in order, wrapping at the end. Sets and gets have separate cursors
    /// shared by all connections, so every key is issued once per pass across the run.
    Sequential,
    /// Every key equally likely.
    #[default]
    Uniform,
    /// Normal distribution centred on the middle of the range, clamped to the range.
    Gaussian,
    /// Zipf distribution: key number --key-min + k - 1 has weight k^-exponent.
    Zipfian,
}

impl KeyPattern {
    /// The command-line name, e.g. `zipfian`.
    pub fn name(self) -> &'static str {
        match self {
            KeyPattern::Sequential => "sequential",
            KeyPattern::Uniform => "uniform",
            KeyPattern::Gaussian => "gaussian",
            KeyPattern::Zipfian => "zipfian",
        }
    }
}

/// The key numbers of one run and the pattern that picks among them.
#[derive(Debug)]
pub struct KeySpace {
    min: u64,
    len: u64,
    sampler: Sampler,
}

#[derive(Debug)]
enum Sampler {
    Sequential { sets: AtomicU64, gets: AtomicU64 },
    Uniform,
    Gaussian { mean: f64, stddev: f64 },
    Zipfian(Zipf),
}

impl KeySpace {
    /// Keys `[min, max)` drawn by `pattern`. `zipf_exponent` is used by the zipfian pattern
    /// (must be positive) and `gaussian_stddev` by the gaussian one (default: range / 6).
    pub fn new(
        pattern: KeyPattern,
        min: u64,
        max: u64,
        zipf_exponent: f64,
        gaussian_stddev: Option<f64>,
    ) -> Result<Self, String> {
        if max <= min {
            return Err(format!("--key-max ({max}) must be above --key-min ({min})"));
        }
        let len = max - min;
        let sampler = match pattern {
            KeyPattern::Sequential => Sampler::Sequential {
                sets: AtomicU64::new(0),
                gets: AtomicU64::new(0),
            },
            KeyPattern::Uniform => Sampler::Uniform,
            KeyPattern::Gaussian => {
                let stddev = gaussian_stddev.unwrap_or(len as f64 / 6.0);
                if !(stddev.is_finite() && stddev > 0.0) {
                    return Err(format!("gaussian stddev must be positive, got {stddev}"));
                }
                Sampler::Gaussian {
                    mean: (len - 1) as f64 / 2.0,
                    stddev,
                }
            }
            KeyPattern::Zipfian => {
                Sampler::Zipfian(Zipf::new(len, zipf_exponent).ok_or_else(|| {
                    format!("--zipf-exponent must be positive, got {zipf_exponent}")
                })?)
            }
        };
        Ok(Self { min, len, sampler })
    }

    /// Number of distinct keys.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Always false: a key space holds at least one key.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The key number for the next `op`, in `[min, max)`.
    pub fn next_key<R: Rng + ?Sized>(&self, op: Op, rng: &mut R) -> u64 {
        let offset = match &self.sampler {
            Sampler::Sequential { sets, gets } => {
                let cursor = if op == Op::Set { sets } else { gets };
                cursor.fetch_add(1, Ordering::Relaxed) % self.len
            }
            Sampler::Uniform => rng.gen_range(0..self.len),
            Sampler::Gaussian { mean, stddev } => {
                let sample = (mean + stddev * standard_normal(rng)).round();
                // Saturating float-to-int conversion, then clamp into the range.
                (sample.max(0.0) as u64).min(self.len - 1)
            }
            Sampler::Zipfian(zipf) => zipf.sample(rng) - 1,
        };
        self.min + offset
    }
}

/// One standard normal variate (Box-Muller transform).
fn standard_normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    // 1 - [0, 1) lies in (0, 1], so the logarithm is finite.
    let radius = (-2.0 * (1.0 - rng.gen::<f64>()).ln()).sqrt();
    radius * (std::f64::consts::TAU * rng.gen::<f64>()).cos()
}

/// Appends `{prefix}{n}` to `out`.
pub fn write_key(out: &mut Vec<u8>, prefix: &[u8], n: u64) {
    out.extend_from_slice(prefix);
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    use super::*;

    fn draw(space: &KeySpace, op: Op, count: usize) -> Vec<u64> {
        let mut rng = SmallRng::seed_from_u64(7);
        (0..count).map(|_| space.next_key(op, &mut rng)).collect()
    }

    #[test]
    fn zipfian_is_skewed_towards_the_first_key() {
        let space = KeySpace::new(KeyPattern::Zipfian, 1000, 2000, 0.99, None).unwrap();
        let mut counts = vec![0u32; 1000];
        for key in draw(&space, Op::Get, 200_000) {
            assert!((1000..2000).contains(&key));
            counts[(key - 1000) as usize] += 1;
        }
        let first = counts[0];
        let mut sorted = counts.clone();
        sorted.sort_unstable();
        let median = sorted[500];
        assert!(
            first > 50 * median.max(1),
            "rank 1: {first}, median: {median}"
        );
        assert!(counts[0] > counts[1] && counts[1] > counts[9] && counts[9] > counts[99]);
    }

    #[test]
    fn sequential_covers_the_range_once_across_connections() {
        let space = Arc::new(KeySpace::new(KeyPattern::Sequential, 100, 1100, 0.99, None).unwrap());
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let space = Arc::clone(&space);
                std::thread::spawn(move || draw(&space, Op::Set, 250))
            })
            .collect();
        let mut keys: Vec<u64> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, (100..1100).collect::<Vec<_>>());
        // Gets have their own cursor, starting again from the first key, and wrap around.
        assert_eq!(draw(&space, Op::Get, 1001)[..2], [100, 101]);
        assert_eq!(draw(&space, Op::Get, 1)[0], 100 + 1001 % 1000);
    }

    #[test]
    fn gaussian_centres_on_the_middle_and_stays_in_range() {
        let space = KeySpace::new(KeyPattern::Gaussian, 0, 6000, 0.99, None).unwrap();
        let keys = draw(&space, Op::Get, 100_000);
        assert!(keys.iter().all(|&k| k < 6000));
        let within_one_sigma = keys.iter().filter(|&&k| (2000..4000).contains(&k)).count();
        // About 68% of a normal distribution lies within one standard deviation.
        assert!(
            (60_000..76_000).contains(&within_one_sigma),
            "{within_one_sigma}"
        );
        let narrow = KeySpace::new(KeyPattern::Gaussian, 0, 10, 0.99, Some(100.0)).unwrap();
        assert!(draw(&narrow, Op::Get, 1000).iter().all(|&k| k < 10));
    }

    #[test]
    fn uniform_stays_in_range_and_rejects_empty_ranges() {
        let space = KeySpace::new(KeyPattern::Uniform, 5, 8, 0.99, None).unwrap();
        let keys = draw(&space, Op::Set, 1000);
        assert!((5..8).all(|k| keys.contains(&k)) && keys.iter().all(|k| (5..8).contains(k)));
        assert!(KeySpace::new(KeyPattern::Uniform, 5, 5, 0.99, None).is_err());
        assert!(KeySpace::new(KeyPattern::Zipfian, 0, 5, -1.0, None).is_err());
    }

    #[test]
    fn keys_are_prefixed_decimals() {
        let mut out = b"x".to_vec();
        write_key(&mut out, b"key:", 1234);
        assert_eq!(out, b"xkey:1234");
    }
}
