//! Trimming a stream by length (`MAXLEN`) or identifier (`MINID`), exactly
//! or approximately (`~`: whole nodes only, at most `LIMIT` entries), as
//! Redis's `streamTrim` does.

use super::id::StreamId;
use super::model::Stream;
use super::node::NODE_ENTRIES;
use crate::reply::RespError;

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

impl Trim {
    /// Removes entries from the front as asked; returns how many.
    pub fn apply(&self, stream: &mut Stream<'_>) -> Result<u64, RespError> {
        stream.body.trim(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream_of(n: u64) -> Stream<'static> {
        let mut s = Stream::new();
        for i in 1..=n {
            s.append(StreamId::new(i, 0), vec![b"f".to_vec(), b"v".to_vec()])
                .unwrap();
        }
        s
    }

    fn trim(strategy: Strategy, approx: bool, limit: u64) -> Trim {
        Trim {
            strategy,
            approx,
            limit,
        }
    }

    #[test]
    fn exact_trims_keep_exactly_what_is_asked() {
        let mut s = stream_of(250);
        assert_eq!(
            trim(Strategy::MaxLen(120), false, 0).apply(&mut s).unwrap(),
            130
        );
        assert_eq!(s.len(), 120);
        assert_eq!(s.first_id(), StreamId::new(131, 0));
        assert_eq!(s.body.node_count(), 2);
        let min = StreamId::new(200, 0);
        assert_eq!(
            trim(Strategy::MinId(min), false, 0).apply(&mut s).unwrap(),
            69
        );
        assert_eq!(s.first_id(), min);
    }

    #[test]
    fn approximate_trims_remove_whole_nodes_within_the_limit() {
        let mut s = stream_of(250);
        assert_eq!(
            trim(Strategy::MaxLen(120), true, 0).apply(&mut s).unwrap(),
            100
        );
        assert_eq!(s.len(), 150);
        let mut s = stream_of(250);
        assert_eq!(
            trim(Strategy::MaxLen(0), true, 150).apply(&mut s).unwrap(),
            100
        );
        let mut s = stream_of(250);
        let min = StreamId::new(150, 0);
        assert_eq!(
            trim(Strategy::MinId(min), true, DEFAULT_LIMIT)
                .apply(&mut s)
                .unwrap(),
            100
        );
        let mut s = stream_of(50);
        assert_eq!(
            trim(Strategy::MaxLen(10), true, DEFAULT_LIMIT)
                .apply(&mut s)
                .unwrap(),
            0
        );
    }
}
