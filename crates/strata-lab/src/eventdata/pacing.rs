//! [`TokenBucket`]: holds indexing clients to a target rate of documents per second.
//!
//! The bucket fills at the target rate up to one bulk's worth of tokens. A client asks for
//! the documents of its next bulk; if the bucket holds fewer, it takes them anyway (the
//! balance goes negative) and waits as long as the refill of the debt takes. So the long-run
//! rate never exceeds the target, several clients share it fairly in arrival order, and a
//! slow server simply lowers the achieved rate instead of causing a burst later.

use std::time::{Duration, Instant};

/// A token bucket in documents.
#[derive(Debug)]
pub struct TokenBucket {
    rate: f64,
    capacity: f64,
    tokens: f64,
    updated: Instant,
}

impl TokenBucket {
    /// A full bucket refilling at `rate` tokens per second up to `capacity`. The caller
    /// guarantees both are positive and finite.
    pub fn new(rate: f64, capacity: f64, now: Instant) -> Self {
        Self {
            rate,
            capacity,
            tokens: capacity,
            updated: now,
        }
    }

    /// Takes `count` tokens at `now` and returns how long to wait before using them.
    pub fn reserve(&mut self, count: u64, now: Instant) -> Duration {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate).min(self.capacity);
        self.updated = self.updated.max(now);
        self.tokens -= count as f64;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.tokens / self.rate)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_lets_one_bulk_through_then_paces() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(1000.0, 100.0, t0);
        let close =
            |d: Duration, ms: u64| d.abs_diff(Duration::from_millis(ms)) < Duration::from_micros(1);
        assert_eq!(bucket.reserve(100, t0), Duration::ZERO);
        // The next 100 documents need 0.1 s of refill, the ones after 0.2 s.
        assert!(close(bucket.reserve(100, t0), 100));
        assert!(close(bucket.reserve(100, t0), 200));
    }

    #[test]
    fn the_long_run_rate_is_the_target() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(5000.0, 1000.0, t0);
        let mut now = t0;
        let mut docs = 0;
        // A client that sends as soon as allowed, 1000 documents per bulk, for 10 s.
        while now < t0 + Duration::from_secs(10) {
            now += bucket.reserve(1000, now);
            docs += 1000;
        }
        let rate = f64::from(docs) / (now - t0).as_secs_f64();
        assert!((rate - 5000.0).abs() < 600.0, "{rate}");
        // Idle time does not bank more than one bulk.
        now += Duration::from_secs(60);
        assert_eq!(bucket.reserve(1000, now), Duration::ZERO);
        assert!(bucket.reserve(1000, now) > Duration::ZERO);
    }
}
