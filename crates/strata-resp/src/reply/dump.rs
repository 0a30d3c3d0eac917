//! [`DumpError`]: the refusals of `DUMP` and `RESTORE`, Redis 7's texts
//! byte for byte (`cluster.c`'s `restoreCommand`); a variant of the reply
//! table's [`RespError`](crate::reply::RespError). A leaf.

/// Refusals of `DUMP` and `RESTORE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// `RESTORE` onto an existing key without `REPLACE`.
    #[error("BUSYKEY Target key name already exists.")]
    BusyKey,
    /// A payload shorter than its footer, of a newer RDB version than
    /// Strata reads, or whose CRC-64 does not match.
    #[error("ERR DUMP payload version or checksum are wrong")]
    Footer,
    /// A payload whose footer is right but whose object does not parse
    /// (or is empty, or holds a member twice, or a NaN score).
    #[error("ERR Bad data format")]
    Format,
    /// A negative `ttl`.
    #[error("ERR Invalid TTL value, must be >= 0")]
    NegativeTtl,
    /// A negative `IDLETIME`.
    #[error("ERR Invalid IDLETIME value, must be >= 0")]
    Idle,
    /// A `FREQ` outside 0..=255.
    #[error("ERR Invalid FREQ value, must be >= 0 and <= 255")]
    Freq,
}
