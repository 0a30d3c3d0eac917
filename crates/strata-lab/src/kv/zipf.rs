//! An exact Zipf sampler over ranks `1..=n` by rejection inversion (Hörmann and Derflinger,
//! "Rejection-inversion to generate variates from monotone discrete distributions", 1996).
//!
//! `P(k)` is proportional to `k^-s`. Setup is O(1) and each sample costs O(1) expected time,
//! so unlike the YCSB/Gray method no O(n) zeta sum is needed and any `n` up to
//! `u64::MAX / 2` works.
//!
//! The method samples a continuous hat `h(x) = x^-s` by inverting its integral `H`, rounds to
//! the nearest rank `k`, and accepts when the point falls in the top `h(k)` of the mass of
//! `[k - 1/2, k + 1/2]`, which gives each rank a probability exactly proportional to `h(k)`.

use rand::Rng;

/// Zipf distribution over ranks `1..=n` with exponent `s`.
#[derive(Debug, Clone)]
pub struct Zipf {
    n: u64,
    s: f64,
    /// `H(1.5) - h(1)`: the lower end of the sampled integral range.
    h_integral_x1: f64,
    /// `H(n + 0.5)`: the upper end.
    h_integral_n: f64,
    /// Points with `k - x` at most this are accepted without evaluating `H`.
    quick_accept: f64,
}

impl Zipf {
    /// A sampler over `1..=n`; `None` unless `n >= 1` and `s` is finite and positive.
    pub fn new(n: u64, s: f64) -> Option<Self> {
        if n == 0 || !(s.is_finite() && s > 0.0) {
            return None;
        }
        let mut zipf = Self {
            n,
            s,
            h_integral_x1: 0.0,
            h_integral_n: 0.0,
            quick_accept: 0.0,
        };
        zipf.h_integral_x1 = zipf.h_integral(1.5) - 1.0;
        zipf.h_integral_n = zipf.h_integral(n as f64 + 0.5);
        zipf.quick_accept = 2.0 - zipf.h_integral_inverse(zipf.h_integral(2.5) - zipf.h(2.0));
        Some(zipf)
    }

    /// Number of ranks.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Always false: a sampler has at least one rank.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Draws a rank in `1..=n`; rank 1 is the most frequent.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        loop {
            let r: f64 = rng.gen();
            let u = self.h_integral_n + r * (self.h_integral_x1 - self.h_integral_n);
            let x = self.h_integral_inverse(u);
            // `as` saturates, and NaN (never expected) maps to 0 and is clamped to rank 1.
            let k = ((x + 0.5).floor() as u64).clamp(1, self.n);
            let kf = k as f64;
            if kf - x <= self.quick_accept || u >= self.h_integral(kf + 0.5) - self.h(kf) {
                return k;
            }
        }
    }

    /// `h(x) = x^-s`.
    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }

    /// `H(x) = (x^(1-s) - 1) / (1 - s)`, or `ln x` when `s = 1`, written to stay accurate
    /// as `s` approaches 1.
    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        log_x * expm1_over((1.0 - self.s) * log_x)
    }

    /// The inverse of [`Self::h_integral`].
    fn h_integral_inverse(&self, y: f64) -> f64 {
        // Rounding can push the argument of ln1p just below -1 at the extreme end.
        let t = ((1.0 - self.s) * y).max(-1.0 + f64::EPSILON);
        (y * ln1p_over(t)).exp()
    }
}

/// `(e^t - 1) / t`, continuous at `t = 0`.
fn expm1_over(t: f64) -> f64 {
    if t.abs() > 1e-8 {
        t.exp_m1() / t
    } else {
        1.0 + 0.5 * t * (1.0 + t / 3.0)
    }
}

/// `ln(1 + t) / t`, continuous at `t = 0`.
fn ln1p_over(t: f64) -> f64 {
    if t.abs() > 1e-8 {
        t.ln_1p() / t
    } else {
        1.0 - t * (0.5 - t / 3.0)
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    use super::*;

    /// Empirical frequencies match `k^-s / zeta` for several exponents, including `s = 1`.
    #[test]
    fn matches_exact_probabilities() {
        const N: u64 = 20;
        const DRAWS: usize = 400_000;
        for s in [0.5, 0.99, 1.0, 1.5, 3.0] {
            let zipf = Zipf::new(N, s).unwrap();
            let mut rng = SmallRng::seed_from_u64(42);
            let mut counts = [0usize; N as usize + 1];
            for _ in 0..DRAWS {
                counts[zipf.sample(&mut rng) as usize] += 1;
            }
            assert_eq!(counts[0], 0);
            let zeta: f64 = (1..=N).map(|k| (k as f64).powf(-s)).sum();
            for k in 1..=N {
                let expected = DRAWS as f64 * (k as f64).powf(-s) / zeta;
                let got = counts[k as usize] as f64;
                // Five standard deviations of a binomial count, plus a little slack.
                let tolerance = 5.0 * expected.sqrt() + 5.0;
                assert!(
                    (got - expected).abs() < tolerance,
                    "s={s} k={k}: got {got}, expected {expected:.0}"
                );
            }
        }
    }

    #[test]
    fn rejects_invalid_parameters_and_handles_one_rank() {
        assert!(Zipf::new(0, 1.0).is_none());
        assert!(Zipf::new(10, 0.0).is_none());
        assert!(Zipf::new(10, f64::NAN).is_none());
        let one = Zipf::new(1, 0.99).unwrap();
        let mut rng = SmallRng::seed_from_u64(1);
        assert!((0..100).all(|_| one.sample(&mut rng) == 1));
        let huge = Zipf::new(u64::MAX / 2, 0.99).unwrap();
        assert!((0..1000).all(|_| (1..=u64::MAX / 2).contains(&huge.sample(&mut rng))));
    }
}
