//! [`SnapshotItem`] and the record codec.
//!
//! A record is `tag u8 | key_len | value_len | flags | cas | [expires_at] |
//! key | value`, the integers as varints; tag bit 0 says whether
//! `expires_at` is present, and the other tag bits must be zero.

use crate::varint::{self, Varint, MAX_VARINT_LEN};
use crate::SnapshotError;

/// Longest key a record holds (1 GiB).
pub const MAX_KEY_LEN: usize = 1 << 30;

/// Longest value a record holds (1 GiB).
pub const MAX_VALUE_LEN: usize = 1 << 30;

/// Longest record header: the tag and five varints.
pub(crate) const MAX_RECORD_HEADER_LEN: usize = 1 + 5 * MAX_VARINT_LEN;

/// Shortest record: the tag and four one-byte varints.
pub(crate) const MIN_RECORD_LEN: usize = 5;

const HAS_EXPIRY: u8 = 1;

/// One key-value record of a snapshot, borrowed from the caller (writing) or
/// from the reader's buffer (reading).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SnapshotItem<'a> {
    /// The key (at most [`MAX_KEY_LEN`] bytes).
    pub key: &'a [u8],
    /// The value (at most [`MAX_VALUE_LEN`] bytes; may be empty).
    pub value: &'a [u8],
    /// Opaque flags word: the engine stores memcached client flags in the
    /// low 32 bits and the value's kind above them.
    pub flags: u64,
    /// The item's CAS version.
    pub cas: u64,
    /// Absolute expiry time, unix milliseconds; `None` never expires.
    pub expires_at: Option<u64>,
}

impl SnapshotItem<'_> {
    /// An error if the key or value is too long for a record.
    pub(crate) fn check_size(&self) -> Result<(), SnapshotError> {
        for (field, len, max) in [
            ("key", self.key.len(), MAX_KEY_LEN),
            ("value", self.value.len(), MAX_VALUE_LEN),
        ] {
            if len > max {
                return Err(SnapshotError::ItemTooLarge { field, len, max });
            }
        }
        Ok(())
    }

    /// Writes the record header (everything before the key) into `out`,
    /// returning its length. The key and value follow it in the stream.
    pub(crate) fn encode_header(&self, out: &mut [u8; MAX_RECORD_HEADER_LEN]) -> usize {
        out[0] = if self.expires_at.is_some() {
            HAS_EXPIRY
        } else {
            0
        };
        let mut at = 1;
        let fields = [
            Some(self.key.len() as u64),
            Some(self.value.len() as u64),
            Some(self.flags),
            Some(self.cas),
            self.expires_at,
        ];
        for value in fields.into_iter().flatten() {
            at += varint::encode(value, &mut out[at..]);
        }
        at
    }

    /// Bytes of the encoded record.
    #[cfg(test)]
    pub(crate) fn encoded_len(&self) -> usize {
        let mut header = [0u8; MAX_RECORD_HEADER_LEN];
        self.encode_header(&mut header) + self.key.len() + self.value.len()
    }
}

/// What the bytes at the start of a record stream hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decoded<'a> {
    /// A whole record, `len` bytes long.
    Record { item: SnapshotItem<'a>, len: usize },
    /// The bytes end inside a record that needs at least `needed` bytes.
    Incomplete { needed: usize },
    /// Not a record.
    Corrupt { reason: &'static str },
}

/// Decodes the record at the start of `bytes`.
pub(crate) fn decode(bytes: &[u8]) -> Decoded<'_> {
    // Until the header is whole, one more byte is all we know we need.
    let more = Decoded::Incomplete {
        needed: bytes.len() + 1,
    };
    let Some(&tag) = bytes.first() else {
        return more;
    };
    if tag & !HAS_EXPIRY != 0 {
        return Decoded::Corrupt {
            reason: "unknown record tag",
        };
    }
    let count = if tag & HAS_EXPIRY != 0 { 5 } else { 4 };
    let mut fields = [0u64; 5];
    let mut at = 1;
    for field in fields.iter_mut().take(count) {
        match varint::decode(&bytes[at..]) {
            Varint::Value { value, len } => {
                *field = value;
                at += len;
            }
            Varint::Incomplete => return more,
            Varint::Overflow => {
                return Decoded::Corrupt {
                    reason: "malformed varint in record header",
                }
            }
        }
    }
    let [key_len, value_len, flags, cas, expires_at] = fields;
    if key_len > MAX_KEY_LEN as u64 || value_len > MAX_VALUE_LEN as u64 {
        return Decoded::Corrupt {
            reason: "record key or value length beyond the limit",
        };
    }
    let key_end = at + key_len as usize;
    let len = key_end + value_len as usize;
    if bytes.len() < len {
        return Decoded::Incomplete { needed: len };
    }
    Decoded::Record {
        item: SnapshotItem {
            key: &bytes[at..key_end],
            value: &bytes[key_end..len],
            flags,
            cas,
            expires_at: (count == 5).then_some(expires_at),
        },
        len,
    }
}

/// Appends the whole encoded record to `out` (tests and tools; the writer
/// streams the parts instead).
#[cfg(test)]
pub(crate) fn encode_into(item: &SnapshotItem<'_>, out: &mut Vec<u8>) {
    let mut header = [0u8; MAX_RECORD_HEADER_LEN];
    let len = item.encode_header(&mut header);
    out.extend_from_slice(&header[..len]);
    out.extend_from_slice(item.key);
    out.extend_from_slice(item.value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(key: &'a [u8], value: &'a [u8], expires_at: Option<u64>) -> SnapshotItem<'a> {
        SnapshotItem {
            key,
            value,
            flags: 0xdead_beef,
            cas: u64::MAX - 3,
            expires_at,
        }
    }

    fn encoded(item: &SnapshotItem<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        encode_into(item, &mut out);
        out
    }

    #[test]
    fn round_trip() {
        let big = vec![9u8; 1000];
        for it in [
            item(b"k", b"v", None),
            item(b"", b"", Some(0)),
            item(b"key", &big, Some(u64::MAX)),
        ] {
            let bytes = encoded(&it);
            assert_eq!(bytes.len(), it.encoded_len());
            assert_eq!(
                decode(&bytes),
                Decoded::Record {
                    item: it,
                    len: bytes.len()
                }
            );
        }
    }

    #[test]
    fn compact_for_small_items() {
        let small = SnapshotItem {
            key: b"k",
            value: b"v",
            flags: 0,
            cas: 1,
            expires_at: None,
        };
        assert_eq!(encoded(&small), [0, 1, 1, 0, 1, b'k', b'v']);
    }

    #[test]
    fn every_prefix_is_incomplete_and_needs_more() {
        let bytes = encoded(&item(b"some key", b"some value", Some(12345)));
        for cut in 0..bytes.len() {
            match decode(&bytes[..cut]) {
                Decoded::Incomplete { needed } => assert!(needed > cut && needed <= bytes.len()),
                other => panic!("prefix of {cut} bytes: {other:?}"),
            }
        }
    }

    #[test]
    fn bad_tag_and_lengths_are_corrupt() {
        let mut bytes = encoded(&item(b"k", b"v", None));
        bytes[0] = 0x80;
        assert!(matches!(decode(&bytes), Decoded::Corrupt { .. }));
        let mut huge = vec![0u8];
        huge.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]); // key_len ~ 4 GiB
        huge.extend_from_slice(&[0, 0, 0]);
        assert!(matches!(decode(&huge), Decoded::Corrupt { .. }));
    }
}
