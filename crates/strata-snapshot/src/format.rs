//! The fixed parts of a snapshot file: header, block header and trailer
//! (see the crate docs for the layout).

use strata_device::le::{u32_at, u64_at};

/// The snapshot format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes of the file header.
pub const HEADER_LEN: usize = 32;

/// Bytes before each block's payload.
pub const BLOCK_HEADER_LEN: usize = 12;

/// Bytes of the trailer.
pub const TRAILER_LEN: usize = 25;

/// Payload bytes per block a writer uses unless told otherwise.
pub const DEFAULT_BLOCK_SIZE: usize = 64 << 10;

/// Largest payload a block may have (readers reject longer ones).
pub const MAX_BLOCK_LEN: usize = 1 << 20;

const MAGIC: &[u8; 8] = b"STRATASN";
pub(crate) const TRAILER_MAGIC: &[u8; 9] = b"STRATAEND";

/// What the header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub start_lsn: u64,
    pub created_ms: u64,
}

/// Why a header is unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BadHeader {
    Garbled(&'static str),
    /// Whole and verified, but another format version.
    Version(u32),
}

impl Header {
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        out[12..20].copy_from_slice(&self.start_lsn.to_le_bytes());
        out[20..28].copy_from_slice(&self.created_ms.to_le_bytes());
        let crc = crc32c::crc32c(&out[..28]);
        out[28..].copy_from_slice(&crc.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8; HEADER_LEN]) -> Result<Header, BadHeader> {
        if &bytes[..8] != MAGIC {
            return Err(BadHeader::Garbled("not a snapshot (bad magic)"));
        }
        if crc32c::crc32c(&bytes[..28]) != u32_at(bytes, 28) {
            return Err(BadHeader::Garbled("header checksum mismatch"));
        }
        let version = u32_at(bytes, 8);
        if version != FORMAT_VERSION {
            return Err(BadHeader::Version(version));
        }
        Ok(Header {
            start_lsn: u64_at(bytes, 12),
            created_ms: u64_at(bytes, 20),
        })
    }
}

/// The header of one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockHeader {
    /// Payload bytes.
    pub len: u32,
    /// Records whose last byte is in this block.
    pub ends: u32,
    /// CRC32C of `len`, `ends` and the payload.
    pub crc: u32,
}

impl BlockHeader {
    /// Fills in `block[..BLOCK_HEADER_LEN]` for the payload after it and
    /// returns the block's crc.
    pub fn seal(block: &mut [u8], ends: u32) -> u32 {
        let len = (block.len() - BLOCK_HEADER_LEN) as u32;
        block[..4].copy_from_slice(&len.to_le_bytes());
        block[4..8].copy_from_slice(&ends.to_le_bytes());
        let crc = block_crc(&block[..8], &block[BLOCK_HEADER_LEN..]);
        block[8..12].copy_from_slice(&crc.to_le_bytes());
        crc
    }

    pub fn decode(bytes: &[u8]) -> BlockHeader {
        BlockHeader {
            len: u32_at(bytes, 0),
            ends: u32_at(bytes, 4),
            crc: u32_at(bytes, 8),
        }
    }

    /// True when `payload` (this header's) verifies.
    pub fn verifies(&self, header_bytes: &[u8], payload: &[u8]) -> bool {
        block_crc(&header_bytes[..8], payload) == self.crc
    }
}

fn block_crc(len_and_ends: &[u8], payload: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(len_and_ends), payload)
}

/// Folds a block's crc into the running body crc.
pub(crate) fn fold_body_crc(body_crc: u32, block_crc: u32) -> u32 {
    crc32c::crc32c_append(body_crc, &block_crc.to_le_bytes())
}

/// True when `bytes` (at least 4) start like a trailer rather than a block.
pub(crate) fn starts_trailer(bytes: &[u8]) -> bool {
    bytes[..4] == TRAILER_MAGIC[..4]
}

/// What the trailer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Trailer {
    pub records: u64,
    pub body_crc: u32,
}

impl Trailer {
    pub fn encode(&self) -> [u8; TRAILER_LEN] {
        let mut out = [0u8; TRAILER_LEN];
        out[..9].copy_from_slice(TRAILER_MAGIC);
        out[9..17].copy_from_slice(&self.records.to_le_bytes());
        out[17..21].copy_from_slice(&self.body_crc.to_le_bytes());
        let crc = crc32c::crc32c(&out[..21]);
        out[21..].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// `Ok(None)` when the bytes do not start with the trailer magic (no
    /// trailer here); `Err` when they do but the trailer does not verify.
    pub fn decode(bytes: &[u8; TRAILER_LEN]) -> Result<Option<Trailer>, &'static str> {
        if &bytes[..9] != TRAILER_MAGIC {
            return Ok(None);
        }
        if crc32c::crc32c(&bytes[..21]) != u32_at(bytes, 21) {
            return Err("trailer checksum mismatch");
        }
        Ok(Some(Trailer {
            records: u64_at(bytes, 9),
            body_crc: u32_at(bytes, 17),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_damage() {
        let header = Header {
            start_lsn: 42,
            created_ms: 1_700_000_000_000,
        };
        let bytes = header.encode();
        assert_eq!(&bytes[..8], b"STRATASN");
        assert_eq!(Header::decode(&bytes), Ok(header));
        for byte in 0..HEADER_LEN {
            let mut bad = bytes;
            bad[byte] ^= 0x10;
            assert!(
                matches!(Header::decode(&bad), Err(BadHeader::Garbled(_))),
                "flip at {byte}"
            );
        }
    }

    #[test]
    fn other_versions_are_reported_as_such() {
        let mut bytes = Header {
            start_lsn: 1,
            created_ms: 2,
        }
        .encode();
        bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
        let crc = crc32c::crc32c(&bytes[..28]);
        bytes[28..].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(Header::decode(&bytes), Err(BadHeader::Version(2)));
    }

    #[test]
    fn trailer_round_trip_and_damage() {
        let trailer = Trailer {
            records: 7,
            body_crc: 0x1234_5678,
        };
        let bytes = trailer.encode();
        assert!(starts_trailer(&bytes));
        assert_eq!(Trailer::decode(&bytes), Ok(Some(trailer)));
        for byte in 9..TRAILER_LEN {
            let mut bad = bytes;
            bad[byte] ^= 1;
            assert!(Trailer::decode(&bad).is_err(), "flip at {byte}");
        }
        let mut no_magic = bytes;
        no_magic[0] = b'X';
        assert_eq!(Trailer::decode(&no_magic), Ok(None));
    }

    #[test]
    fn trailer_magic_cannot_pass_for_a_block_length() {
        let len = u32::from_le_bytes(TRAILER_MAGIC[..4].try_into().unwrap());
        assert!(len as usize > MAX_BLOCK_LEN);
    }

    #[test]
    fn sealed_blocks_verify() {
        let mut block = vec![0u8; BLOCK_HEADER_LEN];
        block.extend_from_slice(b"payload");
        let crc = BlockHeader::seal(&mut block, 3);
        let header = BlockHeader::decode(&block);
        assert_eq!((header.len, header.ends, header.crc), (7, 3, crc));
        assert!(header.verifies(&block, &block[BLOCK_HEADER_LEN..]));
        block[5] ^= 1;
        assert!(!header.verifies(&block, &block[BLOCK_HEADER_LEN..]));
    }
}
