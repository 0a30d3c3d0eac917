//! The writer's pacing: a token bucket on bytes written.
//!
//! Tokens accrue at `rate` bytes per second up to `burst`; writing takes
//! tokens, and a write that leaves the bucket in debt sleeps, in steps of at
//! most [`MAX_STEP`], until the debt is repaid. The bucket starts empty, so
//! over any interval of `t` seconds at most `rate * t + burst` bytes go out.
//! Time spent in the device counts: a slow device is not slowed further.

use std::sync::Arc;
use std::time::Duration;

use crate::Clock;

/// Longest single sleep, so that pacing stays smooth and a waiting writer
/// notices time passing.
pub(crate) const MAX_STEP: Duration = Duration::from_millis(10);

/// Credit the bucket may hold, in seconds of the rate.
const BURST_SECONDS: f64 = 0.05;

pub(crate) struct Throttle {
    rate: f64,
    burst: f64,
    /// Bytes that may be written now without waiting; negative when in debt.
    tokens: f64,
    last: Duration,
    clock: Arc<dyn Clock>,
}

impl Throttle {
    /// Paces to `rate` bytes per second (the caller guarantees `rate > 0`);
    /// the bucket holds at least `min_burst` bytes (one block) of credit.
    pub fn new(rate: u64, min_burst: usize, clock: Arc<dyn Clock>) -> Throttle {
        let rate = rate as f64;
        Throttle {
            rate,
            burst: (rate * BURST_SECONDS).max(min_burst as f64),
            tokens: 0.0,
            last: clock.now(),
            clock,
        }
    }

    /// Takes `bytes` tokens, sleeping until the bucket is out of debt.
    pub fn take(&mut self, bytes: usize) {
        self.refill();
        self.tokens -= bytes as f64;
        while self.tokens < 0.0 {
            let debt = Duration::from_secs_f64(-self.tokens / self.rate);
            // Whole microseconds, rounded up, so that a step repays at least
            // what it was meant to despite float rounding.
            let micros = debt.as_micros().saturating_add(1);
            let step = Duration::from_micros(u64::try_from(micros).unwrap_or(u64::MAX));
            self.clock.sleep(step.min(MAX_STEP));
            self.refill();
        }
    }

    fn refill(&mut self) {
        let now = self.clock.now();
        let elapsed = now.saturating_sub(self.last);
        self.last = now;
        self.tokens = (self.tokens + elapsed.as_secs_f64() * self.rate).min(self.burst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Time moves only when slept.
    #[derive(Default)]
    struct ManualClock {
        now: Mutex<Duration>,
        sleeps: Mutex<Vec<Duration>>,
    }

    impl Clock for ManualClock {
        fn now(&self) -> Duration {
            *self.now.lock().unwrap()
        }
        fn sleep(&self, duration: Duration) {
            *self.now.lock().unwrap() += duration;
            self.sleeps.lock().unwrap().push(duration);
        }
    }

    impl ManualClock {
        fn advance(&self, duration: Duration) {
            *self.now.lock().unwrap() += duration;
        }
        fn slept(&self) -> Duration {
            self.sleeps.lock().unwrap().iter().sum()
        }
    }

    #[test]
    fn sleeps_bytes_over_rate_in_small_steps() {
        let clock = Arc::new(ManualClock::default());
        let mut throttle = Throttle::new(1 << 20, 4096, clock.clone());
        for _ in 0..256 {
            throttle.take(16 << 10); // 4 MiB in all
        }
        let slept = clock.slept().as_secs_f64();
        assert!((slept - 4.0).abs() < 0.01, "slept {slept} s");
        assert!(clock.sleeps.lock().unwrap().iter().all(|s| *s <= MAX_STEP));
    }

    #[test]
    fn idle_time_earns_at_most_the_burst() {
        let clock = Arc::new(ManualClock::default());
        let rate = 1 << 20;
        let mut throttle = Throttle::new(rate, 0, clock.clone());
        clock.advance(Duration::from_secs(100));
        // The burst is 50 ms of the rate: 52428 bytes pass freely.
        throttle.take(50_000);
        assert_eq!(clock.slept(), Duration::ZERO);
        throttle.take(rate as usize);
        let slept = clock.slept().as_secs_f64();
        assert!(slept > 0.95 && slept < 1.0, "slept {slept} s");
    }

    #[test]
    fn a_slow_device_is_not_slowed_further() {
        let clock = Arc::new(ManualClock::default());
        let mut throttle = Throttle::new(1000, 100, clock.clone());
        throttle.take(100); // 0.1 s of debt
        let before = clock.slept();
        clock.advance(Duration::from_secs(1)); // the write took a second
        throttle.take(100);
        assert_eq!(clock.slept(), before);
    }
}
