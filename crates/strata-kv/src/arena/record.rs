//! The byte layout of one item record inside a segment.
//!
//! ```text
//! control:u8 | key_len | value_len | cas | [flags] | [expires_at] | key | value
//! ```
//! Integers are LEB128 varints so that a typical small item pays 7 header
//! bytes instead of 28. `control` bit 0 says flags are present (non-zero),
//! bit 1 says an expiry is present, bit 7 that the record is dead (set in
//! place in persistent memory). Records are packed without alignment.

const HAS_FLAGS: u8 = 1;
const HAS_EXPIRY: u8 = 2;
/// Set in place on a persistent record that is no longer live (the only
/// change ever made to a written record), so a restart's scan skips it.
pub(crate) const DEAD: u8 = 0x80;

/// The decoded header of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub key_len: usize,
    pub value_len: usize,
    pub cas: u64,
    /// Client flags and value kind (`item::stored_flags`).
    pub flags: u64,
    pub expires_at: Option<u64>,
    /// Bytes before the key.
    pub header_len: usize,
    /// Marked dead in place (persistent segments with a DRAM index).
    pub dead: bool,
}

impl Header {
    /// Total encoded length of the record.
    pub fn record_len(&self) -> usize {
        self.header_len + self.key_len + self.value_len
    }
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

pub(crate) fn put_varint(buf: &mut [u8], pos: &mut usize, mut v: u64) {
    while v >= 0x80 {
        buf[*pos] = (v as u8) | 0x80;
        v >>= 7;
        *pos += 1;
    }
    buf[*pos] = v as u8;
    *pos += 1;
}

#[inline]
pub(crate) fn get_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    // One byte for most lengths: every lookup decodes the headers it
    // probes, so this path stays short.
    let first = *buf.get(*pos)?;
    if first < 0x80 {
        *pos += 1;
        return Some(u64::from(first));
    }
    get_long_varint(buf, pos)
}

fn get_long_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Length of the header for these fields.
pub(crate) fn header_len(
    key_len: usize,
    value_len: usize,
    cas: u64,
    flags: u64,
    expires_at: Option<u64>,
) -> usize {
    1 + varint_len(key_len as u64)
        + varint_len(value_len as u64)
        + varint_len(cas)
        + if flags != 0 { varint_len(flags) } else { 0 }
        + expires_at.map_or(0, varint_len)
}

/// Bytes of a stub for a key of `key_len` bytes whose value (see
/// `tier/stub.rs`) is `value_len` bytes.
pub(crate) fn stub_len(
    key_len: usize,
    value_len: usize,
    cas: u64,
    flags: u64,
    expires_at: Option<u64>,
) -> usize {
    header_len(key_len, value_len, cas, flags, expires_at) + key_len + value_len
}

/// Writes a record into `buf`, which MUST be exactly
/// `header_len(..) + key.len() + value.len()` bytes long. The value is the
/// concatenation of `value_parts`.
pub(crate) fn encode(
    buf: &mut [u8],
    key: &[u8],
    value_parts: &[&[u8]],
    cas: u64,
    flags: u64,
    expires_at: Option<u64>,
) {
    let value_len: usize = value_parts.iter().map(|p| p.len()).sum();
    let mut pos = encode_header(buf, key.len(), value_len, cas, flags, expires_at);
    buf[pos..pos + key.len()].copy_from_slice(key);
    pos += key.len();
    for part in value_parts {
        buf[pos..pos + part.len()].copy_from_slice(part);
        pos += part.len();
    }
    debug_assert_eq!(pos, buf.len());
}

/// Writes a record's header (the bytes before its key) at the start of
/// `buf`, which must hold at least [`header_len`] of these fields; returns
/// that length. A record rewritten in place with a header as long keeps
/// its key and value where they are.
#[inline]
pub(crate) fn encode_header(
    buf: &mut [u8],
    key_len: usize,
    value_len: usize,
    cas: u64,
    flags: u64,
    expires_at: Option<u64>,
) -> usize {
    let mut control = 0;
    if flags != 0 {
        control |= HAS_FLAGS;
    }
    if expires_at.is_some() {
        control |= HAS_EXPIRY;
    }
    buf[0] = control;
    let mut pos = 1;
    put_varint(buf, &mut pos, key_len as u64);
    put_varint(buf, &mut pos, value_len as u64);
    put_varint(buf, &mut pos, cas);
    if flags != 0 {
        put_varint(buf, &mut pos, flags);
    }
    if let Some(at) = expires_at {
        put_varint(buf, &mut pos, at);
    }
    pos
}

/// The stored flags word of the record at the start of `buf`: 0 from the
/// control byte alone when the record has none (a string written over
/// RESP, most records), so a pass that only asks which namespace or kind
/// records are reads one byte of each; `None` where [`decode`] fails.
pub(crate) fn flags(buf: &[u8]) -> Option<u64> {
    match *buf.first()? & HAS_FLAGS {
        0 => Some(0),
        _ => decode(buf).map(|h| h.flags),
    }
}

/// Decodes the header at the start of `buf`; `None` if it is malformed or the
/// record does not fit in `buf`.
pub(crate) fn decode(buf: &[u8]) -> Option<Header> {
    let control = *buf.first()?;
    let mut pos = 1;
    let key_len = usize::try_from(get_varint(buf, &mut pos)?).ok()?;
    let value_len = usize::try_from(get_varint(buf, &mut pos)?).ok()?;
    let cas = get_varint(buf, &mut pos)?;
    let flags = if control & HAS_FLAGS != 0 {
        let flags = get_varint(buf, &mut pos)?;
        // A kind this build does not know is a record it cannot read.
        crate::item::split_stored_flags(flags)?;
        flags
    } else {
        0
    };
    let expires_at = if control & HAS_EXPIRY != 0 {
        Some(get_varint(buf, &mut pos)?)
    } else {
        None
    };
    let header = Header {
        key_len,
        value_len,
        cas,
        flags,
        expires_at,
        header_len: pos,
        dead: control & DEAD != 0,
    };
    (header.record_len() <= buf.len()).then_some(header)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(key: &[u8], value: &[u8], cas: u64, flags: u64, exp: Option<u64>) {
        let len = header_len(key.len(), value.len(), cas, flags, exp) + key.len() + value.len();
        let mut buf = vec![0u8; len + 3];
        encode(&mut buf[..len], key, &[value], cas, flags, exp);
        let h = decode(&buf).expect("decodes");
        assert_eq!(h.record_len(), len);
        assert_eq!((h.cas, h.flags, h.expires_at), (cas, flags, exp));
        assert_eq!(&buf[h.header_len..h.header_len + h.key_len], key);
        assert_eq!(&buf[h.header_len + h.key_len..len], value);
    }

    #[test]
    fn records_roundtrip() {
        roundtrip(b"k", b"", 1, 0, None);
        roundtrip(b"key:1", &[7u8; 50], 123_456, 0, None);
        roundtrip(
            &[1u8; 300],
            &[9u8; 70_000],
            u64::MAX,
            u64::from(u32::MAX) | 4 << 32,
            Some(u64::MAX),
        );
        roundtrip(b"x", b"y", 0, 42, Some(1_700_000_000_000));
    }

    #[test]
    fn small_item_header_is_small() {
        assert_eq!(header_len(11, 50, 1 << 20, 0, None), 6);
    }

    #[test]
    fn truncated_records_do_not_decode() {
        let mut buf = [0u8; 64];
        let len = header_len(3, 10, 5, 0, None) + 13;
        encode(&mut buf[..len], b"abc", &[&[1u8; 10]], 5, 0, None);
        assert!(decode(&buf[..len - 1]).is_none());
        assert!(decode(&[]).is_none());
        assert!(decode(&[0, 0xff, 0xff]).is_none());
    }
}
