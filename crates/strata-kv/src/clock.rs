//! Time as the engine sees it: wall-clock milliseconds since the Unix epoch.
//!
//! Every expiry decision goes through a [`Clock`], so tests drive time with a
//! [`ManualClock`] instead of sleeping.
//!
//! A front end may [`hold_now`] for a batch of requests read together: the
//! [`SystemClock`] then answers that one reading on this thread until the
//! guard is dropped, as Redis's commands read `commandTimeSnapshot()`
//! instead of the clock (a script sees the time it started; a pipelined
//! batch, the time it was taken). A reading costs about 30 ns here, and a
//! write read the clock three times: 5% of a pipelined `SET`'s server time.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of wall-clock time.
///
/// Implementations MUST be cheap (called on every request) and SHOULD be
/// monotonic in practice; a clock stepping backwards only delays expiry.
pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;

    /// Seconds since the Unix epoch.
    fn now_secs(&self) -> u64 {
        self.now_ms() / 1000
    }
}

/// The operating system's real-time clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        HELD.get().unwrap_or_else(system_now_ms)
    }
}

fn system_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

thread_local! {
    /// The reading [`SystemClock`] answers on this thread while held.
    static HELD: Cell<Option<u64>> = const { Cell::new(None) };
}

/// Reads the system clock once and has [`SystemClock`] answer that reading
/// on this thread until the guard is dropped (guards nest; dropping one
/// restores what was held before it). Hold it only around work that takes
/// no longer than a batch of requests: time stands still meanwhile.
#[must_use = "the time is held only while the guard lives"]
pub fn hold_now() -> HeldNow {
    HeldNow {
        before: HELD.replace(Some(system_now_ms())),
    }
}

/// Guard of [`hold_now`].
#[derive(Debug)]
pub struct HeldNow {
    before: Option<u64>,
}

impl Drop for HeldNow {
    fn drop(&mut self) {
        HELD.set(self.before);
    }
}

/// A clock that only moves when told to; for tests of expiry.
#[derive(Debug)]
pub struct ManualClock {
    now_ms: AtomicU64,
}

impl ManualClock {
    /// A clock standing at `now_ms`.
    pub fn new(now_ms: u64) -> Self {
        Self {
            now_ms: AtomicU64::new(now_ms),
        }
    }

    /// Moves the clock forward by `ms`.
    pub fn advance_ms(&self, ms: u64) {
        self.now_ms.fetch_add(ms, Ordering::SeqCst);
    }

    /// Sets the clock to `now_ms`.
    pub fn set_ms(&self, now_ms: u64) {
        self.now_ms.store(now_ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::{hold_now, Clock, SystemClock};

    #[test]
    fn a_held_reading_stands_until_its_guard_goes_and_only_on_its_thread() {
        let clock = SystemClock;
        let held = hold_now();
        let at = clock.now_ms();
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(clock.now_ms(), at);
        let elsewhere = std::thread::spawn(move || SystemClock.now_ms())
            .join()
            .unwrap();
        assert!(elsewhere >= at + 5, "{elsewhere} vs {at}");
        {
            let _inner = hold_now();
            assert!(clock.now_ms() >= at + 5);
        }
        assert_eq!(clock.now_ms(), at);
        drop(held);
        assert!(clock.now_ms() >= at + 5);
    }
}
