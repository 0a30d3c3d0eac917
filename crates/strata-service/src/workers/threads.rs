//! [`WorkerThreads`]: which threads each pool worker runs on, and the CPU
//! time they have used, from `/proc/<pid>/task/<tid>/schedstat` (what
//! the governor calls busy).
//!
//! A worker's runtime may run on more than one thread (a
//! `block_in_place` hands its core to a new one; blocking tasks get
//! their own): all of them count. A thread's time is kept when it exits,
//! so a worker's figure never goes down.

use std::path::PathBuf;
use std::thread::ThreadId;
use std::time::Duration;

use parking_lot::Mutex;

/// One worker's threads.
#[derive(Default)]
struct Threads {
    live: Vec<(ThreadId, PathBuf)>,
    /// CPU time of the threads that exited.
    retired: Duration,
}

/// Every worker's threads.
pub(super) struct WorkerThreads {
    workers: Vec<Mutex<Threads>>,
}

impl WorkerThreads {
    pub(super) fn new(workers: usize) -> Self {
        Self {
            workers: (0..workers).map(|_| Mutex::default()).collect(),
        }
    }

    /// Records the calling thread as one of `worker`'s.
    pub(super) fn register(&self, worker: usize) {
        let Some(stat) = own_schedstat() else {
            return;
        };
        if let Some(threads) = self.workers.get(worker) {
            threads
                .lock()
                .live
                .push((std::thread::current().id(), stat));
        }
    }

    /// Forgets the calling thread (it is exiting), keeping its CPU time.
    pub(super) fn unregister(&self, worker: usize) {
        let Some(threads) = self.workers.get(worker) else {
            return;
        };
        let id = std::thread::current().id();
        let mut threads = threads.lock();
        if let Some(at) = threads.live.iter().position(|(t, _)| *t == id) {
            let (_, stat) = threads.live.swap_remove(at);
            threads.retired += cpu_time(&stat).unwrap_or_default();
        }
    }

    /// CPU time each worker's threads have used so far.
    pub(super) fn cpu_times(&self) -> Vec<Duration> {
        self.workers
            .iter()
            .map(|threads| {
                let threads = threads.lock();
                let live: Duration = threads
                    .live
                    .iter()
                    .filter_map(|(_, stat)| cpu_time(stat))
                    .sum();
                threads.retired + live
            })
            .collect()
    }
}

/// Whether the calling thread can read its own CPU time (what the
/// governor needs of every worker thread).
pub(super) fn cpu_time_readable() -> bool {
    own_schedstat().is_some_and(|stat| cpu_time(&stat).is_some())
}

/// The calling thread's schedstat file.
fn own_schedstat() -> Option<PathBuf> {
    // "<pid>/task/<tid>", relative to /proc.
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    Some(PathBuf::from("/proc").join(link).join("schedstat"))
}

/// The first field of a schedstat file: nanoseconds on a CPU.
fn cpu_time(stat: &PathBuf) -> Option<Duration> {
    let text = std::fs::read_to_string(stat).ok()?;
    let ns = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{cpu_time_readable, WorkerThreads};

    /// Spins for `span` of wall time on the calling thread.
    fn spin(span: Duration) {
        let start = Instant::now();
        let mut x = 1u64;
        while start.elapsed() < span {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
        }
    }

    #[test]
    fn a_worker_s_cpu_time_grows_with_its_threads_and_survives_their_exit() {
        // Linux with schedstat, as every machine this runs on: the adaptive
        // pool depends on it (and falls back to all workers without it).
        assert!(cpu_time_readable());
        let threads = std::sync::Arc::new(WorkerThreads::new(2));
        let worker_threads = threads.clone();
        std::thread::spawn(move || {
            worker_threads.register(1);
            spin(Duration::from_millis(100));
            worker_threads.unregister(1);
        })
        .join()
        .expect("thread");
        let times = threads.cpu_times();
        assert_eq!(times[0], Duration::ZERO);
        // Some of the spin was on a CPU (how much depends on the load).
        assert!(times[1] >= Duration::from_millis(5), "{times:?}");
        // A live thread counts too.
        threads.register(0);
        spin(Duration::from_millis(50));
        assert!(threads.cpu_times()[0] >= Duration::from_millis(2));
        threads.unregister(0);
    }
}
