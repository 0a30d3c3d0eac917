//! Merges step aside while searches run.
//!
//! A nice value is not enough on a small machine. With one tantivy merge
//! running at nice 10, the traffic dashboard's searches took 1.75x as long
//! on two cores (44 ms against 77 ms, summed over its searches). Two
//! likely causes, not measured apart: the kernel treats a core busy with
//! a low-priority thread as busy, so a waking search thread may queue
//! behind the other search thread instead of taking the merge's core;
//! and the merge's streaming writes evict the columns the searches are
//! reading from the shared caches.
//!
//! So a merge thread pauses while any search is collecting. Each search
//! holds a [`SearchInFlight`] guard while its segments are collected. A
//! merge thread checks the count each time it writes to one of its output
//! files (every 8 KiB of output), so it stops at its next write after a
//! search starts; a stretch of a merge that computes without writing is
//! not paused. Only merge threads (tantivy names them `merge_thread_N`)
//! are wrapped.
//! Indexing and refresh never wait, because they are what makes new
//! documents visible.
//!
//! A [`MergeYield`] bounds the pause. A merge waits at most `max_pause`
//! at a time. After a pause it runs for at least `min_run` before it may
//! pause again. So under a search load that never stops, a merge still
//! gets `min_run / (min_run + max_pause)` of its time. Segment counts stay
//! bounded: merges are slowed, never stopped. A pause ends as soon as the
//! last search finishes (a condition variable, not polling).

use std::cell::Cell;
use std::io::{self, BufWriter, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use tantivy::directory::{AntiCallToken, TerminatingWrite, WritePtr};

/// How long a merge may pause for searches (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeYield {
    max_pause: Duration,
    min_run: Duration,
}

impl Default for MergeYield {
    fn default() -> MergeYield {
        MergeYield::DEFAULT
    }
}

impl MergeYield {
    /// Merges never pause.
    pub(crate) const OFF: MergeYield = MergeYield {
        max_pause: Duration::ZERO,
        min_run: Duration::ZERO,
    };

    /// The default: pauses of up to 20 ms, 1 ms of progress between them.
    /// A merge keeps at least 1/21 of a core under a search load that
    /// never stops.
    pub const DEFAULT: MergeYield = MergeYield {
        max_pause: Duration::from_millis(20),
        min_run: Duration::from_millis(1),
    };

    /// The policy with the default's `min_run` and pauses of up to
    /// `max_pause` (zero: [`MergeYield::OFF`]).
    pub fn with_max_pause(max_pause: Duration) -> MergeYield {
        if max_pause.is_zero() {
            return MergeYield::OFF;
        }
        MergeYield {
            max_pause,
            min_run: MergeYield::DEFAULT.min_run,
        }
    }

    /// The longest single pause.
    pub fn max_pause(self) -> Duration {
        self.max_pause
    }

    /// Whether merges ever pause.
    pub(crate) fn is_off(self) -> bool {
        self.max_pause.is_zero()
    }

    /// `writer` itself, or, on a merge thread when the policy is on, a
    /// writer that pauses before writing while searches run.
    pub(crate) fn wrap(self, writer: WritePtr) -> WritePtr {
        if self.is_off() || !on_merge_thread() {
            return writer;
        }
        BufWriter::new(Box::new(YieldingWrite {
            inner: writer,
            policy: self,
        }))
    }

    /// Pauses the calling thread while searches run, within the policy's
    /// bounds; returns how long it paused.
    fn pause_for_searches(self, clock: &Clock) -> Duration {
        if IN_FLIGHT.load(Ordering::SeqCst) == 0 {
            return Duration::ZERO;
        }
        let now = Instant::now();
        // A thread that never paused has made progress since it started.
        if clock
            .resumed
            .get()
            .is_some_and(|resumed| now.duration_since(resumed) < self.min_run)
        {
            return Duration::ZERO;
        }
        let deadline = now + self.max_pause;
        WAITING.fetch_add(1, Ordering::SeqCst);
        {
            let mut idle = IDLE.lock.lock();
            while IN_FLIGHT.load(Ordering::SeqCst) > 0 {
                if IDLE
                    .searches_done
                    .wait_until(&mut idle, deadline)
                    .timed_out()
                {
                    break;
                }
            }
        }
        WAITING.fetch_sub(1, Ordering::SeqCst);
        let end = Instant::now();
        clock.resumed.set(Some(end));
        let paused = end - now;
        PAUSES.fetch_add(1, Ordering::Relaxed);
        PAUSED_MICROS.fetch_add(paused.as_micros() as u64, Ordering::Relaxed);
        paused
    }
}

/// Searches collecting segments now, process-wide.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
/// Merge threads waiting for searches to finish.
static WAITING: AtomicUsize = AtomicUsize::new(0);
static PAUSES: AtomicU64 = AtomicU64::new(0);
static PAUSED_MICROS: AtomicU64 = AtomicU64::new(0);

/// Where paused merges wait for the last search to end.
struct Idle {
    lock: Mutex<()>,
    searches_done: Condvar,
}

static IDLE: Idle = Idle {
    lock: Mutex::new(()),
    searches_done: Condvar::new(),
};

/// Held by a search while it collects segments.
#[derive(Debug)]
pub(crate) struct SearchInFlight(());

impl SearchInFlight {
    /// Counts a search as running until the guard drops.
    pub(crate) fn begin() -> SearchInFlight {
        IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        SearchInFlight(())
    }
}

impl Drop for SearchInFlight {
    fn drop(&mut self) {
        // A waiter counts itself in WAITING before it reads IN_FLIGHT under
        // the lock; both orders are SeqCst, so either it sees zero here, or
        // this sees it waiting and wakes it once it sleeps.
        if IN_FLIGHT.fetch_sub(1, Ordering::SeqCst) == 1 && WAITING.load(Ordering::SeqCst) > 0 {
            let _idle = IDLE.lock.lock();
            IDLE.searches_done.notify_all();
        }
    }
}

/// Pauses of merges for searches since the process started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct YieldStats {
    /// Pauses taken.
    pub pauses: u64,
    /// Their total length.
    pub paused: Duration,
}

/// Process-wide totals of merge pauses.
pub fn stats() -> YieldStats {
    YieldStats {
        pauses: PAUSES.load(Ordering::Relaxed),
        paused: Duration::from_micros(PAUSED_MICROS.load(Ordering::Relaxed)),
    }
}

/// When the calling merge thread last resumed (shared by all the files a
/// merge writes, so that `min_run` is the thread's progress, not a file's).
struct Clock {
    resumed: Cell<Option<Instant>>,
}

thread_local! {
    static CLOCK: Clock = const { Clock { resumed: Cell::new(None) } };
}

/// Whether the calling thread is one of tantivy's merge threads (0.27
/// names its merge pool `merge_thread_{i}`, `indexer/segment_updater.rs`).
fn on_merge_thread() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|name| name.starts_with("merge_thread"))
}

/// A merge's output file that pauses for searches before each write.
struct YieldingWrite {
    inner: WritePtr,
    policy: MergeYield,
}

impl Write for YieldingWrite {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        CLOCK.with(|clock| self.policy.pause_for_searches(clock));
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl TerminatingWrite for YieldingWrite {
    fn terminate_ref(&mut self, token: AntiCallToken) -> io::Result<()> {
        self.inner.terminate_ref(token)
    }
}

#[cfg(test)]
#[path = "merge_yield_tests.rs"]
mod tests;
