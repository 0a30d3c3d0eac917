//! The format's constants and what can be wrong with a value. A leaf.

/// Registers: 2^14.
pub const REGISTERS: usize = 1 << 14;
/// Bytes of the header.
pub const HEADER: usize = 16;
/// The largest sparse value before it is promoted (Redis's
/// `hll-sparse-max-bytes` default).
pub const SPARSE_MAX_BYTES: usize = 3000;

/// A string that is not a HyperLogLog (Redis answers it with `WRONGTYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotHll;

/// A HyperLogLog whose registers do not add up (`INVALIDOBJ`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corrupt;
