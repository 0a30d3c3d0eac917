//! [`Pause`]: `CLIENT PAUSE` and `CLIENT UNPAUSE`. While a pause lasts,
//! every command (`ALL`) or every command that may write (`WRITE`: the
//! table's `write` and `may_replicate` flags, so `EVAL` and `PUBLISH`, and
//! an `EXEC` that queued one) waits before it runs, in the connection and
//! not on a worker thread, as a blocking command does; the client that
//! paused is not exempt, as in Redis (under `ALL` even its `CLIENT
//! UNPAUSE` waits). A second pause keeps the later end and the stricter
//! mode. Redis also stops expiring and evicting keys during a pause, for
//! its replicas' sake; Strata has no replicas and keeps both running.
//!
//! Nobody paused costs one relaxed load per command.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tokio::sync::Notify;

/// What a pause holds back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PauseMode {
    /// Commands that may write.
    Write,
    /// Every command.
    All,
}

/// The server's pause, if any (one per front end).
#[derive(Debug, Default)]
pub struct Pause {
    /// Set while `until` holds a pause (a hint: `until` decides).
    active: Arc<AtomicBool>,
    until: Mutex<Option<(Instant, PauseMode)>>,
    /// Woken by `CLIENT UNPAUSE`.
    lifted: Arc<Notify>,
}

impl Pause {
    /// `CLIENT PAUSE`: pauses until `end` (or later, if already so paused)
    /// with `mode` (or a stricter one already in force).
    pub fn pause(&self, end: Instant, mode: PauseMode) {
        let mut until = self.until.lock();
        let next = match *until {
            Some((at, m)) if at > Instant::now() => (at.max(end), m.max(mode)),
            _ => (end, mode),
        };
        *until = Some(next);
        self.active.store(true, Ordering::Release);
    }

    /// `CLIENT UNPAUSE`: ends the pause; the paused commands run.
    pub fn unpause(&self) {
        *self.until.lock() = None;
        self.active.store(false, Ordering::Release);
        self.lifted.notify_waiters();
    }

    /// How long a command must still wait (`writes`: whether it may
    /// write); `None` when it runs now.
    pub fn holds(&self, writes: impl FnOnce() -> bool) -> Option<Duration> {
        if !self.active.load(Ordering::Relaxed) {
            return None;
        }
        let mut until = self.until.lock();
        let (end, mode) = (*until)?;
        let now = Instant::now();
        if end <= now {
            *until = None;
            self.active.store(false, Ordering::Release);
            return None;
        }
        (mode == PauseMode::All || writes()).then(|| end - now)
    }

    /// Resolves when the pause is lifted or `left` has passed (then the
    /// command asks [`holds`](Self::holds) again).
    pub fn wait(&self, left: Duration) -> impl std::future::Future<Output = ()> + Send + 'static {
        let lifted = Arc::clone(&self.lifted);
        let active = Arc::clone(&self.active);
        async move {
            let notified = lifted.notified();
            tokio::pin!(notified);
            // Registered before the check, so an unpause since the command
            // was held is seen either way.
            notified.as_mut().enable();
            if !active.load(Ordering::Acquire) {
                return;
            }
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep(left) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_holds_by_mode_until_its_end_or_unpause() {
        let pause = Pause::default();
        assert_eq!(pause.holds(|| true), None);
        let end = Instant::now() + Duration::from_secs(60);
        pause.pause(end, PauseMode::Write);
        assert!(pause.holds(|| true).is_some());
        assert_eq!(pause.holds(|| false), None, "reads run under WRITE");
        // A shorter ALL pause keeps the later end and takes the stricter mode.
        pause.pause(Instant::now() + Duration::from_millis(1), PauseMode::All);
        assert!(pause.holds(|| false).unwrap() > Duration::from_secs(50));
        pause.unpause();
        assert_eq!(pause.holds(|| true), None);
        pause.pause(Instant::now(), PauseMode::All);
        assert_eq!(pause.holds(|| true), None, "an ended pause holds nothing");
    }
}
