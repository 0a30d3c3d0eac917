//! Where everything is: the header's byte layout and the arena's geometry
//! (chunk table and chunk area), computed from size and chunk size.
//!
//! ```text
//! offset  size  field            (immutable fields 0..68, little-endian)
//!      0     8  magic            b"STRATAPM", written last at creation
//!      8     4  format version   1
//!     12     4  header length    4096
//!     16     8  total size       bytes, equal to the file length
//!     24     8  chunk size       power of two, >= 64 KiB
//!     32     8  chunk count
//!     40     8  table offset     4096: one u64 state word per chunk
//!     48     8  data offset      first chunk, page-aligned after the table
//!     56     8  kind             the user's tag
//!     64     4  CRC32C           of bytes 0..64
//!    128     8  clean flag       CLEAN_MARK after a clean shutdown
//!    136     8  generation       incremented at every open
//!    256   256  roots            32 u64 slots, published atomically
//! ```

use crate::error::{PmemError, Result};

/// The first 8 bytes of every arena file.
pub const MAGIC: [u8; 8] = *b"STRATAPM";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes reserved for the header at offset 0.
pub const HEADER_LEN: u64 = 4096;
/// Number of root slots.
pub const ROOT_SLOTS: usize = 32;
/// Smallest chunk size accepted.
pub const MIN_CHUNK_SIZE: u64 = 64 << 10;
/// Largest chunk size accepted.
pub const MAX_CHUNK_SIZE: u64 = 1 << 30;
/// The default chunk size.
pub const DEFAULT_CHUNK_SIZE: u64 = 1 << 20;
/// Most chunks an arena may have (the state word's count field).
pub const MAX_CHUNKS: u64 = (1 << 28) - 1;

pub(crate) const VERSION_OFF: usize = 8;
const HEADER_LEN_OFF: usize = 12;
const SIZE_OFF: usize = 16;
const CHUNK_SIZE_OFF: usize = 24;
const CHUNK_COUNT_OFF: usize = 32;
const TABLE_OFF: usize = 40;
const DATA_OFF: usize = 48;
const KIND_OFF: usize = 56;
pub(crate) const CRC_OFF: usize = 64;
/// End of the immutable fields (magic through CRC).
pub const IMMUTABLE_LEN: usize = 68;
pub(crate) const CLEAN_OFF: u64 = 128;
pub(crate) const GENERATION_OFF: u64 = 136;
pub(crate) const ROOTS_OFF: u64 = 256;
/// The clean flag's value after a clean shutdown; anything else is unclean.
pub(crate) const CLEAN_MARK: u64 = u64::from_le_bytes(*b"CLEANSHT");

const PAGE: u64 = 4096;

/// The immutable shape of an arena, stored in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub(crate) size: u64,
    pub(crate) chunk_size: u64,
    pub(crate) chunk_count: u64,
    pub(crate) table_offset: u64,
    pub(crate) data_offset: u64,
    pub(crate) kind: u64,
}

impl Geometry {
    /// The geometry of a new arena of `size` bytes: as many chunks as fit
    /// after the header and their table.
    pub(crate) fn plan(size: u64, chunk_size: u64, kind: u64) -> Result<Geometry> {
        if !chunk_size.is_power_of_two() || !(MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&chunk_size)
        {
            return Err(PmemError::config(format!(
                "chunk size {chunk_size} must be a power of two from {MIN_CHUNK_SIZE} to {MAX_CHUNK_SIZE}"
            )));
        }
        if size % PAGE != 0 {
            return Err(PmemError::config(format!(
                "arena size {size} is not a multiple of {PAGE}"
            )));
        }
        let table_pages = |n: u64| (n * 8).div_ceil(PAGE) * PAGE;
        let mut count = size.saturating_sub(HEADER_LEN) / (chunk_size + 8);
        while count > 0 && HEADER_LEN + table_pages(count) + count * chunk_size > size {
            count -= 1;
        }
        if count == 0 {
            return Err(PmemError::config(format!(
                "arena size {size} leaves no room for one chunk of {chunk_size} bytes"
            )));
        }
        if count > MAX_CHUNKS {
            return Err(PmemError::config(format!(
                "{count} chunks exceed the limit of {MAX_CHUNKS}: use larger chunks"
            )));
        }
        Ok(Geometry {
            size,
            chunk_size,
            chunk_count: count,
            table_offset: HEADER_LEN,
            data_offset: HEADER_LEN + table_pages(count),
            kind,
        })
    }

    /// The immutable fields, magic and CRC included.
    pub(crate) fn encode(&self) -> [u8; IMMUTABLE_LEN] {
        let mut b = [0u8; IMMUTABLE_LEN];
        b[..8].copy_from_slice(&MAGIC);
        b[VERSION_OFF..VERSION_OFF + 4].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[HEADER_LEN_OFF..HEADER_LEN_OFF + 4].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        for (off, value) in [
            (SIZE_OFF, self.size),
            (CHUNK_SIZE_OFF, self.chunk_size),
            (CHUNK_COUNT_OFF, self.chunk_count),
            (TABLE_OFF, self.table_offset),
            (DATA_OFF, self.data_offset),
            (KIND_OFF, self.kind),
        ] {
            b[off..off + 8].copy_from_slice(&value.to_le_bytes());
        }
        let crc = crc32c::crc32c(&b[..CRC_OFF]);
        b[CRC_OFF..CRC_OFF + 4].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Checks magic, version and CRC, in that order (a newer version may
    /// checksum differently), and the geometry against what `plan` gives
    /// for its size, chunk size and kind.
    pub(crate) fn decode(b: &[u8; IMMUTABLE_LEN], file: &str) -> Result<Geometry> {
        let mut found = [0u8; 8];
        found.copy_from_slice(&b[..8]);
        if found != MAGIC {
            return Err(PmemError::BadMagic {
                file: file.to_owned(),
                found,
            });
        }
        let version = le_u32(b, VERSION_OFF);
        if version != FORMAT_VERSION {
            return Err(PmemError::UnsupportedVersion {
                file: file.to_owned(),
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let stored = le_u32(b, CRC_OFF);
        let computed = crc32c::crc32c(&b[..CRC_OFF]);
        if stored != computed {
            return Err(PmemError::ChecksumMismatch {
                file: file.to_owned(),
                stored,
                computed,
            });
        }
        let u64_at = |off: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&b[off..off + 8]);
            u64::from_le_bytes(bytes)
        };
        let header_len = le_u32(b, HEADER_LEN_OFF);
        let geometry = Geometry {
            size: u64_at(SIZE_OFF),
            chunk_size: u64_at(CHUNK_SIZE_OFF),
            chunk_count: u64_at(CHUNK_COUNT_OFF),
            table_offset: u64_at(TABLE_OFF),
            data_offset: u64_at(DATA_OFF),
            kind: u64_at(KIND_OFF),
        };
        let planned = Geometry::plan(geometry.size, geometry.chunk_size, geometry.kind);
        if u64::from(header_len) != HEADER_LEN || planned.ok() != Some(geometry) {
            return Err(PmemError::corrupt(
                file,
                format!("impossible geometry (header length {header_len}): {geometry:?}"),
            ));
        }
        Ok(geometry)
    }

    /// Offset of chunk `index`'s state word.
    pub(crate) fn state_offset(&self, index: u64) -> u64 {
        self.table_offset + index * 8
    }

    /// Offset of chunk `index`'s first byte.
    pub(crate) fn chunk_offset(&self, index: u64) -> u64 {
        self.data_offset + index * self.chunk_size
    }
}

/// The little-endian `u32` at `off` (the caller's offsets are constants
/// inside the header).
fn le_u32(b: &[u8], off: usize) -> u32 {
    let mut bytes = [0u8; 4];
    bytes.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_fits_table_and_chunks() {
        for (size, chunk) in [
            (8 << 20, 1 << 20),
            (1 << 30, 64 << 10),
            (HEADER_LEN + PAGE + (64 << 10), 64 << 10),
        ] {
            let g = Geometry::plan(size, chunk, 7).unwrap();
            assert!(g.data_offset + g.chunk_count * chunk <= size);
            assert!(g.data_offset - HEADER_LEN >= g.chunk_count * 8);
            let more = g.chunk_count + 1;
            assert!(HEADER_LEN + (more * 8).div_ceil(PAGE) * PAGE + more * chunk > size);
            assert_eq!(Geometry::decode(&g.encode(), "t").unwrap(), g);
        }
        assert_eq!(Geometry::plan(8 << 20, 1 << 20, 0).unwrap().chunk_count, 7);
    }

    #[test]
    fn plan_refuses_bad_configurations() {
        assert!(Geometry::plan(8 << 20, 3 << 20, 0).is_err());
        assert!(Geometry::plan(8 << 20, 32 << 10, 0).is_err());
        assert!(Geometry::plan((8 << 20) + 1, 1 << 20, 0).is_err());
        assert!(Geometry::plan(1 << 20, 1 << 20, 0).is_err());
    }
}
