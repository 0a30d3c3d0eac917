//! [`CachedFile`]: a tantivy `FileHandle` over a persisted segment file
//! that reads with positional reads (`pread`) in [`BLOCK_SIZE`] blocks
//! through the node's [`BlockCache`], instead of mapping the file and
//! leaving residency to the OS page cache. Blocks are read from a device
//! the shard's directory opened for block reads
//! ([`Directory::open_for_blocks`](strata_device::Directory::open_for_blocks)):
//! on disk with `O_DIRECT` where the filesystem allows it, so a miss really
//! reads the device and the page cache holds no second copy; elsewhere
//! (tmpfs before Linux 6.6) with buffered reads; in a test's memory tree
//! from the tree, so its power cuts and faults reach these reads too.
//!
//! A range inside one block is a zero-copy slice of the cached block; a
//! range across blocks is copied out of them into one buffer. What tantivy
//! keeps of a segment while a reader has it open (a term dictionary's
//! index, a store's skip index, the deletes bitset) is such a copy and
//! lives outside the budget until the reader is dropped; postings,
//! positions, stored documents and fast-field columns are read per query
//! through the cache.

use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use strata_device::Device;
use tantivy::directory::{FileHandle, OwnedBytes};
use tantivy::HasLen;

use super::block_cache::{BlockCache, BLOCK_SIZE};

/// Hits and misses of the block reads of one index (the cache's own
/// counters are node-wide), and the owner tag its blocks carry in the
/// cache (see [`BlockCache::owner_id`]; 0 by default).
#[derive(Debug, Default)]
pub(crate) struct ReadCounters {
    hits: AtomicU64,
    misses: AtomicU64,
    owner: u64,
}

impl ReadCounters {
    /// Counters of an index whose blocks are tagged `owner`.
    pub(crate) fn new(owner: u64) -> ReadCounters {
        ReadCounters {
            owner,
            ..ReadCounters::default()
        }
    }

    /// The owner tag of this index's blocks.
    pub(crate) fn owner(&self) -> u64 {
        self.owner
    }

    /// (hits, misses) so far.
    pub(crate) fn values(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }
}

/// An immutable file read in cached blocks.
pub struct CachedFile {
    /// Opened for block reads (one descriptor per file on disk).
    file: Box<dyn Device>,
    len: usize,
    id: u64,
    path: PathBuf,
    cache: Arc<BlockCache>,
    counters: Arc<ReadCounters>,
}

impl fmt::Debug for CachedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CachedFile({}, {} bytes)", self.path.display(), self.len)
    }
}

impl CachedFile {
    /// Reads `file` (whose path is `path`) in blocks through `cache`. The
    /// caller guarantees the file is never written again (tantivy's files
    /// are write-once).
    pub fn open(
        file: Box<dyn Device>,
        path: &Path,
        cache: Arc<BlockCache>,
        counters: Arc<ReadCounters>,
    ) -> io::Result<CachedFile> {
        let len = usize::try_from(file.len()?).map_err(io::Error::other)?;
        Ok(CachedFile {
            file,
            len,
            id: cache.file_id(),
            path: path.to_path_buf(),
            cache,
            counters,
        })
    }

    /// Block `n`, from the cache or the file.
    fn block(&self, n: usize) -> io::Result<OwnedBytes> {
        let start = n * BLOCK_SIZE;
        let len = BLOCK_SIZE.min(self.len - start);
        let (bytes, hit) = self
            .cache
            .block(self.counters.owner(), self.id, n as u64, || {
                self.file.read_block(start as u64, len)
            })?;
        let counter = if hit {
            &self.counters.hits
        } else {
            &self.counters.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(bytes)
    }
}

impl HasLen for CachedFile {
    fn len(&self) -> usize {
        self.len
    }
}

impl FileHandle for CachedFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.start > range.end || range.end > self.len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "read of {range:?} outside {} ({} bytes)",
                    self.path.display(),
                    self.len
                ),
            ));
        }
        if range.is_empty() {
            return Ok(OwnedBytes::empty());
        }
        let first = range.start / BLOCK_SIZE;
        let last = (range.end - 1) / BLOCK_SIZE;
        if first == last {
            let base = first * BLOCK_SIZE;
            return Ok(self
                .block(first)?
                .slice(range.start - base..range.end - base));
        }
        let mut out = Vec::with_capacity(range.len());
        for n in first..=last {
            let base = n * BLOCK_SIZE;
            let block = self.block(n)?;
            let from = range.start.max(base) - base;
            let to = range.end.min(base + block.len()) - base;
            out.extend_from_slice(&block.as_slice()[from..to]);
        }
        Ok(OwnedBytes::new(out))
    }
}

#[cfg(test)]
mod tests {
    use strata_device::{Directory, FsDirectory, SyncMode};

    use super::*;

    /// A file of `len` bytes in a directory of its own.
    fn file_of(len: usize) -> (tempfile::TempDir, Vec<u8>) {
        let data: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), &data).unwrap();
        (dir, data)
    }

    fn fs(dir: &tempfile::TempDir) -> FsDirectory {
        FsDirectory::open(dir.path(), SyncMode::Fdatasync).unwrap()
    }

    /// The file opened for block reads (`O_DIRECT` on ext4).
    fn open(dir: &tempfile::TempDir, cache: &Arc<BlockCache>) -> CachedFile {
        let device = fs(dir).open_for_blocks("f").unwrap();
        CachedFile::open(device, dir.path(), Arc::clone(cache), Arc::default()).unwrap()
    }

    #[test]
    fn ranges_within_and_across_blocks_read_the_file() {
        ranges_read_the_file(true);
        ranges_read_the_file(false);
    }

    /// With `direct`, as the file system allows (ext4: `O_DIRECT`); else
    /// through a plain device of the directory (the page cache).
    fn ranges_read_the_file(direct: bool) {
        let len = 3 * BLOCK_SIZE + 123;
        let (f, data) = file_of(len);
        let cache = Arc::new(BlockCache::new(8 << 20));
        let mut file = open(&f, &cache);
        if !direct {
            file.file = fs(&f).open("f").unwrap();
        }
        assert_eq!(file.len(), len);
        let b = BLOCK_SIZE;
        let ranges = [
            0..0,
            0..1,
            5..b,
            b - 1..b + 1,
            b..2 * b,
            10..3 * b + 100,
            3 * b..len,
            len - 1..len,
            0..len,
        ];
        for range in ranges {
            let got = file.read_bytes(range.clone()).unwrap();
            assert_eq!(got.as_slice(), &data[range.clone()], "range {range:?}");
        }
        assert!(file.read_bytes(0..len + 1).is_err());
        // Every block was read from the file once; the rest were hits.
        let (hits, misses) = file.counters.values();
        assert_eq!(misses, 4);
        assert!(hits > 0);
        assert_eq!(cache.stats().blocks, 4);
        assert!(cache.stats().size_bytes >= len as u64);
    }

    #[test]
    fn a_small_budget_still_answers_correctly_and_misses() {
        let len = 40 * BLOCK_SIZE;
        let (f, data) = file_of(len);
        let budget = 16 * BLOCK_SIZE as u64;
        let cache = Arc::new(BlockCache::new(budget));
        let file = open(&f, &cache);
        for round in 0..3 {
            for n in 0..40 {
                let range = n * BLOCK_SIZE + 7..(n + 1) * BLOCK_SIZE + 9;
                let range = range.start..range.end.min(len);
                let got = file.read_bytes(range.clone()).unwrap();
                assert_eq!(got.as_slice(), &data[range], "round {round} block {n}");
                assert!(cache.stats().size_bytes <= budget);
            }
        }
        let (_, misses) = file.counters.values();
        assert!(
            misses > 40,
            "a scan larger than the budget misses again: {misses}"
        );
    }

    #[test]
    fn handles_of_different_files_never_share_blocks() {
        let (a, data_a) = file_of(BLOCK_SIZE);
        let (b, _) = file_of(BLOCK_SIZE / 2);
        let cache = Arc::new(BlockCache::new(8 << 20));
        let fa = open(&a, &cache);
        let fb = open(&b, &cache);
        fb.read_bytes(0..10).unwrap();
        assert_eq!(fa.read_bytes(0..100).unwrap().as_slice(), &data_a[..100]);
        assert_eq!(cache.stats().misses, 2);
    }
}
