//! The header at the start of every write block.
//!
//! Layout: magic u32 (`SBLK` written, `SFRE` freed; 0..4), version u16
//! (4..6), owner u16 (6..8: the [`StoreUser`](crate::StoreUser) code of a
//! written block; zero in blocks written before users existed, which are
//! the primary user's), device nonce u64 (8..16), then for a written
//! block: sequence u64 (16..24), durable frontier u64 (24..32), used bytes
//! u32 (32..36), entry count u32 (36..40); for a freed block: the highest
//! sequence number handed out so far (16..24) and zeros. CRC32C of bytes
//! 0..40 at 40..44. Entries start at [`BLOCK_HEADER_LEN`].
//!
//! The header fits in the first 512-byte sector, so a torn write either
//! writes all of it or none.

use strata_device::le::{u32_at, u64_at};

/// Bytes reserved for the header; the first entry starts here.
pub(crate) const BLOCK_HEADER_LEN: usize = 64;

const WRITTEN: [u8; 4] = *b"SBLK";
const FREED: [u8; 4] = *b"SFRE";
const VERSION: u16 = 1;

/// A written block's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Written {
    /// Global sequence number of this life of the block: newer blocks win.
    pub(crate) seq: u64,
    /// When this header was written, every block with a sequence at or
    /// below this was complete and synced; such blocks must read back
    /// intact, later ones may end torn.
    pub(crate) frontier: u64,
    /// Bytes of the block in use, header included.
    pub(crate) used: u32,
    /// Entries in `BLOCK_HEADER_LEN..used`.
    pub(crate) entries: u32,
    /// The code of the user the block belongs to.
    pub(crate) owner: u16,
}

/// What the first page of a block says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlockHeader {
    /// Holds entries.
    Written(Written),
    /// Freed; `seq_high` is the highest sequence handed out at the time.
    Freed { seq_high: u64 },
    /// Never written in this format (zeros, or another format's nonce).
    Blank,
    /// Our magic and nonce, but a checksum or version that does not match.
    Damaged(String),
}

impl BlockHeader {
    /// Writes `self` into the first [`BLOCK_HEADER_LEN`] bytes of `page`.
    /// `Blank` and `Damaged` write zeros.
    pub(crate) fn encode(&self, nonce: u64, page: &mut [u8]) {
        let page = &mut page[..BLOCK_HEADER_LEN];
        page.fill(0);
        let (magic, seq, frontier, used, entries, owner) = match self {
            BlockHeader::Written(w) => (WRITTEN, w.seq, w.frontier, w.used, w.entries, w.owner),
            BlockHeader::Freed { seq_high } => (FREED, *seq_high, 0, 0, 0, 0),
            BlockHeader::Blank | BlockHeader::Damaged(_) => return,
        };
        page[0..4].copy_from_slice(&magic);
        page[4..6].copy_from_slice(&VERSION.to_le_bytes());
        page[6..8].copy_from_slice(&owner.to_le_bytes());
        page[8..16].copy_from_slice(&nonce.to_le_bytes());
        page[16..24].copy_from_slice(&seq.to_le_bytes());
        page[24..32].copy_from_slice(&frontier.to_le_bytes());
        page[32..36].copy_from_slice(&used.to_le_bytes());
        page[36..40].copy_from_slice(&entries.to_le_bytes());
        let crc = crc32c::crc32c(&page[..40]);
        page[40..44].copy_from_slice(&crc.to_le_bytes());
    }

    /// Reads the header at the start of `page` for the device `nonce`.
    pub(crate) fn decode(nonce: u64, page: &[u8]) -> BlockHeader {
        let magic = &page[0..4];
        if (magic != WRITTEN && magic != FREED) || u64_at(page, 8) != nonce {
            return BlockHeader::Blank;
        }
        if u32_at(page, 40) != crc32c::crc32c(&page[..40]) {
            return BlockHeader::Damaged("block header checksum mismatch".into());
        }
        let version = u16::from_le_bytes([page[4], page[5]]);
        if version != VERSION {
            return BlockHeader::Damaged(format!("block format version {version} unsupported"));
        }
        if magic == FREED {
            return BlockHeader::Freed {
                seq_high: u64_at(page, 16),
            };
        }
        BlockHeader::Written(Written {
            seq: u64_at(page, 16),
            frontier: u64_at(page, 24),
            used: u32_at(page, 32),
            entries: u32_at(page, 36),
            owner: u16::from_le_bytes([page[6], page[7]]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip_per_nonce() {
        let mut page = vec![0u8; 4096];
        assert_eq!(BlockHeader::decode(7, &page), BlockHeader::Blank);
        let written = BlockHeader::Written(Written {
            seq: 9,
            frontier: 4,
            used: 4096,
            entries: 3,
            owner: 5,
        });
        written.encode(7, &mut page);
        assert_eq!(BlockHeader::decode(7, &page), written);
        assert_eq!(BlockHeader::decode(8, &page), BlockHeader::Blank);
        BlockHeader::Freed { seq_high: 12 }.encode(7, &mut page);
        assert_eq!(
            BlockHeader::decode(7, &page),
            BlockHeader::Freed { seq_high: 12 }
        );
        page[17] ^= 4;
        assert!(matches!(
            BlockHeader::decode(7, &page),
            BlockHeader::Damaged(_)
        ));
    }
}
