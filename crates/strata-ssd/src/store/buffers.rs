//! [`ReadBuffers`]: the aligned buffers of device reads, with the large
//! ones kept for reuse up to a byte budget ([`SsdConfig::read_buffers`](crate::SsdConfig::read_buffers)).
//!
//! A large read hands its payload out in place: the [`Bytes`] returned owns
//! the buffer ([`Lease::into_bytes`]), so the read costs no copy. When the
//! last `Bytes` of it drops, the buffer comes back here instead of to the
//! allocator. A scan of the tier (the analytics cache reads megabytes per
//! segment) otherwise faulted in fresh pages on every read, copied the
//! payload into more fresh pages, and gave both back with `madvise`: about
//! 45% of the CPU of a logistic regression whose table lived on the SSD.
//! Small reads (a KV record's 4 KiB window) are copied out as before, so a
//! small cached record never pins a whole window; their buffers (one
//! [`SMALL_BUF`] each) are kept for the next read too, up to
//! [`SMALL_IDLE`] of them: a miss of the KV tier otherwise allocated and
//! zeroed a fresh window each time (about 1% of a Zipfian load's CPU).

use std::ops::{Deref, DerefMut, Range};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_device::AlignedBuf;

/// Reads of at least this many bytes are large: handed out in place and
/// their buffers pooled. Without a pool (budget 0: the KV tier) a buffer is
/// exactly the aligned window, so the slack a payload pins (at most two
/// 4 KiB alignment pages and an entry header) is under 13% of it; with a
/// pool, a reused buffer may be up to twice the read.
pub(crate) const LARGE_READ: usize = 64 * 1024;

/// Pooled buffers are sized in steps of this, so that segments of nearly
/// the same size share buffers (only when there is a pool to share).
const SIZE_STEP: usize = 64 * 1024;

/// Bytes of a small read's buffer: the windows of most records (one or two
/// 4 KiB pages) share one size, so any idle one serves.
const SMALL_BUF: usize = 8 * 1024;

/// Idle small buffers kept at most (per store): the reads one serving
/// thread's ring keeps in flight, about.
const SMALL_IDLE: usize = 64;

/// The read buffers of one store.
pub(crate) struct ReadBuffers {
    /// Bytes of idle large buffers kept at most.
    budget: usize,
    idle: Mutex<Idle>,
    /// Idle small buffers, each [`SMALL_BUF`] long.
    small: Mutex<Vec<AlignedBuf>>,
}

#[derive(Default)]
struct Idle {
    buffers: Vec<AlignedBuf>,
    bytes: usize,
}

impl ReadBuffers {
    /// Keeps up to `budget` bytes of idle large buffers (0: none).
    pub(crate) fn new(budget: u64) -> Arc<ReadBuffers> {
        Arc::new(ReadBuffers {
            budget: usize::try_from(budget).unwrap_or(usize::MAX),
            idle: Mutex::new(Idle::default()),
            small: Mutex::new(Vec::new()),
        })
    }

    /// A buffer of `len` bytes: an idle one if there is one that fits (for
    /// a large read, of at least `len` and at most twice it; its content is
    /// what the last read left, and the caller overwrites the `len` bytes
    /// it uses), else a new zeroed one.
    pub(crate) fn take(self: &Arc<ReadBuffers>, len: usize) -> Lease {
        if len <= SMALL_BUF {
            let idle = self.small.lock().pop();
            return Lease {
                buf: Some(idle.unwrap_or_else(|| AlignedBuf::zeroed(SMALL_BUF))),
                len,
                home: Some(self.clone()),
                size: Size::Small,
            };
        }
        if len < LARGE_READ {
            return Lease {
                buf: Some(AlignedBuf::zeroed(len)),
                len,
                home: None,
                size: Size::Small,
            };
        }
        let reused = {
            let mut idle = self.idle.lock();
            let fit = idle
                .buffers
                .iter()
                .position(|b| b.len() >= len && b.len() / 2 <= len);
            fit.map(|at| {
                let buf = idle.buffers.swap_remove(at);
                idle.bytes -= buf.len();
                buf
            })
        };
        let size = if self.budget > 0 {
            len.div_ceil(SIZE_STEP) * SIZE_STEP
        } else {
            len
        };
        let buf = reused.unwrap_or_else(|| AlignedBuf::zeroed(size));
        Lease {
            buf: Some(buf),
            len,
            home: Some(self.clone()),
            size: Size::Large,
        }
    }

    /// Takes `buf` back if there is room for it; otherwise it is freed.
    fn give_back(&self, buf: AlignedBuf, size: Size) {
        if size == Size::Small {
            let mut small = self.small.lock();
            if small.len() < SMALL_IDLE {
                small.push(buf);
            }
            return;
        }
        let mut idle = self.idle.lock();
        if idle.bytes + buf.len() <= self.budget {
            idle.bytes += buf.len();
            idle.buffers.push(buf);
        }
    }

    /// Bytes of idle large buffers held now.
    #[cfg(test)]
    fn idle_bytes(&self) -> usize {
        self.idle.lock().bytes
    }
}

/// Which kind of read a buffer serves: small ones are copied out, large
/// ones handed out in place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Size {
    Small,
    Large,
}

/// A buffer of [`ReadBuffers`]: derefs to its first `len` bytes, and goes
/// back to its pool (if it came from one) when dropped.
pub(crate) struct Lease {
    /// Always `Some` until dropped.
    buf: Option<AlignedBuf>,
    len: usize,
    home: Option<Arc<ReadBuffers>>,
    size: Size,
}

impl Lease {
    /// `range` of the buffer as `Bytes`: in place for a large buffer (the
    /// `Bytes` keeps the buffer until its last clone drops), copied out of a
    /// small one.
    pub(crate) fn into_bytes(self, range: Range<usize>) -> Bytes {
        if self.size == Size::Small {
            return Bytes::copy_from_slice(&self[range]);
        }
        Bytes::from_owner(self).slice(range)
    }
}

impl Deref for Lease {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.buf {
            Some(buf) => &buf[..self.len],
            None => &[],
        }
    }
}

impl DerefMut for Lease {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.buf {
            Some(buf) => &mut buf[..self.len],
            None => &mut [],
        }
    }
}

impl AsRef<[u8]> for Lease {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let (Some(home), Some(buf)) = (&self.home, self.buf.take()) {
            home.give_back(buf, self.size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_device::BLOCK_ALIGN;

    #[test]
    fn small_reads_are_copied_and_their_buffers_reused() {
        let buffers = ReadBuffers::new(1 << 20);
        let mut lease = buffers.take(BLOCK_ALIGN);
        assert_eq!(lease.len(), BLOCK_ALIGN);
        assert_eq!(lease.as_ptr() as usize % BLOCK_ALIGN, 0);
        lease[10] = 7;
        let first = lease.as_ptr();
        let bytes = lease.into_bytes(8..12);
        assert_eq!(&bytes[..], &[0, 0, 7, 0]);
        assert_ne!(bytes.as_ptr(), first.wrapping_add(8), "copied out");
        assert_eq!(buffers.idle_bytes(), 0, "not counted on the large budget");
        // The buffer went back when the lease was consumed: the next small
        // read (up to two pages) gets it, whatever the budget of large ones.
        let again = ReadBuffers::take(&buffers, 2 * BLOCK_ALIGN);
        assert_eq!(again.as_ptr(), first);
        assert_eq!(again.len(), 2 * BLOCK_ALIGN);
        drop(again);
        let unpooled = ReadBuffers::new(0);
        let lease = unpooled.take(BLOCK_ALIGN);
        let at = lease.as_ptr();
        drop(lease);
        assert_eq!(unpooled.take(BLOCK_ALIGN).as_ptr(), at);
    }

    #[test]
    fn idle_small_buffers_are_bounded() {
        let buffers = ReadBuffers::new(0);
        let leases: Vec<Lease> = (0..SMALL_IDLE + 10)
            .map(|_| buffers.take(BLOCK_ALIGN))
            .collect();
        drop(leases);
        assert_eq!(buffers.small.lock().len(), SMALL_IDLE);
        // A read between the small size and the large one is neither.
        let middle = buffers.take(SMALL_BUF + BLOCK_ALIGN);
        assert!(middle.home.is_none());
        drop(middle);
        assert_eq!(buffers.small.lock().len(), SMALL_IDLE);
    }

    #[test]
    fn a_large_buffer_returns_when_its_last_bytes_drop_and_is_reused() {
        let buffers = ReadBuffers::new(1 << 20);
        let len = LARGE_READ + BLOCK_ALIGN;
        let mut lease = buffers.take(len);
        assert_eq!(lease.len(), len);
        assert_eq!(lease.as_ptr() as usize % BLOCK_ALIGN, 0);
        lease[100] = 9;
        let first = lease.as_ptr();
        let bytes = lease.into_bytes(100..200);
        let clone = bytes.clone();
        drop(bytes);
        assert_eq!(buffers.idle_bytes(), 0, "a clone still holds it");
        assert_eq!(clone[0], 9);
        drop(clone);
        assert_eq!(buffers.idle_bytes(), 2 * SIZE_STEP);
        // A read of a similar size reuses it; a much smaller one does not.
        assert_ne!(buffers.take(LARGE_READ / 2).as_ptr(), first);
        let again = buffers.take(len - BLOCK_ALIGN);
        assert_eq!(again.as_ptr(), first);
        assert_eq!(buffers.idle_bytes(), 0);
    }

    #[test]
    fn idle_buffers_stay_within_the_budget() {
        let buffers = ReadBuffers::new(3 * LARGE_READ as u64);
        let leases: Vec<Lease> = (0..5).map(|_| buffers.take(LARGE_READ)).collect();
        drop(leases);
        assert_eq!(buffers.idle_bytes(), 3 * LARGE_READ);
        let none = ReadBuffers::new(0);
        let exact = none.take(LARGE_READ + 4096);
        assert_eq!(exact.buf.as_ref().map(|b| b.len()), Some(LARGE_READ + 4096));
        drop(exact);
        assert_eq!(none.idle_bytes(), 0);
    }
}
