//! A large list's head value ([`ListMeta`]): the ring of chunk numbers,
//! the element count and the packed bytes, 26 bytes whatever the list's
//! length, starting like no packed value does.

use crate::chunk::{Ring, RING};
#[cfg(test)]
use crate::collection;

const MAGIC: [u8; 2] = [0x00, 0xC6];
const META_LEN: usize = 2 + 4 + 4 + 8 + 8;

/// Whether `value` (a list's stored value) is a large list's head: it
/// starts like no packed value does (a packed value of 0 elements is one
/// byte).
pub fn is_list_head(value: &[u8]) -> bool {
    value.starts_with(&MAGIC)
}

/// A large list's head value: `0x00 0xC6 | first | chunks | count | bytes`
/// (u32, u32, u64, u64, little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct ListMeta {
    pub(super) ring: Ring,
    pub(super) count: u64,
    pub(super) bytes: u64,
}

impl ListMeta {
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(META_LEN);
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&self.ring.first.to_le_bytes());
        buf.extend_from_slice(&self.ring.count.to_le_bytes());
        buf.extend_from_slice(&self.count.to_le_bytes());
        buf.extend_from_slice(&self.bytes.to_le_bytes());
        buf
    }

    pub(super) fn decode(value: &[u8]) -> Option<Self> {
        let rest = value.strip_prefix(&MAGIC)?;
        if rest.len() != META_LEN - 2 {
            return None;
        }
        let first = u32::from_le_bytes(rest[0..4].try_into().ok()?);
        let count = u32::from_le_bytes(rest[4..8].try_into().ok()?);
        let meta = Self {
            ring: Ring { first, count },
            count: u64::from_le_bytes(rest[8..16].try_into().ok()?),
            bytes: u64::from_le_bytes(rest[16..24].try_into().ok()?),
        };
        (first < RING && count < RING).then_some(meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_round_trips_and_is_not_packed() {
        let meta = ListMeta {
            ring: Ring {
                first: RING - 1,
                count: 3,
            },
            count: 1 << 40,
            bytes: 7,
        };
        let bytes = meta.encode();
        assert!(is_list_head(&bytes) && !crate::large::is_head(&bytes));
        assert_eq!(ListMeta::decode(&bytes), Some(meta));
        assert!(collection::decode(&bytes).is_none());
        assert!(ListMeta::decode(&bytes[..bytes.len() - 1]).is_none());
    }
}
