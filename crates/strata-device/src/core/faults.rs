//! [`Faults`]: the switches a test flips to make a
//! [`FaultyDirectory`](crate::FaultyDirectory), a
//! [`FaultyTree`](crate::FaultyTree) or a
//! [`FaultyBlockDevice`](crate::FaultyBlockDevice) misbehave, the counters
//! it reads to aim them, and the one write path ([`Faults::write`]) both
//! wrappers send their writes through.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, MutexGuard};

/// "No limit" in the atomics below.
const NONE: u64 = u64::MAX;

/// Fault switches and operation counters shared by a
/// [`FaultyDirectory`](crate::FaultyDirectory) and every device it hands
/// out, or by a [`FaultyBlockDevice`](crate::FaultyBlockDevice) and its
/// clones. All methods take `&self` and may be called at any time from any
/// thread; a change applies to the next operation.
#[derive(Debug)]
pub struct Faults {
    writes: AtomicU64,
    syncs: AtomicU64,
    /// Tree operations (`FaultyTree`'s directory creations and listings).
    tree_ops: AtomicU64,
    /// Writes whose index (count of writes before them) is at least this fail.
    write_limit: AtomicU64,
    /// Same for syncs.
    sync_limit: AtomicU64,
    /// Same for tree operations.
    tree_limit: AtomicU64,
    /// Bytes the next write keeps before failing, or `NONE`.
    tear_next: AtomicU64,
    /// Total bytes all devices may hold, or `NONE`.
    capacity: AtomicU64,
    /// Held across a capacity check and its write, so that two writes
    /// cannot both take the last free bytes.
    space: Mutex<()>,
}

impl Default for Faults {
    fn default() -> Faults {
        Faults {
            writes: AtomicU64::new(0),
            syncs: AtomicU64::new(0),
            tree_ops: AtomicU64::new(0),
            write_limit: AtomicU64::new(NONE),
            sync_limit: AtomicU64::new(NONE),
            tree_limit: AtomicU64::new(NONE),
            tear_next: AtomicU64::new(NONE),
            capacity: AtomicU64::new(NONE),
            space: Mutex::new(()),
        }
    }
}

impl Faults {
    /// No faults.
    pub fn new() -> Faults {
        Faults::default()
    }

    /// Counting from this call, the first `n` `write_all_at` calls proceed
    /// and every later one fails with `EIO`, writing nothing.
    pub fn fail_writes_after(&self, n: u64) {
        limit_after(&self.writes, &self.write_limit, n);
    }

    /// The next `write_all_at` stores only the first `keep` bytes of its
    /// buffer (all of it if shorter), then fails with `EIO`. A block device
    /// keeps whole blocks only: `keep` is rounded down to 4096.
    pub fn tear_next_write(&self, keep: usize) {
        self.tear_next.store(keep as u64, Ordering::Release);
    }

    /// Counting from this call, the first `n` `sync` or `sync_names` calls
    /// proceed and every later one fails with `EIO` without syncing.
    pub fn fail_syncs_after(&self, n: u64) {
        limit_after(&self.syncs, &self.sync_limit, n);
    }

    /// Counting from this call, the first `n` tree operations (a
    /// [`FaultyTree`](crate::FaultyTree)'s `open_dir`, `list_dirs` and
    /// `list_files`: creating and listing directories) proceed and every
    /// later one fails with `EIO`, creating nothing.
    pub fn fail_tree_ops_after(&self, n: u64) {
        limit_after(&self.tree_ops, &self.tree_limit, n);
    }

    /// A write that would make the total length of the directory's devices
    /// (those with a name) exceed `bytes` fails with `ENOSPC`, writing
    /// nothing. Writes within the current lengths always fit (so every
    /// write into a block device, whose capacity is fixed, does).
    pub fn set_capacity(&self, bytes: u64) {
        self.capacity.store(bytes, Ordering::Release);
    }

    /// Back to normal: no failing writes, syncs or tree operations, no
    /// tear, no capacity. The counters keep counting.
    pub fn heal(&self) {
        for switch in [
            &self.write_limit,
            &self.sync_limit,
            &self.tree_limit,
            &self.tear_next,
            &self.capacity,
        ] {
            switch.store(NONE, Ordering::Release);
        }
    }

    /// `write_all_at` calls so far, failed ones included.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Acquire)
    }

    /// `sync` and `sync_names` calls so far, failed ones included.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Acquire)
    }

    /// Tree operations so far, failed ones included.
    pub fn tree_ops(&self) -> u64 {
        self.tree_ops.load(Ordering::Acquire)
    }

    /// Runs one write through the switches, in order: counts it and fails
    /// it (`EIO`, nothing written) if writes are failing; refuses it
    /// (`ENOSPC`, nothing written) if its `growth` (bytes past the device's
    /// end) would take the `used` bytes of all devices past the capacity
    /// (both asked only while a capacity is set); stores a prefix (the
    /// pending tear, rounded down to `unit` bytes) and fails (`EIO`).
    /// Otherwise `write` stores `buf`.
    pub(crate) fn write(
        &self,
        buf: &[u8],
        unit: usize,
        growth: impl FnOnce() -> io::Result<u64>,
        used: impl FnOnce() -> io::Result<u64>,
        write: impl Fn(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        self.admit_write()?;
        let _space = match self.capacity() {
            Some((capacity, guard)) => {
                let growth = growth()?;
                if growth > 0 && used()?.saturating_add(growth) > capacity {
                    return Err(no_space());
                }
                Some(guard)
            }
            None => None,
        };
        if let Some(keep) = self.take_tear() {
            let keep = usize::try_from(keep).map_or(buf.len(), |keep| keep.min(buf.len()));
            write(&buf[..keep - keep % unit])?;
            return Err(io_error());
        }
        write(buf)
    }

    /// Counts a write; an error if writes are failing.
    fn admit_write(&self) -> io::Result<()> {
        admit(&self.writes, &self.write_limit)
    }

    /// Counts a sync; an error if syncs are failing.
    pub(crate) fn admit_sync(&self) -> io::Result<()> {
        admit(&self.syncs, &self.sync_limit)
    }

    /// Counts a tree operation; an error if they are failing.
    pub(crate) fn admit_tree_op(&self) -> io::Result<()> {
        admit(&self.tree_ops, &self.tree_limit)
    }

    /// The capacity, with the lock to hold until the write is done, if one
    /// is set.
    fn capacity(&self) -> Option<(u64, MutexGuard<'_, ()>)> {
        if self.capacity.load(Ordering::Acquire) == NONE {
            return None;
        }
        let guard = self.space.lock();
        let capacity = self.capacity.load(Ordering::Acquire);
        (capacity != NONE).then_some((capacity, guard))
    }

    /// Takes the pending tear, if any: the bytes to keep.
    fn take_tear(&self) -> Option<u64> {
        let keep = self.tear_next.swap(NONE, Ordering::AcqRel);
        (keep != NONE).then_some(keep)
    }
}

/// Lets the next `n` operations counted by `count` proceed, and fails the
/// later ones.
fn limit_after(count: &AtomicU64, limit: &AtomicU64, n: u64) {
    let base = count.load(Ordering::Acquire);
    limit.store(base.saturating_add(n), Ordering::Release);
}

/// Counts one operation on `count`; an error if its index (the count
/// before it) reached `limit`.
fn admit(count: &AtomicU64, limit: &AtomicU64) -> io::Result<()> {
    let index = count.fetch_add(1, Ordering::AcqRel);
    if index >= limit.load(Ordering::Acquire) {
        return Err(io_error());
    }
    Ok(())
}

/// The error of an injected write or sync failure, as the kernel reports a
/// failing disk.
fn io_error() -> io::Error {
    io::Error::from_raw_os_error(libc::EIO)
}

/// The error of a write past the capacity.
fn no_space() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOSPC)
}
