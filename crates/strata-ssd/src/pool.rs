//! The reader pool: a few I/O threads serving
//! [`SsdStore::read_async`](crate::SsdStore::read_async), so that many
//! reads are in flight at once without blocking the async runtime.
//!
//! Bounded: at most `depth` jobs are queued or running; an async caller
//! waits for a slot (a semaphore permit) before enqueuing, so memory never
//! grows with the request rate. Threads stop when the pool is dropped and
//! the queue is empty; dropping never joins them (the last store handle may
//! be dropped on a pool thread).

use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, TrySendError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::SsdError;

/// Work for a pool thread.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// A fixed set of threads taking jobs from a bounded queue.
pub(crate) struct IoPool {
    jobs: Sender<Job>,
    slots: Arc<Semaphore>,
}

impl IoPool {
    /// Starts `threads` threads with room for `depth` jobs in flight.
    pub(crate) fn new(threads: usize, depth: usize) -> Result<IoPool, SsdError> {
        // A multi-consumer queue: idle threads wait on it without a lock.
        let (jobs, queue) = crossbeam_channel::bounded::<Job>(depth);
        for index in 0..threads {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("strata-ssd-io-{index}"))
                .spawn(move || serve(queue))
                .map_err(|e| SsdError::io("starting the reader pool", e))?;
        }
        Ok(IoPool {
            jobs,
            slots: Arc::new(Semaphore::new(depth)),
        })
    }

    /// Waits (asynchronously) for a slot; the job must drop the permit when
    /// done.
    pub(crate) async fn slot(slots: Arc<Semaphore>) -> Result<OwnedSemaphorePermit, SsdError> {
        slots.acquire_owned().await.map_err(|_| SsdError::Closed)
    }

    /// The semaphore to wait on with [`slot`](Self::slot).
    pub(crate) fn slots(&self) -> Arc<Semaphore> {
        self.slots.clone()
    }

    /// Queues `job`; the caller holds a slot, so the queue has room.
    pub(crate) fn submit(&self, job: Job) -> Result<(), SsdError> {
        match self.jobs.try_send(job) {
            Ok(()) => Ok(()),
            // Only if a job leaked its permit: the bound is still kept.
            Err(TrySendError::Full(job)) => self.jobs.send(job).map_err(|_| SsdError::Closed),
            Err(TrySendError::Disconnected(_)) => Err(SsdError::Closed),
        }
    }
}

/// A pool thread's loop: until every sender is gone.
fn serve(queue: Receiver<Job>) {
    while let Ok(job) = queue.recv() {
        job();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn jobs_run_on_pool_threads() {
        let pool = IoPool::new(3, 4).unwrap();
        let done = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..20 {
            let (done, tx) = (done.clone(), tx.clone());
            pool.submit(Box::new(move || {
                let name = std::thread::current().name().map(str::to_owned);
                done.fetch_add(1, Ordering::SeqCst);
                tx.send(name).unwrap();
            }))
            .unwrap();
        }
        for _ in 0..20 {
            let name = rx.recv().unwrap().unwrap();
            assert!(name.starts_with("strata-ssd-io-"));
        }
        assert_eq!(done.load(Ordering::SeqCst), 20);
    }
}
