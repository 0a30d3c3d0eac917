//! The reader pool: a few I/O threads serving
//! [`SsdStore::read_async`](crate::SsdStore::read_async), so that many
//! reads are in flight at once without blocking the async runtime.
//!
//! A job is a [`ReadJob`]: the one device read it needs first, then the
//! rest of its work with that read's outcome. The [`IoEngine`] decides how
//! threads do the reads: one blocking `read_at` at a time
//! ([`IoEngine::Threads`]), or every job waiting (up to the depth) taken
//! at once and its reads put in flight together with
//! [`BlockDevice::read_batch`] ([`IoEngine::Uring`]: io_uring on a real
//! file, one ring per thread); each job then finishes in turn.
//!
//! Bounded: at most `depth` jobs are queued or running; an async caller
//! waits for a slot (a semaphore permit) before enqueuing, so memory never
//! grows with the request rate. Threads stop when the pool is dropped and
//! the queue is empty; dropping never joins them (the last store handle may
//! be dropped on a pool thread).

use std::io;
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, TrySendError};
use strata_device::{uring_available, BlockDevice, ReadReq};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::IoEngine;
use crate::error::SsdError;

/// Work for a pool thread: one device read, then what follows from it.
pub(crate) trait ReadJob: Send + 'static {
    /// The buffer and device offset of the read the job needs, or `None`
    /// when it needs none (the bytes were in DRAM after all).
    fn request(&mut self) -> Option<(&mut [u8], u64)>;

    /// Does the rest with the read's outcome (`Ok` when none was needed).
    fn finish(self: Box<Self>, read: io::Result<()>);
}

/// A queued job.
pub(crate) type Job = Box<dyn ReadJob>;

/// A fixed set of threads taking jobs from a bounded queue.
pub(crate) struct IoPool {
    jobs: Sender<Job>,
    slots: Arc<Semaphore>,
    engine: IoEngine,
}

impl IoPool {
    /// Starts `threads` threads reading `device` as `engine` says (the
    /// thread engine, logged, where io_uring is refused), with room for
    /// `depth` jobs in flight.
    pub(crate) fn new(
        threads: usize,
        depth: usize,
        engine: IoEngine,
        device: Arc<dyn BlockDevice>,
    ) -> Result<IoPool, SsdError> {
        let engine = match (engine, uring_available()) {
            (IoEngine::Uring, Err(why)) => {
                tracing::warn!(%why, "SSD reads: io_uring unavailable, using reader threads");
                IoEngine::Threads
            }
            (engine, _) => engine,
        };
        // A multi-consumer queue: idle threads wait on it without a lock.
        let (jobs, queue) = crossbeam_channel::bounded::<Job>(depth);
        for index in 0..threads {
            let queue = queue.clone();
            let device = device.clone();
            std::thread::Builder::new()
                .name(format!("strata-ssd-io-{index}"))
                .spawn(move || match engine {
                    IoEngine::Threads => serve(&queue, &*device),
                    IoEngine::Uring => serve_batches(&queue, &*device, depth),
                })
                .map_err(|e| SsdError::io("starting the reader pool", e))?;
        }
        Ok(IoPool {
            jobs,
            slots: Arc::new(Semaphore::new(depth)),
            engine,
        })
    }

    /// The engine the threads use (the thread engine when io_uring was
    /// asked for but refused).
    pub(crate) fn engine(&self) -> IoEngine {
        self.engine
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

/// The thread engine's loop, until every sender is gone: one job, one
/// blocking read, at a time.
fn serve(queue: &Receiver<Job>, device: &dyn BlockDevice) {
    while let Ok(mut job) = queue.recv() {
        let read = match job.request() {
            Some((buf, offset)) => device.read_at(buf, offset),
            None => Ok(()),
        };
        job.finish(read);
    }
}

/// The batch engine's loop, until every sender is gone: waits for a job,
/// takes every other one waiting (at most `depth` in all), reads for all
/// of them in one batch, then finishes each.
fn serve_batches(queue: &Receiver<Job>, device: &dyn BlockDevice, depth: usize) {
    let mut batch: Vec<Job> = Vec::with_capacity(depth);
    while let Ok(first) = queue.recv() {
        batch.push(first);
        while batch.len() < depth {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        run_batch(device, &mut batch);
    }
}

/// Reads for every job of `batch` together, then finishes them in order,
/// leaving `batch` empty.
fn run_batch(device: &dyn BlockDevice, batch: &mut Vec<Job>) {
    let mut reads = Vec::with_capacity(batch.len());
    let outcomes: Vec<io::Result<()>> = {
        let mut reqs = Vec::with_capacity(batch.len());
        for job in batch.iter_mut() {
            let request = job.request();
            reads.push(request.is_some());
            if let Some((buf, offset)) = request {
                reqs.push(ReadReq::new(buf, offset));
            }
        }
        device.read_batch(&mut reqs);
        reqs.into_iter().map(|req| req.result).collect()
    };
    let mut outcomes = outcomes.into_iter();
    for (job, read) in batch.drain(..).zip(reads) {
        let outcome = match read {
            // One outcome per request made, so `next` always has one.
            true => outcomes
                .next()
                .unwrap_or_else(|| Err(io::ErrorKind::Other.into())),
            false => Ok(()),
        };
        job.finish(outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use strata_device::{AlignedBuf, MemBlockDevice, BLOCK_ALIGN};

    /// Reads one block (or none) and sends what it read and on which
    /// thread.
    struct Probe {
        buf: AlignedBuf,
        offset: Option<u64>,
        done: mpsc::Sender<(Option<String>, io::Result<u8>)>,
    }

    impl ReadJob for Probe {
        fn request(&mut self) -> Option<(&mut [u8], u64)> {
            Some((&mut self.buf[..], self.offset?))
        }

        fn finish(self: Box<Self>, read: io::Result<()>) {
            let name = std::thread::current().name().map(str::to_owned);
            let _ = self.done.send((name, read.map(|()| self.buf[0])));
        }
    }

    #[test]
    fn jobs_run_on_pool_threads_with_their_reads_in_both_engines() {
        let mem = MemBlockDevice::new(64 * BLOCK_ALIGN);
        for b in 0..64u8 {
            let mut block = AlignedBuf::zeroed(BLOCK_ALIGN);
            block.fill(b);
            mem.write_at(&block, u64::from(b) * BLOCK_ALIGN as u64)
                .unwrap();
        }
        for engine in [IoEngine::Threads, IoEngine::Uring] {
            let pool = IoPool::new(3, 4, engine, Arc::new(mem.clone())).unwrap();
            let (tx, rx) = mpsc::channel();
            for k in 0..70u64 {
                let offset = match k {
                    64 => None,
                    65.. => Some(1 << 40), // past the end: an error
                    _ => Some(k * BLOCK_ALIGN as u64),
                };
                let buf = AlignedBuf::zeroed(BLOCK_ALIGN);
                let done = tx.clone();
                pool.submit(Box::new(Probe { buf, offset, done })).unwrap();
            }
            let mut seen = Vec::new();
            let mut errors = 0;
            for _ in 0..70 {
                let (name, read) = rx.recv().unwrap();
                assert!(name.unwrap().starts_with("strata-ssd-io-"));
                match read {
                    Ok(byte) => seen.push(byte),
                    Err(_) => errors += 1,
                }
            }
            seen.sort_unstable();
            let mut expected: Vec<u8> = (0..64).collect();
            expected.push(0); // the job without a read keeps its zeroes
            expected.sort_unstable();
            assert_eq!(seen, expected, "{engine}");
            assert_eq!(errors, 5, "{engine}");
        }
    }
}
