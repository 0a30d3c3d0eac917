//! Entries: `len u32 | kind u8 | 0 0 0 | crc32c u32 | payload | pad`, each
//! starting at a multiple of [`ENTRY_ALIGN`] inside its block. The CRC
//! covers the first 8 header bytes and the payload, seeded per block life
//! ([`seed`]).

use std::ops::Range;

use super::block_header::BLOCK_HEADER_LEN;
use strata_device::le::u32_at;

/// Bytes of an entry header.
pub(crate) const ENTRY_HEADER_LEN: usize = 12;

/// Entries start at multiples of this (so offsets fit in 20 bits for 8 MiB
/// blocks).
pub(crate) const ENTRY_ALIGN: usize = 8;

/// Bytes a caller puts before data it wants 8-byte aligned in memory when
/// read back: a payload starts right after its entry's header, at an
/// [`ENTRY_ALIGN`]ed offset, so a payload read in place (a large read)
/// starts this many bytes short of an 8-byte boundary.
pub const PAYLOAD_ALIGN_PAD: usize = (ENTRY_ALIGN - ENTRY_HEADER_LEN % ENTRY_ALIGN) % ENTRY_ALIGN;

/// Bytes an entry with `payload_len` bytes of payload occupies in a block:
/// what live accounting counts.
pub(crate) fn footprint(payload_len: usize) -> usize {
    (ENTRY_HEADER_LEN + payload_len).next_multiple_of(ENTRY_ALIGN)
}

/// The CRC seed of the entries of one life of one block.
pub(crate) fn seed(nonce: u64, seq: u64, block: u32) -> u32 {
    let mut bytes = [0u8; 20];
    bytes[0..8].copy_from_slice(&nonce.to_le_bytes());
    bytes[8..16].copy_from_slice(&seq.to_le_bytes());
    bytes[16..20].copy_from_slice(&block.to_le_bytes());
    crc32c::crc32c(&bytes)
}

/// Writes an entry into `dst`, which must be exactly
/// `footprint(payload.len())` bytes.
pub(crate) fn encode(dst: &mut [u8], seed: u32, kind: u8, payload: &[u8]) {
    debug_assert_eq!(dst.len(), footprint(payload.len()));
    dst[0..4].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    dst[4] = kind;
    dst[5..8].fill(0);
    let end = ENTRY_HEADER_LEN + payload.len();
    dst[ENTRY_HEADER_LEN..end].copy_from_slice(payload);
    dst[end..].fill(0);
    let crc = crc32c::crc32c_append(crc32c::crc32c_append(seed, &dst[0..8]), payload);
    dst[8..12].copy_from_slice(&crc.to_le_bytes());
}

/// The payload length an entry header announces (unverified).
pub(crate) fn announced_len(header: &[u8]) -> usize {
    u32_at(header, 0) as usize
}

/// One entry found in a block image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryRef {
    pub(crate) kind: u8,
    /// Where the payload is in the image.
    pub(crate) payload: Range<usize>,
    /// Bytes the entry occupies.
    pub(crate) footprint: usize,
}

/// Decodes and verifies the entry at `at` of `image`, whose valid bytes
/// end at `limit` (the block's used bytes, in image coordinates). The error
/// says what is wrong.
pub(crate) fn decode(image: &[u8], at: usize, limit: usize, seed: u32) -> Result<EntryRef, String> {
    if at + ENTRY_HEADER_LEN > limit {
        return Err("entry header runs past the used bytes".into());
    }
    let len = announced_len(&image[at..]);
    let footprint = footprint(len);
    if footprint > limit - at {
        return Err(format!("entry length {len} runs past the used bytes"));
    }
    if image[at + 5..at + 8] != [0, 0, 0] {
        return Err("entry header reserved bytes are not zero".into());
    }
    let payload = at + ENTRY_HEADER_LEN..at + ENTRY_HEADER_LEN + len;
    let crc = crc32c::crc32c_append(
        crc32c::crc32c_append(seed, &image[at..at + 8]),
        &image[payload.clone()],
    );
    if crc != u32_at(image, at + 8) {
        return Err("entry checksum mismatch".into());
    }
    Ok(EntryRef {
        kind: image[at + 4],
        payload,
        footprint,
    })
}

/// The entries of a whole block image (starting at the block's first
/// byte), in order.
#[derive(Debug, Default)]
pub(crate) struct ParsedBlock {
    /// Offset in the block and the entry, for every good entry before the
    /// first bad one.
    pub(crate) entries: Vec<(u32, EntryRef)>,
    /// The offset of the first bad entry and what is wrong with it.
    pub(crate) bad: Option<(u32, String)>,
}

/// Decodes every entry from the end of the block header to `used`,
/// stopping at the first that fails to decode.
pub(crate) fn parse_block(image: &[u8], used: usize, seed: u32) -> ParsedBlock {
    let mut parsed = ParsedBlock::default();
    let mut at = BLOCK_HEADER_LEN;
    while at < used {
        match decode(image, at, used, seed) {
            Ok(entry) => {
                let next = at + entry.footprint;
                parsed.entries.push((at as u32, entry));
                at = next;
            }
            Err(reason) => {
                parsed.bad = Some((at as u32, reason));
                break;
            }
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_with(payloads: &[&[u8]], seed: u32) -> (Vec<u8>, usize) {
        let mut image = vec![0u8; 4096];
        let mut at = BLOCK_HEADER_LEN;
        for (i, payload) in payloads.iter().enumerate() {
            let size = footprint(payload.len());
            encode(&mut image[at..at + size], seed, i as u8, payload);
            at += size;
        }
        (image, at)
    }

    #[test]
    fn entries_round_trip_and_are_8_aligned() {
        assert_eq!(footprint(0), 16);
        assert_eq!(footprint(4), 16);
        assert_eq!(footprint(5), 24);
        let (image, used) = block_with(&[b"", b"hello", &[7u8; 300]], 42);
        let parsed = parse_block(&image, used, 42);
        assert!(parsed.bad.is_none());
        let offsets: Vec<u32> = parsed.entries.iter().map(|(o, _)| *o).collect();
        assert_eq!(offsets, [64, 80, 104]);
        let (_, hello) = &parsed.entries[1];
        assert_eq!(&image[hello.payload.clone()], b"hello");
        assert_eq!(hello.kind, 1);
    }

    #[test]
    fn another_seed_or_a_flipped_byte_stops_the_parse() {
        let (mut image, used) = block_with(&[b"one", b"two", b"three"], 1);
        let other_life = parse_block(&image, used, 2);
        assert_eq!(other_life.entries.len(), 0);
        assert_eq!(other_life.bad.unwrap().0, 64);
        image[81 + ENTRY_HEADER_LEN] ^= 0x10;
        let parsed = parse_block(&image, used, 1);
        assert_eq!(parsed.entries.len(), 1);
        let (offset, reason) = parsed.bad.unwrap();
        assert_eq!(offset, 80);
        assert!(reason.contains("checksum"));
        image[96..100].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&image, 96, used, 1).unwrap_err().contains("past"));
    }
}
