//! Trimming a stream by length (`MAXLEN`) or identifier (`MINID`), exactly
//! or approximately (`~`: whole nodes only, at most `LIMIT` entries), as
//! Redis's `streamTrim` does.

use super::id::StreamId;
use super::node::NODE_ENTRIES;

/// What to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// At most this many entries.
    MaxLen(u64),
    /// No entry below this identifier.
    MinId(StreamId),
}

/// A trim request of `XADD` or `XTRIM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trim {
    /// What to keep.
    pub strategy: Strategy,
    /// `~`: remove whole nodes only.
    pub approx: bool,
    /// Most entries to remove (0: no bound). Only with `~`; its default
    /// is 100 nodes' worth.
    pub limit: u64,
}

/// The default `LIMIT` of an approximate trim: 100 nodes.
pub const DEFAULT_LIMIT: u64 = 100 * NODE_ENTRIES as u64;
