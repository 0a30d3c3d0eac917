//! The CPU priority of a shard's background indexing threads.
//!
//! tantivy's indexing worker (turning handed-over documents into segments),
//! its merge threads and its segment updater run at a Linux nice value
//! above the searches', so that on a machine whose cores are all busy a
//! search preempts indexing and merging instead of sharing a core evenly
//! with them (Kibana's dashboards during a bulk load). Searches, the HTTP
//! workers, bulk parsing and the translog keep the normal priority, so
//! indexing still gets every cycle searches leave, and acknowledged writes
//! are not delayed by the translog.
//!
//! tantivy starts those threads itself: the merge and segment-updater
//! threads when a writer is created, an indexing worker at every commit.
//! A new thread takes its nice value from the thread that starts it, so
//! [`IndexingPriority::run`] runs the writer's creation and every commit
//! on a short-lived thread that first lowers its own priority. Raising a
//! nice value needs no privilege; lowering it back would, hence a fresh
//! thread rather than the caller's.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Result, SearchError};

/// The nice value of the background indexing threads (0: the same
/// priority as searches; at most [`IndexingPriority::MAX_NICE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexingPriority {
    nice: u8,
}

impl Default for IndexingPriority {
    fn default() -> IndexingPriority {
        IndexingPriority::DEFAULT
    }
}

impl IndexingPriority {
    /// The largest nice value Linux has.
    pub const MAX_NICE: u8 = 19;

    /// The default: nice 10, a tenth of a search's share of a busy core
    /// (the kernel weighs each nice step about 1.25x).
    pub const DEFAULT: IndexingPriority = IndexingPriority { nice: 10 };

    /// The priority of nice value `nice`; `None` above [`Self::MAX_NICE`].
    pub fn with_nice(nice: u8) -> Option<IndexingPriority> {
        (nice <= IndexingPriority::MAX_NICE).then_some(IndexingPriority { nice })
    }

    /// Its nice value.
    pub fn nice(self) -> u8 {
        self.nice
    }

    /// Runs `job` on a new thread at this priority (so the threads it
    /// starts inherit it) and returns what it returns; at
    /// nice 0 (the same priority as searches), on the caller's thread.
    pub(crate) fn run<R: Send>(self, job: impl FnOnce() -> R + Send) -> Result<R> {
        if self.nice == 0 {
            return Ok(job());
        }
        std::thread::scope(|scope| {
            let thread = std::thread::Builder::new()
                .name("strata-indexing".into())
                .spawn_scoped(scope, move || {
                    self.apply_to_this_thread();
                    job()
                })
                .map_err(|e| SearchError::io("start an indexing thread", e))?;
            thread
                .join()
                .map_err(|_| SearchError::illegal("an indexing thread panicked"))
        })
    }

    /// Raises the calling thread's nice value to this one (never lowers
    /// it: that needs a privilege). A failure (a sandbox refusing the
    /// call) is logged once and leaves the priority as it was.
    pub(crate) fn apply_to_this_thread(self) {
        static WARNED: AtomicBool = AtomicBool::new(false);
        // On Linux a thread id names that thread alone.
        let this = Some(rustix::thread::gettid());
        let outcome = rustix::process::getpriority_process(this).and_then(|current| {
            if current < i32::from(self.nice) {
                rustix::process::setpriority_process(this, i32::from(self.nice))
            } else {
                Ok(())
            }
        });
        if let Err(e) = outcome {
            if !WARNED.swap(true, Ordering::Relaxed) {
                tracing::warn!(error = %e, nice = self.nice,
                    "cannot lower the priority of the search indexing threads; they run at the searches' priority");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nice_of_this_thread() -> i32 {
        rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()
    }

    #[test]
    fn jobs_and_the_threads_they_start_run_at_the_priority() {
        let caller = nice_of_this_thread();
        let priority = IndexingPriority::with_nice(7).unwrap();
        let (job, child) = priority
            .run(|| {
                let child = std::thread::spawn(nice_of_this_thread).join().unwrap();
                (nice_of_this_thread(), child)
            })
            .unwrap();
        // At least 7: a test runner already at a higher nice value keeps it.
        assert_eq!((job, child), (caller.max(7), caller.max(7)));
        assert_eq!(
            nice_of_this_thread(),
            caller,
            "the caller's priority is unchanged"
        );
        assert_eq!(
            IndexingPriority { nice: 0 }
                .run(nice_of_this_thread)
                .unwrap(),
            caller
        );
    }

    #[test]
    fn nice_values_are_bounded() {
        assert_eq!(
            IndexingPriority::with_nice(19).map(IndexingPriority::nice),
            Some(19)
        );
        assert_eq!(IndexingPriority::with_nice(20), None);
        assert_eq!(IndexingPriority::default().nice(), 10);
    }
}
