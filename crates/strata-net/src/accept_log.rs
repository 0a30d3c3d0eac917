//! Failed accepts come in bursts: when the process runs out of file
//! descriptors (`EMFILE`) every pending connection fails the same way, as
//! often as the loop retries. Logging each would flood the log exactly when
//! the machine is short of resources, so [`AcceptErrorLog`] lets one line
//! through per interval and counts the others, which the next line reports.

use std::time::{Duration, Instant};

/// Rate limit of accept-failure log lines for one listener.
#[derive(Debug)]
pub struct AcceptErrorLog {
    interval: Duration,
    last_logged: Option<Instant>,
    suppressed: u64,
}

impl AcceptErrorLog {
    /// One line per second at most.
    pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

    /// A log letting at most one line through per `interval`.
    pub fn new(interval: Duration) -> Self {
        Self {
            interval,
            last_logged: None,
            suppressed: 0,
        }
    }

    /// Records a failure at `now`. Returns `Some(n)` when a line is due,
    /// `n` being the failures suppressed since the last line; `None` when
    /// this one is suppressed (and counted).
    pub fn record(&mut self, now: Instant) -> Option<u64> {
        let due = self
            .last_logged
            .is_none_or(|last| now.saturating_duration_since(last) >= self.interval);
        if due {
            self.last_logged = Some(now);
            Some(std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            None
        }
    }

    /// Records `err` of the listener on `addr` now and logs it if a line
    /// is due.
    pub fn report(&mut self, addr: Option<std::net::SocketAddr>, err: &std::io::Error) {
        if let Some(suppressed) = self.record(Instant::now()) {
            tracing::warn!(
                addr = ?addr,
                %err,
                suppressed,
                "accept failed (similar failures are logged at most once a second; `suppressed` counts those not logged since the last line)"
            );
        }
    }
}

impl Default for AcceptErrorLog {
    fn default() -> Self {
        Self::new(Self::DEFAULT_INTERVAL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_interval_counting_the_rest() {
        let mut log = AcceptErrorLog::new(Duration::from_secs(1));
        let t0 = Instant::now();
        assert_eq!(log.record(t0), Some(0));
        // A burst of 1,000 failures within the interval: all suppressed.
        for i in 1..=1000u64 {
            assert_eq!(log.record(t0 + Duration::from_micros(i * 900)), None);
        }
        // The first failure after the interval reports them.
        assert_eq!(log.record(t0 + Duration::from_secs(1)), Some(1000));
        assert_eq!(log.record(t0 + Duration::from_millis(1500)), None);
        assert_eq!(log.record(t0 + Duration::from_millis(2100)), Some(1));
        // A quiet period: the next failure is logged with nothing suppressed.
        assert_eq!(log.record(t0 + Duration::from_secs(60)), Some(0));
    }

    #[test]
    fn lines_over_a_long_burst_are_bounded_by_its_length() {
        let mut log = AcceptErrorLog::new(Duration::from_secs(1));
        let t0 = Instant::now();
        // 10 s of failures every 100 us: 100,000 failures, at most 11 lines.
        let mut lines = 0;
        let mut total = 0;
        for i in 0..100_000u64 {
            if let Some(suppressed) = log.record(t0 + Duration::from_micros(i * 100)) {
                lines += 1;
                total += suppressed + 1;
            }
        }
        assert!(lines <= 11, "{lines} lines");
        // Every failure is accounted for, except those suppressed after the
        // last line.
        assert!(total <= 100_000 && total > 90_000, "{total}");
    }
}
