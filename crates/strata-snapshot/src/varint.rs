//! Unsigned LEB128 varints: seven bits per byte, low bits first, the high
//! bit set on every byte but the last. A `u64` takes at most 10 bytes.

/// Longest encoding of a `u64`.
pub(crate) const MAX_VARINT_LEN: usize = 10;

/// Writes `value` at the start of `out`, returning the bytes used.
///
/// The caller guarantees `out.len() >= MAX_VARINT_LEN`.
pub(crate) fn encode(mut value: u64, out: &mut [u8]) -> usize {
    let mut i = 0;
    while value >= 0x80 {
        out[i] = (value as u8) | 0x80;
        value >>= 7;
        i += 1;
    }
    out[i] = value as u8;
    i + 1
}

/// What the bytes at some position hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Varint {
    /// A value encoded in `len` bytes.
    Value { value: u64, len: usize },
    /// The bytes end inside the varint.
    Incomplete,
    /// More than 10 bytes, or a value beyond `u64`.
    Overflow,
}

/// Decodes the varint at the start of `bytes`.
pub(crate) fn decode(bytes: &[u8]) -> Varint {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().take(MAX_VARINT_LEN).enumerate() {
        let low = u64::from(byte & 0x7f);
        // The tenth byte holds bit 63 only.
        if i == MAX_VARINT_LEN - 1 && byte > 1 {
            return Varint::Overflow;
        }
        value |= low << (7 * i);
        if byte & 0x80 == 0 {
            return Varint::Value { value, len: i + 1 };
        }
    }
    if bytes.len() >= MAX_VARINT_LEN {
        Varint::Overflow
    } else {
        Varint::Incomplete
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encoded(value: u64) -> Vec<u8> {
        let mut out = [0u8; MAX_VARINT_LEN];
        let len = encode(value, &mut out);
        out[..len].to_vec()
    }

    #[test]
    fn known_encodings() {
        assert_eq!(encoded(0), [0]);
        assert_eq!(encoded(127), [0x7f]);
        assert_eq!(encoded(128), [0x80, 0x01]);
        assert_eq!(encoded(300), [0xac, 0x02]);
        assert_eq!(encoded(u64::MAX).len(), MAX_VARINT_LEN);
        assert_eq!(*encoded(u64::MAX).last().unwrap(), 1);
    }

    #[test]
    fn too_long_or_too_large_is_overflow() {
        assert_eq!(decode(&[0x80; 11]), Varint::Overflow);
        let mut max = encoded(u64::MAX);
        *max.last_mut().unwrap() = 2;
        assert_eq!(decode(&max), Varint::Overflow);
    }

    proptest! {
        #[test]
        fn round_trip_and_prefixes(value: u64) {
            let bytes = encoded(value);
            prop_assert_eq!(decode(&bytes), Varint::Value { value, len: bytes.len() });
            for cut in 0..bytes.len() {
                prop_assert_eq!(decode(&bytes[..cut]), Varint::Incomplete);
            }
        }
    }
}
