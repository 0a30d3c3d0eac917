//! The engine's error type. Front ends map each variant to their wire reply
//! in one place (`strata-memcache::reply`, `strata-resp::reply`).

/// Why a keyspace operation was refused. Nothing is changed when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KvError {
    /// The item (key + value + header) is larger than the configured maximum.
    #[error("object too large for cache ({size} bytes, limit {limit})")]
    TooLarge {
        /// Encoded size of the refused item.
        size: usize,
        /// The configured `max_item_size`.
        limit: usize,
    },
    /// The memory limit is reached and the eviction policy does not allow evicting
    /// (store mode), or nothing evictable was left.
    #[error("out of memory: used memory is over the limit and nothing can be evicted")]
    OutOfMemory,
    /// The journal (command log) has failed: the change cannot be made
    /// durable, so it is refused; reads still work.
    #[error("write refused: changes can no longer be made durable ({cause})")]
    NotDurable {
        /// Why the journal failed.
        cause: String,
    },
    /// The key is empty or longer than the engine's maximum key length.
    #[error("invalid key length {len}")]
    BadKey {
        /// Length of the refused key.
        len: usize,
    },
}
