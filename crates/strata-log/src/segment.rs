//! Segment files: names and the header.
//!
//! A segment is named `log-<first LSN as 20 digits>.seg`, so names sort in
//! LSN order, and starts with a 24-byte header: magic `STRATALG`, format
//! version u32, first LSN u64, CRC32C u32 of the 20 bytes before it. The
//! first LSN is the LSN of the segment's first record (or of the next record
//! appended, while it has none); it must agree with the name.

use std::io;

use strata_device::le::{u32_at, u64_at};
use strata_device::{Device, Directory};

use crate::stall::Failure;
use crate::LogError;

/// The segment format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"STRATALG";

/// Bytes of the segment header.
pub(crate) const SEGMENT_HEADER_LEN: usize = 24;

/// One segment as the directory lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SegmentMeta {
    pub first_lsn: u64,
    pub name: String,
}

impl SegmentMeta {
    pub fn new(first_lsn: u64) -> SegmentMeta {
        SegmentMeta {
            first_lsn,
            name: format!("log-{first_lsn:020}.seg"),
        }
    }
}

/// Parses `log-<20 digits>.seg`; other names are not segments.
pub(crate) fn parse_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("log-")?.strip_suffix(".seg")?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The segments of `dir`, in LSN order.
pub(crate) fn list(dir: &dyn Directory) -> Result<Vec<SegmentMeta>, LogError> {
    let names = dir
        .list()
        .map_err(|e| LogError::io("list the log directory", e))?;
    let mut segments: Vec<SegmentMeta> = names
        .into_iter()
        .filter_map(|name| parse_name(&name).map(|first_lsn| SegmentMeta { first_lsn, name }))
        .collect();
    segments.sort_by_key(|s| s.first_lsn);
    Ok(segments)
}

pub(crate) fn encode_header(first_lsn: u64) -> [u8; SEGMENT_HEADER_LEN] {
    let mut header = [0u8; SEGMENT_HEADER_LEN];
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[12..20].copy_from_slice(&first_lsn.to_le_bytes());
    let crc = crc32c::crc32c(&header[..20]);
    header[20..].copy_from_slice(&crc.to_le_bytes());
    header
}

/// Why a header is unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BadHeader {
    /// Shorter than a header, wrong magic or checksum: torn or garbled.
    Garbled(&'static str),
    /// Whole and verified, but a format version this build cannot read.
    Version(u32),
}

/// Decodes a header, returning its first LSN.
pub(crate) fn decode_header(bytes: &[u8]) -> Result<u64, BadHeader> {
    if bytes.len() < SEGMENT_HEADER_LEN {
        return Err(BadHeader::Garbled("segment header torn"));
    }
    if &bytes[..8] != MAGIC {
        return Err(BadHeader::Garbled("segment header magic missing"));
    }
    let crc = u32_at(bytes, 20);
    if crc32c::crc32c(&bytes[..20]) != crc {
        return Err(BadHeader::Garbled("segment header checksum mismatch"));
    }
    let version = u32_at(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(BadHeader::Version(version));
    }
    Ok(u64_at(bytes, 12))
}

/// Reads and decodes the header of a device of `len` bytes.
pub(crate) fn read_header(dev: &dyn Device, len: u64) -> io::Result<Result<u64, BadHeader>> {
    let have = len.min(SEGMENT_HEADER_LEN as u64) as usize;
    let mut bytes = [0u8; SEGMENT_HEADER_LEN];
    dev.read_exact_at(&mut bytes[..have], 0)?;
    Ok(decode_header(&bytes[..have]))
}

/// Creates segment `meta` with its header, syncs it and the names, so that
/// records written into it later depend on nothing volatile. Creating the
/// file and writing its header may fail for lack of space (retried, see
/// `stall`: creating it again truncates it); a failed sync is fatal.
pub(crate) fn create(dir: &dyn Directory, meta: &SegmentMeta) -> Result<Box<dyn Device>, Failure> {
    let ctx = |what: &str| format!("{what} new segment {}", meta.name);
    let dev = dir
        .create(&meta.name)
        .map_err(|e| Failure::of_write(LogError::io(ctx("create"), e)))?;
    dev.write_all_at(&encode_header(meta.first_lsn), 0)
        .map_err(|e| Failure::of_write(LogError::io(ctx("write the header of"), e)))?;
    dev.sync().map_err(|e| LogError::io(ctx("sync"), e))?;
    dir.sync_names()
        .map_err(|e| LogError::io(ctx("sync the directory after creating"), e))?;
    Ok(dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_in_lsn_order_and_round_trip() {
        let a = SegmentMeta::new(9);
        let b = SegmentMeta::new(10);
        assert_eq!(a.name, "log-00000000000000000009.seg");
        assert!(a.name < b.name);
        assert_eq!(parse_name(&b.name), Some(10));
        assert_eq!(parse_name(&SegmentMeta::new(u64::MAX).name), Some(u64::MAX));
    }

    #[test]
    fn other_names_are_ignored() {
        for name in [
            "log-1.seg",
            "log-0000000000000000000x.seg",
            "snap-1",
            "log-00000000000000000001.seg.tmp",
        ] {
            assert_eq!(parse_name(name), None, "{name}");
        }
    }

    #[test]
    fn header_round_trip() {
        let header = encode_header(77);
        assert_eq!(&header[..8], b"STRATALG");
        assert_eq!(decode_header(&header), Ok(77));
    }

    #[test]
    fn damaged_headers_are_garbled() {
        let header = encode_header(77);
        assert!(matches!(
            decode_header(&header[..10]),
            Err(BadHeader::Garbled(_))
        ));
        for byte in 0..SEGMENT_HEADER_LEN {
            let mut bad = header;
            bad[byte] ^= 0x10;
            assert!(
                matches!(decode_header(&bad), Err(BadHeader::Garbled(_))),
                "byte {byte}"
            );
        }
    }

    #[test]
    fn newer_version_is_reported_as_such() {
        let mut header = encode_header(1);
        header[8..12].copy_from_slice(&2u32.to_le_bytes());
        let crc = crc32c::crc32c(&header[..20]);
        header[20..].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(decode_header(&header), Err(BadHeader::Version(2)));
    }
}
