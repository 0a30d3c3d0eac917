//! [`Clock`]: the time source and sleeper the writer's pacing uses, behind a
//! trait so that tests can pace a snapshot without really sleeping.

use std::time::{Duration, Instant};

/// Monotonic time and sleeping, as the rate limiter sees them.
///
/// Implementations MUST make `now` non-decreasing. A test clock typically
/// advances `now` by exactly the duration asked of `sleep` and records it.
pub trait Clock: Send + Sync {
    /// Time elapsed since some fixed origin.
    fn now(&self) -> Duration;

    /// Waits about `duration` (a few milliseconds at most per call).
    fn sleep(&self, duration: Duration);
}

/// The real monotonic clock and `std::thread::sleep`.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock whose origin is now.
    pub fn new() -> SystemClock {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> SystemClock {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}
