//! The one error type of the persistent-memory layer.

use std::io;

/// Everything that can go wrong in the persistent arena.
///
/// Errors about a file name it in `file` (`<simulated>` for the simulated
/// backing). Header errors are checked in a fixed order at open: magic,
/// version, checksum, size, geometry, kind; so a flipped byte in the
/// immutable header fields always gives the same error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PmemError {
    /// A file or mapping system call failed.
    #[error("persistent memory I/O failed: {context}")]
    Io {
        /// What the arena was doing, naming the file.
        context: String,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },

    /// An access outside the mapped region (or outside a chunk run).
    #[error("access of {len} bytes at offset {offset} is outside the {limit}-byte region")]
    OutOfBounds {
        /// First byte asked for.
        offset: u64,
        /// Number of bytes asked for.
        len: u64,
        /// Size of the region accessed.
        limit: u64,
    },

    /// An atomic access at an offset that is not a multiple of 8.
    #[error("atomic access at offset {offset} is not 8-byte aligned")]
    Misaligned {
        /// Offset asked for.
        offset: u64,
    },

    /// A size, chunk size or other parameter the arena cannot use.
    #[error("invalid persistent arena configuration: {reason}")]
    InvalidConfig {
        /// What is wrong.
        reason: String,
    },

    /// [`PersistPolicy::RequireDax`](crate::PersistPolicy::RequireDax) was
    /// asked for but the file cannot be mapped with `MAP_SYNC`.
    #[error(
        "{file}: real persistent memory (DAX with MAP_SYNC) is required but unavailable: {reason}"
    )]
    DaxUnavailable {
        /// The file.
        file: String,
        /// Why (the kernel's answer, or the architecture).
        reason: String,
    },

    /// Another open arena (in this or another process) holds the file.
    #[error("{file}: persistent arena is already open (file locked)")]
    Locked {
        /// The file.
        file: String,
    },

    /// `create` found a file already at the path.
    #[error("{file}: already exists")]
    AlreadyExists {
        /// The file.
        file: String,
    },

    /// The file does not start with the arena magic: not a Strata arena, or
    /// its creation never completed.
    #[error("{file}: not a Strata persistent arena (magic {found:02x?})")]
    BadMagic {
        /// The file.
        file: String,
        /// The first 8 bytes found.
        found: [u8; 8],
    },

    /// A format version this build does not read (written by a newer one).
    #[error("{file}: persistent arena format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// The file.
        file: String,
        /// Version in the header.
        found: u32,
        /// Version this build writes and reads.
        supported: u32,
    },

    /// The immutable header fields do not match their CRC32C.
    #[error("{file}: persistent arena header checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    ChecksumMismatch {
        /// The file.
        file: String,
        /// CRC in the header.
        stored: u32,
        /// CRC of the fields as read.
        computed: u32,
    },

    /// The header's recorded size differs from the file's length.
    #[error("{file}: header records {header} bytes but the file has {actual}")]
    SizeMismatch {
        /// The file.
        file: String,
        /// Size in the header.
        header: u64,
        /// Length of the file (or region).
        actual: u64,
    },

    /// The arena was made for another purpose (its kind tag differs).
    #[error("{file}: persistent arena kind {found:#x} where {expected:#x} was expected")]
    KindMismatch {
        /// The file.
        file: String,
        /// Kind the caller asked for.
        expected: u64,
        /// Kind in the header.
        found: u64,
    },

    /// Damage no crash can explain (a checksummed header with impossible
    /// geometry, an invalid chunk table word, a run with wrong continuations).
    #[error("{file}: persistent arena corrupt: {reason}")]
    Corrupt {
        /// The file.
        file: String,
        /// What is wrong, and where.
        reason: String,
    },

    /// No free run of the requested number of contiguous chunks.
    #[error("persistent arena full: {requested} contiguous chunks requested, {free} free, largest free run {largest}")]
    Full {
        /// Chunks asked for.
        requested: u64,
        /// Free chunks in total.
        free: u64,
        /// Longest run of contiguous free chunks.
        largest: u64,
    },

    /// A chunk run that is not (or no longer) allocated as described, or
    /// that does not belong to this arena.
    #[error("chunk run {first}+{count}: {reason}")]
    InvalidRun {
        /// First chunk of the run.
        first: u64,
        /// Number of chunks.
        count: u64,
        /// What does not match.
        reason: String,
    },

    /// A root slot index past the root table.
    #[error("root slot {index} does not exist (there are {slots})")]
    RootOutOfRange {
        /// Index asked for.
        index: usize,
        /// Number of root slots.
        slots: usize,
    },

    /// A crash was asked of an arena that is not simulated.
    #[error("crash simulation needs the simulated backing")]
    NotSimulated,

    /// An earlier persist failed: durability of anything written since is
    /// unknown, so the arena refuses further persists (never retried).
    #[error("{file}: persistent arena poisoned by an earlier failed persist")]
    Poisoned {
        /// The file.
        file: String,
    },
}

/// Shorthand used throughout the crate.
pub type Result<T, E = PmemError> = std::result::Result<T, E>;

impl PmemError {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> PmemError {
        PmemError::Io {
            context: context.into(),
            source,
        }
    }

    pub(crate) fn config(reason: impl Into<String>) -> PmemError {
        PmemError::InvalidConfig {
            reason: reason.into(),
        }
    }

    pub(crate) fn corrupt(file: &str, reason: impl Into<String>) -> PmemError {
        PmemError::Corrupt {
            file: file.to_owned(),
            reason: reason.into(),
        }
    }
}
