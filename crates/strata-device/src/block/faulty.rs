//! [`FaultyBlockDevice`]: wraps any [`BlockDevice`] and fails writes or
//! syncs on demand, as a dying drive would; otherwise passes everything
//! through. For tests only.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::BlockDevice;

/// "No limit".
const NONE: u64 = u64::MAX;

/// A [`BlockDevice`] that fails writes or syncs after a count.
///
/// Clones share the switches and counters. Switches apply to the next
/// operation and may be flipped from any thread.
#[derive(Clone)]
pub struct FaultyBlockDevice {
    inner: Arc<dyn BlockDevice>,
    switches: Arc<Switches>,
}

struct Switches {
    writes: AtomicU64,
    syncs: AtomicU64,
    write_limit: AtomicU64,
    sync_limit: AtomicU64,
}

impl FaultyBlockDevice {
    /// Wraps `inner` with no faults switched on.
    pub fn new(inner: Arc<dyn BlockDevice>) -> FaultyBlockDevice {
        FaultyBlockDevice {
            inner,
            switches: Arc::new(Switches {
                writes: AtomicU64::new(0),
                syncs: AtomicU64::new(0),
                write_limit: AtomicU64::new(NONE),
                sync_limit: AtomicU64::new(NONE),
            }),
        }
    }

    /// Counting from this call, the first `n` writes proceed and every
    /// later one fails with `EIO`, writing nothing.
    pub fn fail_writes_after(&self, n: u64) {
        let base = self.switches.writes.load(Ordering::Acquire);
        let limit = base.saturating_add(n);
        self.switches.write_limit.store(limit, Ordering::Release);
    }

    /// Counting from this call, the first `n` syncs proceed and every later
    /// one fails with `EIO` without syncing.
    pub fn fail_syncs_after(&self, n: u64) {
        let base = self.switches.syncs.load(Ordering::Acquire);
        let limit = base.saturating_add(n);
        self.switches.sync_limit.store(limit, Ordering::Release);
    }

    /// Back to normal; the counters keep counting.
    pub fn heal(&self) {
        self.switches.write_limit.store(NONE, Ordering::Release);
        self.switches.sync_limit.store(NONE, Ordering::Release);
    }

    /// Writes so far, failed ones included.
    pub fn writes(&self) -> u64 {
        self.switches.writes.load(Ordering::Acquire)
    }

    /// Syncs so far, failed ones included.
    pub fn syncs(&self) -> u64 {
        self.switches.syncs.load(Ordering::Acquire)
    }
}

/// Counts an operation; `EIO` if it is at or past its limit.
fn admit(count: &AtomicU64, limit: &AtomicU64) -> io::Result<()> {
    let index = count.fetch_add(1, Ordering::AcqRel);
    if index >= limit.load(Ordering::Acquire) {
        return Err(io::Error::from_raw_os_error(libc::EIO));
    }
    Ok(())
}

impl BlockDevice for FaultyBlockDevice {
    fn block_size(&self) -> usize {
        self.inner.block_size()
    }

    fn capacity(&self) -> u64 {
        self.inner.capacity()
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.inner.read_at(buf, offset)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        admit(&self.switches.writes, &self.switches.write_limit)?;
        self.inner.write_at(buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        admit(&self.switches.syncs, &self.switches.sync_limit)?;
        self.inner.sync()
    }

    fn is_direct(&self) -> bool {
        self.inner.is_direct()
    }

    fn space_reserved(&self) -> bool {
        self.inner.space_reserved()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AlignedBuf, MemBlockDevice};

    #[test]
    fn writes_and_syncs_fail_after_their_counts_until_healed() {
        let mem = MemBlockDevice::new(8192);
        let device = FaultyBlockDevice::new(Arc::new(mem.clone()));
        let page = AlignedBuf::zeroed(4096);
        device.fail_writes_after(1);
        device.fail_syncs_after(0);
        device.write_at(&page, 0).unwrap();
        let err = device.write_at(&page, 4096).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EIO));
        assert!(device.sync().is_err());
        assert_eq!(mem.writes(), 1);
        assert_eq!(mem.syncs(), 0);
        device.heal();
        device.write_at(&page, 4096).unwrap();
        device.sync().unwrap();
        assert_eq!((device.writes(), device.syncs()), (3, 2));
    }
}
