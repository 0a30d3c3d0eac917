//! [`MemBlockDevice`]: a block device in memory that remembers what was
//! made durable, so a test can cut the power and check what a restart
//! finds. A thin adapter: the bytes and the crash model are one core
//! [`MemImage`] of fixed size (torn cuts as a drive makes them: any subset
//! of the unsynced writes, the last one torn at a 512-byte sector).
//! Never used for real data.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use super::{check_block_io, BlockDevice};
use crate::core::{MemImage, SplitMix, TornCut, BLOCK_ALIGN};

/// Sector size at which [`MemBlockDevice::crash_torn`] tears a write.
const SECTOR: usize = 512;

/// An in-memory [`BlockDevice`] that simulates power cuts.
///
/// Clones share the same bytes (a test keeps one to cut the power while a
/// store uses another). Thread-safe: reads share a lock, writes exclude.
#[derive(Clone)]
pub struct MemBlockDevice {
    shared: Arc<Shared>,
}

struct Shared {
    capacity: u64,
    image: RwLock<MemImage>,
    writes: AtomicU64,
    syncs: AtomicU64,
}

impl MemBlockDevice {
    /// A zeroed device of `capacity` bytes, all durable.
    ///
    /// # Panics
    /// If `capacity` is not a multiple of [`BLOCK_ALIGN`] (a test bug).
    pub fn new(capacity: usize) -> MemBlockDevice {
        assert_eq!(capacity % BLOCK_ALIGN, 0, "capacity must be 4096-aligned");
        MemBlockDevice::with_content(vec![0; capacity])
    }

    fn with_content(content: Vec<u8>) -> MemBlockDevice {
        MemBlockDevice {
            shared: Arc::new(Shared {
                capacity: content.len() as u64,
                image: RwLock::new(MemImage::all_durable(content)),
                writes: AtomicU64::new(0),
                syncs: AtomicU64::new(0),
            }),
        }
    }

    /// What a power cut leaves, as a new independent device: only the
    /// bytes made durable by a successful `sync`. `self` is unchanged.
    pub fn crash(&self) -> MemBlockDevice {
        MemBlockDevice::with_content(self.shared.image.read().after_crash())
    }

    /// What a killed process leaves, as a new independent device: every
    /// write that reached the device, synced or not (the kernel keeps what
    /// the process handed it; only a power cut loses unsynced writes).
    /// `self` is unchanged.
    pub fn after_kill(&self) -> MemBlockDevice {
        MemBlockDevice::with_content(self.shared.image.read().after_kill())
    }

    /// What a power cut may leave on a real drive, as a new independent
    /// device: the durable bytes plus a random subset of the unsynced
    /// writes (applied in their order), the last one kept possibly torn to
    /// a prefix of its 512-byte sectors. The same `seed` on the same
    /// history gives the same result. `self` is unchanged.
    pub fn crash_torn(&self, seed: u64) -> MemBlockDevice {
        let cut = TornCut::AnySubset { sector: SECTOR };
        let content = (self.shared.image.read()).after_torn_crash(&mut SplitMix::new(seed), cut);
        MemBlockDevice::with_content(content)
    }

    /// XORs `mask` into the byte at `offset`, both now and in the durable
    /// state: bit rot, for corruption tests.
    ///
    /// # Panics
    /// If `offset` is past the capacity.
    pub fn damage(&self, offset: u64, mask: u8) {
        self.shared.image.write().damage(offset as usize, mask);
    }

    /// `write_at` calls so far (refused ones excluded).
    pub fn writes(&self) -> u64 {
        self.shared.writes.load(Ordering::Acquire)
    }

    /// `sync` calls so far.
    pub fn syncs(&self) -> u64 {
        self.shared.syncs.load(Ordering::Acquire)
    }

    /// Bytes written since the last `sync` (what a crash may lose).
    pub fn unsynced_bytes(&self) -> usize {
        self.shared.image.read().unsynced_bytes()
    }
}

impl BlockDevice for MemBlockDevice {
    fn capacity(&self) -> u64 {
        self.shared.capacity
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        check_block_io(buf, offset, self.shared.capacity)?;
        let image = self.shared.image.read();
        let start = offset as usize;
        buf.copy_from_slice(&image.current()[start..start + buf.len()]);
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        check_block_io(buf, offset, self.shared.capacity)?;
        self.shared.image.write().write(offset as usize, buf);
        self.shared.writes.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        self.shared.image.write().sync();
        self.shared.syncs.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// No page cache is involved: the caller alone caches.
    fn is_direct(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AlignedBuf;

    fn page(byte: u8) -> AlignedBuf {
        let mut buf = AlignedBuf::zeroed(BLOCK_ALIGN);
        buf.fill(byte);
        buf
    }

    fn read(device: &MemBlockDevice, offset: u64) -> AlignedBuf {
        let mut buf = AlignedBuf::zeroed(BLOCK_ALIGN);
        device.read_at(&mut buf, offset).unwrap();
        buf
    }

    #[test]
    fn crash_keeps_only_synced_writes() {
        let device = MemBlockDevice::new(4 * BLOCK_ALIGN);
        device.write_at(&page(1), 0).unwrap();
        device.sync().unwrap();
        device.write_at(&page(2), 0).unwrap();
        device.write_at(&page(3), 4096).unwrap();
        assert_eq!(read(&device, 0)[0], 2, "readers see unsynced writes");
        assert_eq!(device.unsynced_bytes(), 8192);
        let after = device.crash();
        assert_eq!(read(&after, 0)[0], 1);
        assert_eq!(read(&after, 4096)[0], 0);
        assert_eq!(read(&device, 4096)[0], 3, "the original is unchanged");
    }

    #[test]
    fn torn_crash_keeps_a_subset_and_tears_at_sector_granularity() {
        let device = MemBlockDevice::new(16 * BLOCK_ALIGN);
        for i in 0..16u8 {
            device.write_at(&page(i + 1), u64::from(i) * 4096).unwrap();
        }
        let mut saw_torn = false;
        let mut saw_gap = false;
        for seed in 0..200 {
            let after = device.crash_torn(seed);
            assert_eq!(after.crash_torn(seed).unsynced_bytes(), 0);
            let pages: Vec<AlignedBuf> = (0..16).map(|i| read(&after, i * 4096)).collect();
            for (i, page) in pages.iter().enumerate() {
                // Each sector is all new or all old (zero).
                for sector in page.chunks(SECTOR) {
                    assert!(sector.iter().all(|&b| b == sector[0]));
                    assert!(sector[0] == 0 || sector[0] == i as u8 + 1);
                }
                saw_torn |= page[0] != 0 && page[4095] == 0;
            }
            let present: Vec<bool> = pages.iter().map(|p| p[0] != 0).collect();
            saw_gap |= present.windows(2).any(|w| !w[0] && w[1]);
        }
        assert!(saw_torn && saw_gap);
        assert_eq!(device.crash_torn(7).capacity(), device.capacity());
    }

    #[test]
    fn misaligned_requests_are_refused_and_damage_flips_bytes() {
        let device = MemBlockDevice::new(2 * BLOCK_ALIGN);
        let mut buf = AlignedBuf::zeroed(BLOCK_ALIGN + 512);
        assert!(device.read_at(&mut buf, 0).is_err());
        assert!(device.write_at(&buf[512..], 0).is_err());
        assert!(device.write_at(&buf[..4096], 8192).is_err());
        assert_eq!(device.writes(), 0);
        device.damage(4100, 0xFF);
        assert_eq!(read(&device.crash(), 4096)[4], 0xFF);
    }
}
