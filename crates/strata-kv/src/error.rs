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
    /// The journal (command log) cannot write now: the filesystem is out
    /// of space. The change is refused; writes resume without a restart
    /// once the journal can write again (changes applied before are kept
    /// and written then). Reads still work.
    #[error(
        "write refused: the command log cannot write ({cause}); writes resume once space is freed"
    )]
    JournalStalled {
        /// What the filesystem said ("No space left on device").
        cause: String,
    },
    /// The SSD tier has no room left for new records (a reserve is kept so
    /// that deletes and defragmentation still work).
    #[error("out of space: the SSD tier is full")]
    StorageFull,
    /// The SSD tier failed (a device error, or damage found on a read).
    #[error("storage error: {cause}")]
    Storage {
        /// What failed.
        cause: String,
    },
    /// A value the operation needs is not in DRAM and the operation was
    /// deferred (see [`fetch`](crate::fetch)): nothing changed; the front
    /// end fetches the value and runs the request again. Never a reply.
    #[error("value not in memory yet")]
    NotResident,
    /// The key is empty or longer than the engine's maximum key length.
    #[error("invalid key length {len}")]
    BadKey {
        /// Length of the refused key.
        len: usize,
    },
}
