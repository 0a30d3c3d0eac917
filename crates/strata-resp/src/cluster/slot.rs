//! [`key_slot`]: Redis Cluster's hash slot of a key: CRC16 (XMODEM) of
//! the key, or of its hash tag (the bytes between the first `{` and the
//! first `}` after it, when not empty), modulo 16384.

/// Hash slots in a Redis cluster.
pub const SLOTS: u16 = 16_384;

const CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM);

/// The slot of `key`.
pub fn key_slot(key: &[u8]) -> u16 {
    CRC16.checksum(hash_tag(key)) & (SLOTS - 1)
}

/// What of `key` is hashed: its tag, or all of it.
fn hash_tag(key: &[u8]) -> &[u8] {
    let Some(open) = key.iter().position(|&b| b == b'{') else {
        return key;
    };
    let rest = &key[open + 1..];
    match rest.iter().position(|&b| b == b'}') {
        Some(close) if close > 0 => &rest[..close],
        _ => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_redis_ones() {
        // From a Redis 7.0 node's CLUSTER KEYSLOT.
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{user1000}.following"), 3443);
        assert_eq!(key_slot(b"foo{}{bar}"), 8363);
        assert_eq!(key_slot(b"foo{{bar}}zap"), 4015);
        assert_eq!(key_slot(b"{user1000}.followers"), key_slot(b"user1000"));
        assert_eq!(key_slot(b""), 0);
    }
}
