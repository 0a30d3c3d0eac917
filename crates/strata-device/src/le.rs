//! Little-endian fields of the on-device formats (the log's records, the
//! snapshot's and the SSD store's headers): one definition for every
//! format crate above this one.
//!
//! Both functions panic, as slicing does, if `bytes` is shorter than
//! `at` + the field: every caller checks a record's or header's length
//! before reading its fields.

/// The little-endian `u32` at `at`.
pub fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

/// The little-endian `u64` at `at`.
pub fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::{u32_at, u64_at};

    #[test]
    fn fields_read_little_endian_at_their_offset() {
        let bytes = [0xff, 1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(u32_at(&bytes, 1), 0x0403_0201);
        assert_eq!(u64_at(&bytes, 1), 0x0807_0605_0403_0201);
    }
}
