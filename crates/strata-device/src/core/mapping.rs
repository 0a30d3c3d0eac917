//! [`Mapping`]: the bytes of a file that is never written again, mapped
//! read-only and shared (`mmap`), or held in memory where a device has no
//! file to map (the memory image, a wrapper that copies). What search's
//! fresh files on persistent memory are read from: on a DAX filesystem a
//! mapping reads the medium itself, with no copy in DRAM.
//!
//! The one other place this crate is allowed `unsafe` (UNSAFE.md): mapping
//! a file is unsafe because another writer could change or shorten it
//! under the reader. Callers map only write-once files (tantivy's), and
//! unlinking a mapped file keeps its pages.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::ops::Deref;

use stable_deref_trait::StableDeref;

/// Read-only bytes of a device, mapped or owned.
pub struct Mapping(Bytes);

enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Mapping {
    /// Bytes already read into memory.
    pub fn owned(bytes: Vec<u8>) -> Mapping {
        Mapping(Bytes::Owned(bytes))
    }

    /// `file` mapped whole, read-only; an empty file (which `mmap` refuses)
    /// is an empty owned value.
    pub(crate) fn map(file: &File) -> io::Result<Mapping> {
        if file.metadata()?.len() == 0 {
            return Ok(Mapping::owned(Vec::new()));
        }
        // SAFETY: the mapping is read-only and private to this value; the
        // files mapped are write-once (the caller's contract on
        // `Device::map`), so no one changes or truncates them while mapped.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Mapping(Bytes::Mapped(map)))
    }

    /// Whether the bytes are a mapping of the file (not a copy).
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Bytes::Mapped(_))
    }
}

impl Deref for Mapping {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Bytes::Mapped(map) => map,
            Bytes::Owned(bytes) => bytes,
        }
    }
}

// SAFETY: the slice's address never changes while the value lives, moved
// or not: a mapping stays at its address until unmapped on drop, and the
// owned vector is never handed out mutably, so it never reallocates.
unsafe impl StableDeref for Mapping {}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.is_mapped() { "mapped" } else { "owned" };
        write!(f, "Mapping({kind}, {} bytes)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_file_maps_whole_and_an_empty_one_is_empty() {
        let mut file = tempfile::tempfile().unwrap();
        let map = Mapping::map(&file).unwrap();
        assert!(map.is_empty() && !map.is_mapped());
        file.write_all(b"write-once bytes").unwrap();
        let map = Mapping::map(&file).unwrap();
        assert!(map.is_mapped());
        assert_eq!(&*map, b"write-once bytes");
        assert_eq!(&*Mapping::owned(b"abc".to_vec()), b"abc");
    }
}
