//! The serving threads' own rings ([`Rings`]): with the io_uring engine, a
//! thread that runs a tokio runtime reads the device through a ring of its
//! own. A miss then costs no hand-off to another thread: the task puts its
//! read in the ring, the ring's reaper task (spawned on that runtime)
//! submits the reads of the round's tasks together (one `io_uring_enter`,
//! one doorbell), learns of completions from an eventfd the kernel signals
//! and the runtime's reactor polls, and finishes each job (the check, the
//! cache fill, the answer) on the runtime's thread. Through the pool, each miss woke a reader thread and
//! was woken back from it: two cross-thread wake-ups per read, each a
//! VM exit on a virtual machine.
//!
//! Bounded: at most [`MAX_RINGS`] rings per store, each with the pool's
//! depth of reads in flight. A read that finds its thread's ring full, a
//! thread past the limit, a caller outside a tokio runtime, or a store
//! whose rings could not be made goes to the pool (`pool.rs`), which is
//! also where a device without a file under it is read.
//!
//! A ring whose reaper is gone (its runtime shut down) is marked closed and
//! replaced at its thread's next read; dropping it waits for the reads the
//! kernel still has (`UringReader`'s drop). A store's rings end with it.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::ThreadId;

use parking_lot::Mutex;
use strata_device::{uring_reader, BlockDevice, CompletionBell, UringReader};
use tokio::runtime::Handle;
use tokio::sync::Notify;

use crate::pool::{Job, ReadJob};

/// Rings per store at most (one per serving thread is the use).
pub(crate) const MAX_RINGS: usize = 16;

/// The rings of one store, by the thread they belong to.
pub(crate) struct Rings {
    device: Arc<dyn BlockDevice>,
    depth: usize,
    by_thread: Mutex<Vec<(ThreadId, Arc<Ring>)>>,
    /// Set when a ring could not be made (no ring for this device, an
    /// eventfd or reactor refused): every read then goes to the pool.
    refused: AtomicBool,
}

/// One thread's ring.
struct Ring {
    reader: Mutex<UringReader<Job>>,
    /// Makes the reaper look without a completion (items finished without
    /// the ring; closing).
    nudge: Notify,
    /// The reaper ended or must end: no more submissions.
    closed: AtomicBool,
    /// Reads wait in the submission queue for the reaper to submit them.
    submit_due: AtomicBool,
}

impl Rings {
    /// Rings reading `device`, each keeping up to `depth` reads in flight.
    pub(crate) fn new(device: Arc<dyn BlockDevice>, depth: usize) -> Rings {
        Rings {
            device,
            depth,
            by_thread: Mutex::new(Vec::new()),
            refused: AtomicBool::new(false),
        }
    }

    /// Reads `job` through the calling thread's ring (its reaper finishes
    /// it), or gives it back for the pool (see the module doc).
    pub(crate) fn submit<J: ReadJob>(&self, job: Box<J>) -> Result<(), Box<J>> {
        let Some(ring) = self.ring_here() else {
            return Err(job);
        };
        let mut reader = ring.reader.lock();
        if !reader.has_room() {
            return Err(job);
        }
        // Room means a free slot: taken.
        if let Err(job) = reader.submit(job as Job) {
            job.finish(Err(io::Error::other("the ring had no room")));
        }
        drop(reader);
        // The reaper submits at the end of the runtime's round, with the
        // reads of every task that ran in it: one system call and one
        // doorbell for all.
        if !ring.submit_due.swap(true, Ordering::AcqRel) {
            ring.nudge.notify_one();
        }
        Ok(())
    }

    /// The calling thread's ring, made on its first read.
    fn ring_here(&self) -> Option<Arc<Ring>> {
        if self.refused.load(Ordering::Relaxed) {
            return None;
        }
        let here = std::thread::current().id();
        let mut rings = self.by_thread.lock();
        let mut stale = None;
        if let Some(at) = rings.iter().position(|(thread, _)| *thread == here) {
            if !rings[at].1.closed.load(Ordering::Acquire) {
                return Some(rings[at].1.clone());
            }
            stale = Some(rings.swap_remove(at));
        }
        let ring = if rings.len() < MAX_RINGS {
            self.start()
        } else {
            None
        };
        if let Some(ring) = &ring {
            rings.push((here, ring.clone()));
        }
        drop(rings);
        // Outside the lock: dropping a ring waits for its reads in flight.
        drop(stale);
        ring
    }

    /// A new ring and its reaper on the current runtime; `None` outside
    /// one, or (also refusing later rings) where no ring can be made.
    fn start(&self) -> Option<Arc<Ring>> {
        let handle = Handle::try_current().ok()?;
        let made = (|| -> Result<(Arc<Ring>, CompletionBell), String> {
            let mut reader = uring_reader::<Job>(&*self.device, self.depth)
                .ok_or("the device is not a plain file")?
                .map_err(|e| e.to_string())?;
            let bell = reader.completion_bell().map_err(|e| e.to_string())?;
            let ring = Arc::new(Ring {
                reader: Mutex::new(reader),
                nudge: Notify::new(),
                closed: AtomicBool::new(false),
                submit_due: AtomicBool::new(false),
            });
            Ok((ring, bell))
        })();
        match made {
            Ok((ring, bell)) => {
                handle.spawn(reap(ring.clone(), bell));
                Some(ring)
            }
            Err(why) => {
                tracing::warn!(%why, "SSD reads: no per-thread io_uring ring, using the reader pool");
                self.refused.store(true, Ordering::Relaxed);
                None
            }
        }
    }
}

impl Drop for Rings {
    /// Ends every reaper (no read is in flight: each would hold the store).
    fn drop(&mut self) {
        for (_, ring) in self.by_thread.get_mut().drain(..) {
            ring.closed.store(true, Ordering::Release);
            ring.nudge.notify_one();
        }
    }
}

/// Marks its ring closed when the reaper ends, also when its runtime
/// drops it.
struct Closer(Arc<Ring>);

impl Drop for Closer {
    fn drop(&mut self) {
        self.0.closed.store(true, Ordering::Release);
    }
}

/// The reaper of `ring`: submits what waits, finishes every job whose read
/// is done (outside the ring's lock), then sleeps until the kernel posts a
/// completion (`bell`) or someone nudges. The bell is reset before the
/// completions are read, so one posted after that rings it again.
async fn reap(ring: Arc<Ring>, bell: CompletionBell) {
    let ring = Closer(ring);
    let mut done = Vec::new();
    loop {
        if ring.0.submit_due.load(Ordering::Acquire) {
            // Lets the other tasks of this round add their reads first.
            tokio::task::yield_now().await;
            ring.0.submit_due.store(false, Ordering::Release);
        }
        {
            let mut reader = ring.0.reader.lock();
            reader.submit_queued();
            reader.poll(|job, read| done.push((job, read)));
        }
        for (job, read) in done.drain(..) {
            job.finish(read);
        }
        if ring.0.closed.load(Ordering::Acquire) {
            return;
        }
        tokio::select! {
            rang = bell.ring() => if rang.is_err() {
                // The reactor is gone: so is the runtime.
                return;
            },
            () = ring.0.nudge.notified() => {}
        }
    }
}
