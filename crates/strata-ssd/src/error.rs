//! [`SsdError`]: the one error type of the SSD tier.

use std::io;

use crate::loc::BlockLoc;

/// Everything that can go wrong in the write-block store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SsdError {
    /// A device operation failed.
    #[error("SSD tier I/O failed: {what}: {source}")]
    Io {
        /// What the store was doing.
        what: String,
        /// The device error.
        #[source]
        source: io::Error,
    },

    /// No room for an ordinary append: free blocks are at or below the
    /// reserve kept for the defragmenter. Nothing was written; defragment
    /// or delete, then retry.
    #[error(
        "SSD tier full: {free_blocks} free blocks left, {reserve} reserved for defragmentation"
    )]
    Full {
        /// Free write blocks.
        free_blocks: u32,
        /// The reserve.
        reserve: u32,
    },

    /// A payload larger than one write block can hold.
    #[error("record of {len} bytes exceeds the SSD tier's limit of {max} bytes per record")]
    TooLarge {
        /// Payload length asked for.
        len: usize,
        /// The largest payload ([`SsdStore::max_payload`](crate::SsdStore::max_payload)).
        max: usize,
    },

    /// Damaged data on the device that is not a torn tail.
    #[error("SSD tier corrupt: block {block} offset {offset}: {reason}")]
    Corrupt {
        /// Write block.
        block: u32,
        /// Byte offset in the block.
        offset: u32,
        /// What is wrong.
        reason: String,
    },

    /// The device does not fit the configuration (other geometry, not a
    /// Strata device, too small or too large).
    #[error("SSD tier device refused: {0}")]
    BadDevice(String),

    /// An [`SsdConfig`](crate::SsdConfig) value out of range.
    #[error("invalid SSD tier configuration: {0}")]
    Config(String),

    /// A location that holds no live entry (a free block, past the used
    /// bytes, or released more bytes than are live).
    #[error("{loc} is not live: {reason}")]
    NotLive {
        /// The location.
        loc: BlockLoc,
        /// Why.
        reason: String,
    },

    /// `free_block` without `force` on a block that still has live bytes.
    #[error("block {block} still holds {live_bytes} live bytes")]
    StillLive {
        /// The block.
        block: u32,
        /// Its live bytes.
        live_bytes: u64,
    },

    /// An earlier write or sync failed: the store accepts no more writes
    /// (the failed sync is never retried and taken for success).
    #[error("SSD tier poisoned by an earlier failure: {0}")]
    Poisoned(String),

    /// A call out of order (for example finishing a rebuild before the scan).
    #[error("SSD tier misuse: {0}")]
    Misuse(&'static str),

    /// A file set's catalog that cannot be read (damaged, another
    /// version, or of another device).
    #[error("file catalog {name} refused: {reason}")]
    Catalog {
        /// The catalog's file name.
        name: String,
        /// What is wrong.
        reason: String,
    },

    /// The reader pool stopped before answering.
    #[error("SSD tier reader pool closed")]
    Closed,
}

impl SsdError {
    /// Wraps a device error with what the store was doing.
    pub(crate) fn io(what: impl Into<String>, source: io::Error) -> SsdError {
        SsdError::Io {
            what: what.into(),
            source,
        }
    }
}
