//! [`ItemInfo`]: one item as the size-class statistics see it (sizes,
//! expiry, access record). A leaf, so the shard can name it without
//! importing the code that fills it in.

use crate::index::Access;

/// One item as a stats walk sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemInfo<'a> {
    /// The item's key.
    pub key: &'a [u8],
    /// Bytes of the value.
    pub value_len: usize,
    /// Bytes of the item's record (header, key, value): what decides its
    /// size class.
    pub size: usize,
    /// Expiry, Unix milliseconds.
    pub expires_at: Option<u64>,
    /// Fetched since written, and seconds since the last access.
    pub access: Access,
}
