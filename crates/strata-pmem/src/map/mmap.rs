//! The raw mapping: `mmap`, `munmap` and `msync` of a shared file mapping,
//! and its only view, a slice of `AtomicU64` borrowed from the mapping.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;

/// How to map the file.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum MapFlags {
    /// `MAP_SHARED_VALIDATE | MAP_SYNC`: only DAX files accept it; writes
    /// reach the media once their cache lines are written back.
    Sync,
    /// Plain `MAP_SHARED`: writes reach the file through the page cache.
    Shared,
}

/// A shared, read-write mapping of a whole file, unmapped on drop.
///
/// Invariant: `base` is the page-aligned start of a live mapping of `len`
/// bytes (`len` a positive multiple of 8), readable and writable, that
/// nothing else unmaps; so `base .. base + len` is valid memory for `len / 8`
/// `AtomicU64`s for as long as `self` lives.
pub(super) struct Mapping {
    base: NonNull<AtomicU64>,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; all access goes
// through `&[AtomicU64]` (atomics are Sync), and munmap in Drop may run on
// any thread.
unsafe impl Send for Mapping {}
// SAFETY: as above: shared access is only through atomics.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps the first `len` bytes of `file` (opened read-write).
    /// `len` must be a positive multiple of 8 no larger than the file.
    pub(super) fn map(file: &File, len: usize, flags: MapFlags) -> io::Result<Mapping> {
        assert!(
            len > 0 && len % 8 == 0,
            "mapping length {len} must be a positive multiple of 8"
        );
        let flags = match flags {
            MapFlags::Sync => libc::MAP_SHARED_VALIDATE | libc::MAP_SYNC,
            MapFlags::Shared => libc::MAP_SHARED,
        };
        // SAFETY: a fresh mapping chosen by the kernel (addr null) aliases
        // no Rust object; the fd is valid for the call; failure is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let Some(base) = NonNull::new(ptr.cast::<AtomicU64>()) else {
            return Err(io::Error::other("mmap returned a null mapping"));
        };
        Ok(Mapping { base, len })
    }

    /// Length in bytes.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The whole mapping as words.
    pub(super) fn words(&self) -> &[AtomicU64] {
        // SAFETY: by the type invariant the memory is valid, page-aligned
        // (so 8-aligned) and live for `&self`; AtomicU64 has the size of u64
        // and permits shared mutation, so a shared slice of it may alias
        // writes by other threads (and other mappings of the file).
        unsafe { std::slice::from_raw_parts(self.base.as_ptr(), self.len / 8) }
    }

    /// `msync(MS_SYNC)` of the pages covering `range` (bytes, in bounds).
    pub(super) fn msync(&self, range: Range<u64>) -> io::Result<()> {
        let page = page_size() as u64;
        let start = range.start - range.start % page;
        let end = range.end.min(self.len as u64);
        if end <= start {
            return Ok(());
        }
        // SAFETY: start is page-aligned and `start..end` lies inside the
        // live mapping; msync does not change memory contents.
        let rc = unsafe {
            libc::msync(
                self.base.as_ptr().cast::<u8>().add(start as usize).cast(),
                (end - start) as usize,
                libc::MS_SYNC,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours and every borrow of `words()` has
        // ended (they borrow `self`). An error leaves the mapping leaked,
        // which is harmless.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.len);
        }
    }
}

/// The system page size (msync needs page-aligned addresses).
fn page_size() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(size)
            .ok()
            .filter(|s| *s > 0)
            .unwrap_or(4096)
    })
}
