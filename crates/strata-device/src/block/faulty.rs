//! [`FaultyBlockDevice`]: wraps any [`BlockDevice`] and fails or tears
//! writes, or fails syncs, when its [`Faults`] say so, as a dying drive
//! would; otherwise passes everything through. A thin adapter over the
//! core's [`Faults::write`], the same switches a
//! [`FaultyDirectory`](crate::FaultyDirectory) obeys. For tests only.

use std::io;
use std::sync::Arc;

use super::BlockDevice;
use crate::core::BLOCK_ALIGN;
use crate::Faults;

/// A [`BlockDevice`] that injects the faults its shared [`Faults`] ask for.
///
/// Clones share the switches and counters. Switches apply to the next
/// operation and may be flipped from any thread. A torn write keeps whole
/// blocks; the capacity switch never fires (a block device never grows).
#[derive(Clone)]
pub struct FaultyBlockDevice {
    inner: Arc<dyn BlockDevice>,
    faults: Arc<Faults>,
}

impl FaultyBlockDevice {
    /// Wraps `inner` with no faults switched on.
    pub fn new(inner: Arc<dyn BlockDevice>) -> FaultyBlockDevice {
        FaultyBlockDevice::with_faults(inner, Arc::new(Faults::new()))
    }

    /// Wraps `inner`, obeying `faults` (shared with other devices or
    /// directories, so that one switch fails them all).
    pub fn with_faults(inner: Arc<dyn BlockDevice>, faults: Arc<Faults>) -> FaultyBlockDevice {
        FaultyBlockDevice { inner, faults }
    }

    /// The switches and counters.
    pub fn faults(&self) -> &Arc<Faults> {
        &self.faults
    }
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
        let write = |bytes: &[u8]| self.inner.write_at(bytes, offset);
        self.faults
            .write(buf, BLOCK_ALIGN, || Ok(0), || Ok(0), write)
    }

    fn sync(&self) -> io::Result<()> {
        self.faults.admit_sync()?;
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
        let faults = device.faults();
        let page = AlignedBuf::zeroed(4096);
        faults.fail_writes_after(1);
        faults.fail_syncs_after(0);
        device.write_at(&page, 0).unwrap();
        let err = device.write_at(&page, 4096).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EIO));
        assert!(device.sync().is_err());
        assert_eq!(mem.writes(), 1);
        assert_eq!(mem.syncs(), 0);
        faults.heal();
        device.write_at(&page, 4096).unwrap();
        device.sync().unwrap();
        assert_eq!((faults.writes(), faults.syncs()), (3, 2));
    }

    #[test]
    fn a_torn_write_keeps_whole_blocks_then_fails() {
        let mem = MemBlockDevice::new(4 * 4096);
        let device = FaultyBlockDevice::new(Arc::new(mem.clone()));
        let mut pages = AlignedBuf::zeroed(3 * 4096);
        pages.fill(7);
        device.faults().tear_next_write(4096 + 100);
        let err = device.write_at(&pages, 0).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EIO));
        let mut back = AlignedBuf::zeroed(3 * 4096);
        mem.read_at(&mut back, 0).unwrap();
        assert!(back[..4096].iter().all(|&b| b == 7));
        assert!(back[4096..].iter().all(|&b| b == 0));
        device.write_at(&pages, 0).unwrap();
    }
}
