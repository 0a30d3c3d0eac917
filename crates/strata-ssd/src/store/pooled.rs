//! Reads served by the reader pool
//! ([`SsdStore::read_async`](super::SsdStore::read_async)): the record
//! cache is looked up on the caller's task; a miss becomes a
//! [`PooledRead`], whose first device read the pool does (alone or in a
//! batch with others, as its engine says) and whose rest (a second read
//! for an entry longer than the first window, the check, the cache fill,
//! the answer) runs on the pool thread. The same steps as a blocking
//! [`read`](super::SsdStore::read), split where the device is.

use std::io;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::{oneshot, OwnedSemaphorePermit};

use super::buffers::Lease;
use super::handle::Inner;
use super::read::Target;
use crate::error::SsdError;
use crate::loc::BlockLoc;
use crate::pool::{IoPool, ReadJob};
use crate::stats::add;

/// One pooled read of the entry at `target`.
struct PooledRead {
    inner: Arc<Inner>,
    target: Target,
    /// The payload length when the caller knows it.
    len: Option<usize>,
    /// Where the job is: found in the open block's buffer, or its first
    /// window being read.
    state: State,
    /// The pool slot, given back before answering (none in a thread's
    /// own ring).
    slot: Option<OwnedSemaphorePermit>,
    answer: oneshot::Sender<Result<Bytes, SsdError>>,
}

enum State {
    /// `request` has not run.
    New,
    /// The open block's buffer had it: no device read.
    Buffered(Result<(u8, Bytes), SsdError>),
    /// The first window, block offsets `base..head_end`, being read.
    Window {
        image: Lease,
        base: usize,
        head_end: usize,
    },
}

impl ReadJob for PooledRead {
    fn request(&mut self) -> Option<(&mut [u8], u64)> {
        if let Some(found) = self.inner.open_read(&self.target) {
            self.state = State::Buffered(found);
            return None;
        }
        let loc = self.target.loc();
        let (base, head_end) = self.inner.first_window(loc, true, self.len);
        let image = self.inner.buffers.take(head_end - base);
        self.state = State::Window {
            image,
            base,
            head_end,
        };
        let at = self.inner.device_offset(loc.block, base);
        match &mut self.state {
            State::Window { image, .. } => Some((&mut image[..], at)),
            _ => None,
        }
    }

    fn finish(self: Box<Self>, read: io::Result<()>) {
        let PooledRead {
            inner,
            target,
            state,
            slot,
            answer,
            ..
        } = *self;
        let result = complete(&inner, &target, state, read);
        drop(slot);
        let _ = answer.send(result);
    }
}

/// The rest of a pooled read after its first device read ended as `read`
/// says: as the blocking fetch after its first read.
fn complete(
    inner: &Inner,
    target: &Target,
    state: State,
    read: io::Result<()>,
) -> Result<Bytes, SsdError> {
    let loc: BlockLoc = target.loc();
    let found = match state {
        State::Buffered(found) => found?,
        State::Window {
            image,
            base,
            head_end,
        } => {
            inner.count_read(read, image.len(), loc.block, base)?;
            let (image, base) = inner.rest_of_window(loc, image, base, head_end)?;
            inner.decode(target, image, base)?
        }
        // `finish` always follows `request`.
        State::New => return Err(SsdError::Closed),
    };
    let payload = found.1;
    inner.cache_fetched(target, &payload);
    Ok(payload)
}

/// See [`SsdStore::read_async`](super::SsdStore::read_async).
/// With `check_cache` false the cache is not looked up (the caller just
/// missed it), only filled.
pub(crate) async fn read_async(
    inner: Arc<Inner>,
    loc: BlockLoc,
    check_cache: bool,
    len: Option<usize>,
    hint: u64,
) -> Result<Bytes, SsdError> {
    let target = inner.target(loc, hint)?;
    if check_cache {
        if let Some(hit) = inner.cached(&target) {
            return Ok(hit);
        }
    }
    let (answer, answered) = oneshot::channel();
    let mut job = Box::new(PooledRead {
        inner: inner.clone(),
        target,
        len,
        state: State::New,
        slot: None,
        answer,
    });
    // A read of unknown length may need a second, blocking read after the
    // first: the pool's threads do those, not the runtime's.
    if let (Some(rings), Some(_)) = (&inner.rings, len) {
        match rings.submit(job) {
            Ok(()) => {
                add(&inner.counters.thread_ring_reads, 1);
                return answered.await.map_err(|_| SsdError::Closed)?;
            }
            Err(back) => job = back,
        }
    }
    job.slot = Some(IoPool::slot(inner.pool.slots()).await?);
    inner.pool.submit(job)?;
    answered.await.map_err(|_| SsdError::Closed)?
}
