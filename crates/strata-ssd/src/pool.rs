//! The reader pool: a few I/O threads serving
//! [`SsdStore::read_async`](crate::SsdStore::read_async), so that many
//! reads are in flight at once without blocking the async runtime.
//!
//! A job is a [`ReadJob`]: the one device read it needs first, then the
//! rest of its work with that read's outcome. The [`IoEngine`] decides how
//! threads do the reads: one blocking `read_at` at a time
//! ([`IoEngine::Threads`]), or ([`IoEngine::Uring`]) one thread owning an
//! io_uring ring ([`UringReader`]) that keeps up to the depth of reads in
//! flight: it submits the jobs as they arrive (everything waiting, in the
//! same `io_uring_enter` that waits for a completion) and finishes each
//! job as soon as its own read is done. A device with no file under it
//! (memory, faults: [`BlockDevice::ring_file`]) is read by the thread
//! engine's threads whatever the engine, so its power cuts and faults
//! apply; so is a file where the kernel refuses the ring.
//!
//! Bounded: at most `depth` jobs are queued or running; an async caller
//! waits for a slot (a semaphore permit) before enqueuing, so memory never
//! grows with the request rate. Threads stop when the pool is dropped and
//! the queue is empty; dropping never joins them (the last store handle may
//! be dropped on a pool thread).

use std::io;
use std::sync::{mpsc, Arc};

use crossbeam_channel::{Receiver, Sender, TrySendError};
use strata_device::{
    uring_available, uring_reader, BlockDevice, ReadTarget, RingWaker, UringReader,
};
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

/// The ring reads into the buffer the job asks for (asked once).
impl ReadTarget for dyn ReadJob {
    fn target(&mut self) -> Option<(&mut [u8], u64)> {
        self.request()
    }
}

/// A fixed set of threads taking jobs from a bounded queue.
pub(crate) struct IoPool {
    jobs: Sender<Job>,
    slots: Arc<Semaphore>,
    engine: IoEngine,
    /// Wakes the ring thread waiting for completions when a job is queued.
    wake: Option<RingWaker>,
}

impl IoPool {
    /// Starts the threads reading `device` as `engine` says (the thread
    /// engine's `threads` threads, logged, where io_uring is refused),
    /// with room for `depth` jobs in flight.
    pub(crate) fn new(
        threads: usize,
        depth: usize,
        engine: IoEngine,
        device: Arc<dyn BlockDevice>,
    ) -> Result<IoPool, SsdError> {
        // A multi-consumer queue: idle threads wait on it without a lock.
        let (jobs, queue) = crossbeam_channel::bounded::<Job>(depth);
        let (engine, wake) = match engine {
            IoEngine::Uring => match start_ring(&queue, depth, device.clone())? {
                Ok(wake) => (IoEngine::Uring, wake),
                Err(why) => {
                    tracing::warn!(%why, "SSD reads: io_uring unavailable, using reader threads");
                    (IoEngine::Threads, None)
                }
            },
            IoEngine::Threads => (IoEngine::Threads, None),
        };
        let reader_threads = match engine {
            IoEngine::Uring => 0,
            IoEngine::Threads => threads,
        };
        for index in 0..reader_threads {
            let queue = queue.clone();
            let device = device.clone();
            std::thread::Builder::new()
                .name(format!("strata-ssd-io-{index}"))
                .spawn(move || serve(&queue, &*device))
                .map_err(|e| SsdError::io("starting the reader pool", e))?;
        }
        Ok(IoPool {
            jobs,
            slots: Arc::new(Semaphore::new(depth)),
            engine,
            wake,
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
            Ok(()) => {}
            // Only if a job leaked its permit: the bound is still kept.
            Err(TrySendError::Full(job)) => self.jobs.send(job).map_err(|_| SsdError::Closed)?,
            Err(TrySendError::Disconnected(_)) => return Err(SsdError::Closed),
        }
        if let Some(wake) = &self.wake {
            wake.wake();
        }
        Ok(())
    }
}

/// The thread engine's loop, until every sender is gone: one job, one
/// blocking read, at a time.
fn serve(queue: &Receiver<Job>, device: &dyn BlockDevice) {
    while let Ok(job) = queue.recv() {
        run(device, job);
    }
}

/// Does `job`'s read with a blocking `read_at`, then the rest of it.
fn run(device: &dyn BlockDevice, mut job: Job) {
    let read = match job.request() {
        Some((buf, offset)) => device.read_at(buf, offset),
        None => Ok(()),
    };
    job.finish(read);
}

/// Starts the ring thread on `device`, returning its waker (if the system
/// gave one). `Ok(Err(why))` where there is no ring to be had (io_uring
/// refused, or no file under the device): the thread has ended and the
/// caller starts the thread engine instead.
fn start_ring(
    queue: &Receiver<Job>,
    depth: usize,
    device: Arc<dyn BlockDevice>,
) -> Result<Result<Option<RingWaker>, String>, SsdError> {
    if let Err(why) = uring_available() {
        return Ok(Err(why));
    }
    let (ready, started) = mpsc::channel();
    let queue = queue.clone();
    std::thread::Builder::new()
        .name("strata-ssd-io-ring".to_owned())
        .spawn(move || {
            let reader = match uring_reader::<Box<dyn ReadJob>>(&*device, depth) {
                Some(Ok(reader)) => reader,
                Some(Err(e)) => return drop(ready.send(Err(e.to_string()))),
                None => return drop(ready.send(Err("the device is not a plain file".into()))),
            };
            let _ = ready.send(Ok(reader.waker()));
            serve_ring(&queue, reader, &*device);
        })
        .map_err(|e| SsdError::io("starting the reader pool", e))?;
    Ok(started
        .recv()
        .unwrap_or_else(|_| Err("the ring thread ended at start".to_owned())))
}

/// The ring engine's loop, until every sender is gone and every read is
/// done: waits for a job only when none is pending, takes every job
/// waiting while the ring has room, then (one `io_uring_enter`) submits
/// them and waits for at least one completion or a new job (the pool's
/// waker), and finishes each job whose read is done.
fn serve_ring(queue: &Receiver<Job>, mut reader: UringReader<Job>, device: &dyn BlockDevice) {
    loop {
        if reader.pending() == 0 {
            match queue.recv() {
                Ok(job) => submit(&mut reader, job, device),
                Err(_) => return,
            }
        }
        while reader.has_room() {
            match queue.try_recv() {
                Ok(job) => submit(&mut reader, job, device),
                Err(_) => break,
            }
        }
        reader.complete(|job, read| job.finish(read));
    }
}

/// Puts `job` in the ring; were it full (the loop checks first), reads it
/// here instead.
fn submit(reader: &mut UringReader<Job>, job: Job, device: &dyn BlockDevice) {
    if let Err(job) = reader.submit(job) {
        run(device, job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_device::{AlignedBuf, BlockFile, IoMode, MemBlockDevice, BLOCK_ALIGN};

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

    /// 64 blocks, block `b` filled with `b`, on `device`.
    fn fill(device: &dyn BlockDevice) {
        for b in 0..64u8 {
            let mut block = AlignedBuf::zeroed(BLOCK_ALIGN);
            block.fill(b);
            device
                .write_at(&block, u64::from(b) * BLOCK_ALIGN as u64)
                .unwrap();
        }
    }

    /// In memory, and on a file (where the ring engine uses its ring).
    #[test]
    fn jobs_run_on_pool_threads_with_their_reads_in_both_engines() {
        let mem = MemBlockDevice::new(64 * BLOCK_ALIGN);
        fill(&mem);
        let dir = tempfile::tempdir().unwrap();
        let file = BlockFile::create(dir.path().join("blocks"), 64 * 4096, IoMode::Buffered);
        let file: Arc<dyn BlockDevice> = Arc::new(file.unwrap());
        fill(&*file);
        let mem: Arc<dyn BlockDevice> = Arc::new(mem);
        for (device, has_file) in [(mem, false), (file, true)] {
            for engine in [IoEngine::Threads, IoEngine::Uring] {
                let pool = IoPool::new(3, 4, engine, device.clone()).unwrap();
                let ring = engine == IoEngine::Uring && has_file && uring_available().is_ok();
                let expected_engine = if ring { engine } else { IoEngine::Threads };
                assert_eq!(pool.engine(), expected_engine);
                check_pool(&pool, ring);
            }
        }
    }

    /// 70 jobs (64 reads of each block, one needing no read, five past the
    /// end) through `pool`, on its ring thread when `ring`.
    fn check_pool(pool: &IoPool, ring: bool) {
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
            let name = name.unwrap();
            match ring {
                true => assert_eq!(name, "strata-ssd-io-ring"),
                false => {
                    assert!(name.starts_with("strata-ssd-io-") && name != "strata-ssd-io-ring")
                }
            }
            match read {
                Ok(byte) => seen.push(byte),
                Err(_) => errors += 1,
            }
        }
        seen.sort_unstable();
        let mut expected: Vec<u8> = (0..64).collect();
        expected.push(0); // the job without a read keeps its zeroes
        expected.sort_unstable();
        assert_eq!(seen, expected, "ring: {ring}");
        assert_eq!(errors, 5, "ring: {ring}");
    }
}
