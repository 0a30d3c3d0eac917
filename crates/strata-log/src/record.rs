//! The record codec.
//!
//! `crc32c u32 | body_len u32 | kind u8 | lsn u64 | body`, integers
//! little-endian; the CRC covers everything after itself (length, kind, LSN
//! and body), so a record whose CRC verifies is whole and in place.

use strata_device::le::{u32_at, u64_at};

/// Bytes before the body of every record.
pub const RECORD_HEADER_LEN: usize = 17;

/// Largest accepted record body (1 GiB).
pub const MAX_BODY_LEN: usize = 1 << 30;

/// Appends one encoded record to `buf`.
///
/// The caller guarantees `body.len() <= MAX_BODY_LEN`.
pub(crate) fn encode_into(buf: &mut Vec<u8>, lsn: u64, kind: u8, body: &[u8]) {
    debug_assert!(body.len() <= MAX_BODY_LEN);
    let start = buf.len();
    buf.reserve(RECORD_HEADER_LEN + body.len());
    buf.extend_from_slice(&[0; 4]);
    buf.extend_from_slice(&(body.len() as u32).to_le_bytes());
    buf.push(kind);
    buf.extend_from_slice(&lsn.to_le_bytes());
    buf.extend_from_slice(body);
    let crc = crc32c::crc32c(&buf[start + 4..]);
    buf[start..start + 4].copy_from_slice(&crc.to_le_bytes());
}

/// What the bytes at some position hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// A whole record of `len` bytes (header included) whose CRC verifies;
    /// its body is `bytes[RECORD_HEADER_LEN..len]`.
    Record { lsn: u64, kind: u8, len: usize },
    /// Fewer than `needed` bytes are available.
    Incomplete { needed: usize },
    /// Zeros where a record header would start: preallocated space that
    /// no record has reached (a valid header is never all zeros: LSNs start
    /// at 1). Only the rest of the segment can tell an end from a hole.
    Zeros,
    /// Not a record.
    Corrupt { reason: &'static str },
}

/// Decodes the record at the start of `bytes`, verifying its CRC.
pub(crate) fn decode(bytes: &[u8]) -> Decoded {
    let head = &bytes[..bytes.len().min(RECORD_HEADER_LEN)];
    if !head.is_empty() && head.iter().all(|&b| b == 0) {
        return Decoded::Zeros;
    }
    if bytes.len() < RECORD_HEADER_LEN {
        return Decoded::Incomplete {
            needed: RECORD_HEADER_LEN,
        };
    }
    let body_len = u32_at(bytes, 4) as usize;
    if body_len > MAX_BODY_LEN {
        return Decoded::Corrupt {
            reason: "record length beyond the limit",
        };
    }
    let len = RECORD_HEADER_LEN + body_len;
    if bytes.len() < len {
        return Decoded::Incomplete { needed: len };
    }
    if crc32c::crc32c(&bytes[4..len]) != u32_at(bytes, 0) {
        return Decoded::Corrupt {
            reason: "record checksum mismatch",
        };
    }
    Decoded::Record {
        lsn: u64_at(bytes, 9),
        kind: bytes[8],
        len,
    }
}

/// Length of the record at the start of `bytes`, which the caller
/// guarantees it encoded itself (no verification).
pub(crate) fn encoded_len(bytes: &[u8]) -> usize {
    RECORD_HEADER_LEN + u32_at(bytes, 4) as usize
}

/// LSN of the record at the start of `bytes`, encoded by the caller.
pub(crate) fn encoded_lsn(bytes: &[u8]) -> u64 {
    u64_at(bytes, 9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(lsn: u64, kind: u8, body: &[u8]) -> Vec<u8> {
        let mut buf = Vec::new();
        encode_into(&mut buf, lsn, kind, body);
        buf
    }

    #[test]
    fn round_trip() {
        for body in [&b""[..], b"x", &[7u8; 1000]] {
            let buf = encoded(42, 9, body);
            assert_eq!(buf.len(), RECORD_HEADER_LEN + body.len());
            assert_eq!(encoded_len(&buf), buf.len());
            assert_eq!(encoded_lsn(&buf), 42);
            let Decoded::Record { lsn, kind, len } = decode(&buf) else {
                panic!("not a record");
            };
            assert_eq!((lsn, kind, len), (42, 9, buf.len()));
            assert_eq!(&buf[RECORD_HEADER_LEN..len], body);
        }
    }

    #[test]
    fn layout_is_little_endian_with_crc_first() {
        let buf = encoded(0x0102, 3, b"ab");
        assert_eq!(&buf[4..8], &2u32.to_le_bytes());
        assert_eq!(buf[8], 3);
        assert_eq!(&buf[9..17], &0x0102u64.to_le_bytes());
        assert_eq!(&buf[17..], b"ab");
        assert_eq!(&buf[..4], &crc32c::crc32c(&buf[4..]).to_le_bytes());
    }

    #[test]
    fn every_prefix_is_incomplete() {
        let buf = encoded(1, 1, b"hello world");
        for cut in 0..buf.len() {
            assert!(
                matches!(decode(&buf[..cut]), Decoded::Incomplete { .. }),
                "prefix of {cut} bytes"
            );
        }
    }

    #[test]
    fn every_flipped_bit_is_detected() {
        let buf = encoded(5, 2, b"some body");
        for byte in 0..buf.len() {
            for bit in 0..8 {
                let mut bad = buf.clone();
                bad[byte] ^= 1 << bit;
                assert!(
                    !matches!(decode(&bad), Decoded::Record { .. }),
                    "flip at byte {byte} bit {bit} went unnoticed"
                );
            }
        }
    }

    #[test]
    fn absurd_length_is_corrupt_not_incomplete() {
        let mut buf = encoded(1, 1, b"x");
        buf[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&buf), Decoded::Corrupt { .. }));
    }

    #[test]
    fn zeros_are_not_a_record() {
        assert_eq!(decode(&[0; 64]), Decoded::Zeros);
        assert_eq!(decode(&[0; 5]), Decoded::Zeros);
        let mut almost = [0u8; 64];
        almost[16] = 1;
        assert!(matches!(decode(&almost), Decoded::Corrupt { .. }));
    }
}
