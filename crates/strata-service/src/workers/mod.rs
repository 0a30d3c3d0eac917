//! [`WorkerPool`]: the threads that run client connections, each its own
//! one-worker tokio runtime, so a connection stays on the thread it was
//! given and no thread steals another's work; and how many of them serve
//! ([`WorkerPolicy`], [`governor`]).
//!
//! Why not one runtime with N workers: on a machine whose cores the
//! clients share, tokio's work stealing wakes idle workers whenever a
//! worker finds more than one task ready, so N workers cost more CPU per
//! request than one. Separate runtimes keep each connection's wake-ups on
//! one thread, as memcached's worker threads do.
//!
//! Each runtime is a multi-thread runtime with one worker rather than a
//! current-thread one, so `block_in_place` still works there (a long Lua
//! script hands the worker's other connections to a fresh thread, which
//! keeps `SCRIPT KILL` servable).
//!
//! Invariants: a new connection goes to the active worker with the fewest
//! live tasks; a connection on an inactive worker, or on one with two
//! more tasks than the least loaded active one, is asked to move (the
//! driver moves it between two requests, see `driver::connection`); with
//! [`WorkerPolicy::Fixed`] every worker is active, with
//! [`WorkerPolicy::Adaptive`] a sampling thread sets the count from
//! measurement ([`governor::Governor`]). Each worker ends a `round` of
//! held replies whenever it runs out of ready connections.

use std::cell::OnceCell;
use std::fmt;
use std::future::Future;
use std::io;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use tokio::runtime::{Builder, Handle, Runtime};

pub mod governor;
#[cfg(test)]
mod governor_tests;
mod handoff;
pub(crate) mod round;
#[cfg(test)]
mod tests;
mod threads;

use self::governor::{Governor, Sample, SAMPLE_EVERY};
pub(crate) use self::handoff::take_left_worker;
pub use self::handoff::{block_in_place, leave_worker};
#[cfg(test)]
use self::round::Hold;
use self::round::Round;
use self::threads::WorkerThreads;

/// How many of the pool's workers serve connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorkerPolicy {
    /// All of them, always.
    Fixed,
    /// As many as serve the most, measured ([`governor`]).
    #[default]
    Adaptive,
}

impl WorkerPolicy {
    /// The policy's name in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerPolicy::Fixed => "fixed",
            WorkerPolicy::Adaptive => "adaptive",
        }
    }
}

impl FromStr for WorkerPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "fixed" => Ok(WorkerPolicy::Fixed),
            "adaptive" => Ok(WorkerPolicy::Adaptive),
            other => Err(format!("unknown worker policy `{other}` (fixed, adaptive)")),
        }
    }
}

/// A counter alone on its cache line: each worker bumps its own.
#[repr(align(64))]
#[derive(Default)]
struct Counter(AtomicU64);

/// What a pool thread knows of itself.
struct Here {
    worker: usize,
    served: Arc<[Counter]>,
    /// The worker's round of held replies (shared by all its threads: a
    /// `block_in_place` moves the worker to another one mid-round).
    round: Arc<Round>,
}

thread_local! {
    /// Set once on every thread a pool runtime starts.
    static HERE: OnceCell<Here> = const { OnceCell::new() };
}

/// The worker the calling thread belongs to, if it is a pool thread.
pub fn current() -> Option<usize> {
    HERE.with(|here| here.get().map(|h| h.worker))
}

/// Counts `bytes` of input consumed on the calling thread's worker (what
/// the governor's rate is measured in); nothing off the pool.
pub fn note_served(bytes: usize) {
    HERE.with(|here| {
        if let Some(h) = here.get() {
            h.served[h.worker]
                .0
                .fetch_add(bytes as u64, Ordering::Relaxed);
        }
    });
}

/// Calls `f` with the calling thread's worker's round (see [`round`]);
/// `None` off the pool, where nothing ends rounds.
pub(crate) fn with_round<R>(f: impl FnOnce(&Arc<Round>) -> R) -> Option<R> {
    HERE.with(|here| here.get().map(|h| f(&h.round)))
}

/// Waits until the calling thread's worker ends its round; `None` off
/// the pool.
#[cfg(test)]
fn end_of_round() -> Option<Hold> {
    with_round(|round| round.clone().hold())
}

/// Ends the calling thread's worker's round if it is stale (see
/// [`round::STALE_AFTER`]).
pub(crate) fn end_stale_round(now: Instant) {
    HERE.with(|here| {
        if let Some(h) = here.get() {
            h.round.end_if_stale(now);
        }
    });
}

/// The connection runtimes, one worker thread each.
pub struct WorkerPool {
    /// Taken by [`WorkerPool::stop`]; the handles outlive it harmlessly
    /// (spawning onto a stopped runtime drops the task).
    runtimes: Mutex<Vec<Runtime>>,
    handles: Vec<Handle>,
    /// Live tasks per worker.
    load: Arc<[AtomicUsize]>,
    /// Workers `0..active` take connections.
    active: Arc<AtomicUsize>,
    /// The policy in force: `Fixed` when `Adaptive` was asked of one
    /// worker or where threads' CPU time cannot be read.
    policy: WorkerPolicy,
    sampler: Mutex<Option<(Arc<AtomicBool>, JoinHandle<()>)>>,
}

impl fmt::Debug for WorkerPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkerPool")
            .field("workers", &self.handles.len())
            .field("active", &self.active())
            .finish()
    }
}

impl WorkerPool {
    /// Starts `workers` (at least one) runtimes whose threads are named
    /// `name`, under `policy`.
    pub fn start(workers: usize, name: &str, policy: WorkerPolicy) -> io::Result<Self> {
        let workers = workers.max(1);
        let served: Arc<[Counter]> = (0..workers).map(|_| Counter::default()).collect();
        let threads = Arc::new(WorkerThreads::new(workers));
        let mut runtimes = Vec::with_capacity(workers);
        for worker in 0..workers {
            let (served, started, stopped) = (served.clone(), threads.clone(), threads.clone());
            let round = Arc::new(Round::default());
            let parking = round.clone();
            runtimes.push(
                Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name(name)
                    .thread_stack_size(crate::thread_stack::THREAD_STACK_SIZE)
                    .enable_all()
                    .on_thread_start(move || {
                        HERE.with(|here| {
                            let _ = here.set(Here {
                                worker,
                                served: served.clone(),
                                round: round.clone(),
                            });
                        });
                        started.register(worker);
                    })
                    .on_thread_stop(move || stopped.unregister(worker))
                    // The run queue is empty: every ready connection ran.
                    .on_thread_park(move || parking.end())
                    .build()?,
            );
        }
        let mut adaptive = policy == WorkerPolicy::Adaptive && workers > 1;
        if adaptive && !threads::cpu_time_readable() {
            // Without threads' CPU times no worker ever looks busy, and
            // one would serve whatever the load: use them all instead.
            tracing::warn!(
                workers,
                "threads' CPU time is not readable (/proc/thread-self/schedstat): all workers serve"
            );
            adaptive = false;
        }
        let active = Arc::new(AtomicUsize::new(if adaptive { 1 } else { workers }));
        let sampler = adaptive
            .then(|| start_sampler(workers, served, threads, active.clone()))
            .transpose()?;
        Ok(Self {
            handles: runtimes.iter().map(|r| r.handle().clone()).collect(),
            load: runtimes.iter().map(|_| AtomicUsize::new(0)).collect(),
            runtimes: Mutex::new(runtimes),
            active,
            policy: if adaptive {
                WorkerPolicy::Adaptive
            } else {
                WorkerPolicy::Fixed
            },
            sampler: Mutex::new(sampler),
        })
    }

    /// The policy in force (see the field).
    pub fn policy(&self) -> WorkerPolicy {
        self.policy
    }

    /// How many workers the pool has.
    pub fn workers(&self) -> usize {
        self.handles.len()
    }

    /// How many take connections now.
    pub fn active(&self) -> usize {
        self.active.load(Ordering::Relaxed).clamp(1, self.workers())
    }

    /// Makes workers `0..n` (at least one, at most all) take connections;
    /// the others' connections move as they reach their next request.
    /// Under [`WorkerPolicy::Adaptive`] the governor sets it again at its
    /// next decision.
    pub fn set_active(&self, n: usize) {
        self.active
            .store(n.clamp(1, self.workers()), Ordering::Relaxed);
    }

    /// Live tasks per worker.
    pub fn load(&self) -> Vec<usize> {
        self.load
            .iter()
            .map(|l| l.load(Ordering::Relaxed))
            .collect()
    }

    /// The active worker with the fewest live tasks (the first such).
    fn least_loaded(&self) -> (usize, usize) {
        (0..self.active())
            .map(|i| (i, self.load[i].load(Ordering::Relaxed)))
            .min_by_key(|&(_, load)| load)
            .unwrap_or((0, 0))
    }

    /// Runs `task` to completion on the least loaded active worker.
    pub fn spawn<F>(&self, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.spawn_on(self.least_loaded().0, task);
    }

    /// Runs `task` to completion on worker `worker` (the last one when
    /// past the end).
    pub fn spawn_on<F>(&self, worker: usize, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let worker = worker.min(self.workers() - 1);
        self.load[worker].fetch_add(1, Ordering::Relaxed);
        let done = Done {
            load: self.load.clone(),
            worker,
        };
        self.handles[worker].spawn(async move {
            let _done = done;
            task.await;
        });
    }

    /// Where a connection on worker `here` should go: the least loaded
    /// active worker when `here` is inactive or has two tasks more than
    /// it; `None` to stay.
    pub fn move_target(&self, here: usize) -> Option<usize> {
        let (target, least) = self.least_loaded();
        let here_load = self.load.get(here)?.load(Ordering::Relaxed);
        (here >= self.active() || here_load > least + 1).then_some(target)
    }

    /// Stops the sampler and every worker without waiting for tasks still
    /// running (they are dropped: call it after connections have
    /// drained). Safe from async code.
    pub fn stop(&self) {
        let sampler = self
            .sampler
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some((stop, thread)) = sampler {
            stop.store(true, Ordering::Relaxed);
            thread.thread().unpark();
            let _ = thread.join();
        }
        let runtimes =
            std::mem::take(&mut *self.runtimes.lock().unwrap_or_else(|e| e.into_inner()));
        for runtime in runtimes {
            runtime.shutdown_background();
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Counts a task out of its worker's load when it ends or is dropped.
struct Done {
    load: Arc<[AtomicUsize]>,
    worker: usize,
}

impl Drop for Done {
    fn drop(&mut self) {
        self.load[self.worker].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Starts the thread that samples the workers every [`SAMPLE_EVERY`] and
/// sets `active` as the governor decides.
fn start_sampler(
    workers: usize,
    served: Arc<[Counter]>,
    threads: Arc<WorkerThreads>,
    active: Arc<AtomicUsize>,
) -> io::Result<(Arc<AtomicBool>, JoinHandle<()>)> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let thread = std::thread::Builder::new()
        .name("strata-governor".into())
        .spawn(move || {
            let mut governor = Governor::new(workers);
            let started = Instant::now();
            let mut next = started + SAMPLE_EVERY;
            while !stopping.load(Ordering::Relaxed) {
                let now = Instant::now();
                if now < next {
                    std::thread::park_timeout(next - now);
                    continue;
                }
                let sample = Sample {
                    at: now - started,
                    served: served.iter().map(|c| c.0.load(Ordering::Relaxed)).sum(),
                    busy: threads.cpu_times(),
                };
                let before = governor.active();
                let after = governor.observe(sample);
                if after != before {
                    tracing::debug!(from = before, to = after, "connection workers");
                    active.store(after, Ordering::Relaxed);
                }
                next += SAMPLE_EVERY;
                // After a stall (a suspended process), sample from now on.
                if now > next + SAMPLE_EVERY * 10 {
                    next = now + SAMPLE_EVERY;
                }
            }
        })?;
    Ok((stop, thread))
}
