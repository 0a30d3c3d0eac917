//! [`SortError`]: the refusals of `SORT`, `SORT_RO` and `LCS`, Redis
//! 7.2's texts byte for byte (`sort.c`, `t_string.c`); a variant of the
//! reply table's [`RespError`](crate::reply::RespError). A leaf.

/// Refusals of `SORT`, `SORT_RO` and `LCS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SortError {
    /// A weight (the element itself, or what `BY` found) that `strtod`
    /// does not read whole, overflows, underflows or is NaN.
    #[error("ERR One or more scores can't be converted into double")]
    NotDouble,
    /// `BY` with a pattern, for a user without read access to every key.
    #[error("ERR BY option of SORT denied due to insufficient ACL permissions.")]
    ByDenied,
    /// `GET`, for a user without read access to every key.
    #[error("ERR GET option of SORT denied due to insufficient ACL permissions.")]
    GetDenied,
    /// `LCS` over a key holding something other than a string.
    #[error("ERR The specified keys must contain string values")]
    LcsNotStrings,
    /// `LCS` with both `LEN` and `IDX`.
    #[error("ERR If you want both the length and indexes, please just use IDX.")]
    LcsLenAndIdx,
    /// `LCS` of a string of `u32::MAX - 1` bytes or more.
    #[error("ERR String too long for LCS")]
    LcsTooLong,
    /// `LCS` whose table would be larger than `proto-max-bulk-len`.
    #[error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")]
    LcsOverBulkLimit,
    /// `LCS` whose table could not be allocated.
    #[error("ERR Insufficient memory, failed allocating transient memory for LCS")]
    LcsNoMemory,
}
