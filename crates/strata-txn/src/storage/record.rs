//! [`RecPtr`]: one row version slot in memory, shared by every index that
//! points at it, and the only module of the crate with `unsafe` code (each
//! site has a `// SAFETY:` comment and is listed in `UNSAFE.md`).
//!
//! A record is one allocation: a 40-byte head (TID word, NO_WAIT's lock
//! word, primary key, table, width, flags) followed by the row as 8-byte
//! atomic words. All access to the row is through relaxed atomics, so an
//! optimistic reader racing a writer sees torn words (which its TID check
//! rejects), never undefined behaviour.
//!
//! Lifetime: a record is freed only by the collector (`garbage.rs`), after
//! it was unlinked from every index and every transaction that could have
//! found it has ended (epoch-based reclamation). A `RecPtr` held by a
//! running transaction therefore stays valid.

use std::alloc::{alloc_zeroed, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The head of a record; the row's words follow it.
#[repr(C, align(64))]
pub(crate) struct RecordHead {
    /// TID and flags (`tid.rs`).
    pub tid: AtomicU64,
    /// NO_WAIT's lock: exclusive bit and shared count (`cc/no_wait.rs`).
    pub lock: AtomicU64,
    /// The primary key.
    pub key: u64,
    /// The table's id.
    pub table: u32,
    /// Row length in 8-byte words.
    width: u32,
    /// [`IN_GARBAGE`] and friends.
    pub flags: AtomicU32,
}

/// The record is on a worker's list of collection candidates.
pub(crate) const IN_GARBAGE: u32 = 1;

const HEAD: usize = std::mem::size_of::<RecordHead>();

/// A pointer to a record (see the module docs for why it stays valid).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct RecPtr(NonNull<RecordHead>);

// SAFETY: a record is only reached through atomics (head words and row
// words) or immutable fields written before it was shared; it may be used
// and freed from any thread.
unsafe impl Send for RecPtr {}
// SAFETY: as for `Send`: shared access is atomic or read-only.
unsafe impl Sync for RecPtr {}

fn layout(width: u32) -> Layout {
    Layout::from_size_align(HEAD + width as usize * 8, 64).expect("record layout")
}

impl RecPtr {
    /// Allocates a record with `tid` and `lock` words, the row zeroed.
    pub fn alloc(table: u32, key: u64, width: u32, tid: u64, lock: u64) -> RecPtr {
        let layout = layout(width);
        // SAFETY: the layout has a non-zero size (the head alone is 64
        // bytes after alignment padding); zeroed memory is a valid
        // `RecordHead` and valid atomic words, and the fields are then
        // written before the pointer is shared.
        unsafe {
            let raw = alloc_zeroed(layout) as *mut RecordHead;
            let Some(ptr) = NonNull::new(raw) else {
                handle_alloc_error(layout)
            };
            raw.write(RecordHead {
                tid: AtomicU64::new(tid),
                lock: AtomicU64::new(lock),
                key,
                table,
                width,
                flags: AtomicU32::new(0),
            });
            RecPtr(ptr)
        }
    }

    /// Frees the record.
    ///
    /// The caller guarantees no index holds it and no thread can reach it
    /// any more (the collector's grace period, or it was never shared).
    pub fn free(self) {
        let layout = layout(self.head().width);
        // SAFETY: allocated by `alloc` with this layout (the width is
        // immutable); unreachable by the caller's guarantee.
        unsafe { dealloc(self.0.as_ptr() as *mut u8, layout) }
    }

    /// The head.
    #[inline]
    pub fn head(&self) -> &RecordHead {
        // SAFETY: valid until freed, which the reclamation scheme delays
        // past every holder (module docs).
        unsafe { self.0.as_ref() }
    }

    /// The row's words.
    #[inline]
    pub fn words(&self) -> &[AtomicU64] {
        let width = self.head().width as usize;
        // SAFETY: the allocation holds `width` zero-initialized words right
        // after the head (see `layout`), aligned to 8; they live as long as
        // the record, and atomics permit shared mutation.
        unsafe {
            let first = (self.0.as_ptr() as *const u8).add(HEAD) as *const AtomicU64;
            std::slice::from_raw_parts(first, width)
        }
    }

    /// The TID word.
    #[inline]
    pub fn tid(&self) -> &AtomicU64 {
        &self.head().tid
    }

    /// Copies the row into `out` (its length is the row's in bytes).
    #[inline]
    pub fn read_row(&self, out: &mut [u8]) {
        for (word, chunk) in self.words().iter().zip(out.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
        }
    }

    /// Stores `row` (whole words) into the record.
    #[inline]
    pub fn write_row(&self, row: &[u8]) {
        for (word, chunk) in self.words().iter().zip(row.chunks_exact(8)) {
            let value = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            word.store(value, Ordering::Relaxed);
        }
    }

    /// Stores only the words that hold bytes `range` of the row.
    #[inline]
    pub fn write_words(&self, row: &[u8], first: usize, last: usize) {
        let words = self.words();
        for i in first..=last.min(words.len().saturating_sub(1)) {
            let value = u64::from_le_bytes(row[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
            words[i].store(value, Ordering::Relaxed);
        }
    }

    /// The address, for ordering locks and as a map key.
    #[inline]
    pub fn addr(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_through_words() {
        let rec = RecPtr::alloc(3, 42, 2, 7, 0);
        assert_eq!(rec.head().key, 42);
        assert_eq!(rec.head().table, 3);
        let row: Vec<u8> = (0..16).collect();
        rec.write_row(&row);
        let mut out = vec![0; 16];
        rec.read_row(&mut out);
        assert_eq!(out, row);
        assert_eq!(rec.addr() % 64, 0);
        rec.free();
        let empty = RecPtr::alloc(0, 0, 0, 0, 0);
        assert!(empty.words().is_empty());
        empty.free();
    }
}
