//! [`StreamId`]: a stream entry's `<ms>-<seq>` identifier, and the ways
//! commands spell one (Redis's `streamGenericParseIDOrReply`).

use std::fmt;

use crate::reply::StreamError;

/// An entry's identifier: milliseconds, then a sequence within them.
/// Ordered as the pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StreamId {
    /// Milliseconds part.
    pub ms: u64,
    /// Sequence part.
    pub seq: u64,
}

impl StreamId {
    /// The smallest identifier (`-`).
    pub const MIN: StreamId = StreamId { ms: 0, seq: 0 };
    /// The largest identifier (`+`).
    pub const MAX: StreamId = StreamId {
        ms: u64::MAX,
        seq: u64::MAX,
    };

    /// An identifier.
    pub const fn new(ms: u64, seq: u64) -> StreamId {
        StreamId { ms, seq }
    }

    /// The next identifier; `None` past [`StreamId::MAX`].
    pub fn next(self) -> Option<StreamId> {
        match self.seq.checked_add(1) {
            Some(seq) => Some(StreamId { ms: self.ms, seq }),
            None => Some(StreamId {
                ms: self.ms.checked_add(1)?,
                seq: 0,
            }),
        }
    }

    /// The previous identifier; `None` before [`StreamId::MIN`].
    pub fn prev(self) -> Option<StreamId> {
        match self.seq.checked_sub(1) {
            Some(seq) => Some(StreamId { ms: self.ms, seq }),
            None => Some(StreamId {
                ms: self.ms.checked_sub(1)?,
                seq: u64::MAX,
            }),
        }
    }

    /// Whether this is `0-0`.
    pub fn is_zero(self) -> bool {
        self == StreamId::MIN
    }

    /// Reads an identifier: `-`, `+` (unless `strict`), `<ms>` (sequence
    /// `missing_seq`) or `<ms>-<seq>`.
    pub fn parse(arg: &[u8], missing_seq: u64, strict: bool) -> Result<StreamId, StreamError> {
        match Spelled::parse(arg, missing_seq, strict, false)? {
            Spelled::Full(id) => Ok(id),
            Spelled::AutoSeq(_) => Err(StreamError::InvalidId),
        }
    }

    /// [`parse`](StreamId::parse) with `-`/`+` allowed and a missing
    /// sequence read as 0: what most commands take.
    pub fn parse_plain(arg: &[u8]) -> Result<StreamId, StreamError> {
        StreamId::parse(arg, 0, false)
    }

    /// A range bound of `XRANGE`, `XREVRANGE` and `XPENDING`: an
    /// identifier as [`parse`](StreamId::parse) reads it, or `(` and a
    /// strict one for an exclusive bound (moved inward by one; `None` when
    /// there is no identifier inward).
    pub fn parse_bound(
        arg: &[u8],
        missing_seq: u64,
        start: bool,
    ) -> Result<Option<StreamId>, StreamError> {
        match arg.strip_prefix(b"(") {
            Some(rest) if arg.len() > 1 => {
                let id = StreamId::parse(rest, missing_seq, true)?;
                Ok(if start { id.next() } else { id.prev() })
            }
            _ => StreamId::parse(arg, missing_seq, false).map(Some),
        }
    }
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.ms, self.seq)
    }
}

/// An identifier as `XADD` may spell it: complete, or `<ms>-*` (the
/// sequence left to the stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelled {
    /// Both parts given (or implied).
    Full(StreamId),
    /// `<ms>-*`.
    AutoSeq(u64),
}

impl Spelled {
    /// Reads `arg`; `<ms>-*` only when `auto_seq` allows it.
    pub fn parse(
        arg: &[u8],
        missing_seq: u64,
        strict: bool,
        auto_seq: bool,
    ) -> Result<Spelled, StreamError> {
        if arg.len() > 127 {
            return Err(StreamError::InvalidId);
        }
        match arg {
            b"-" | b"+" if strict => return Err(StreamError::InvalidId),
            b"-" => return Ok(Spelled::Full(StreamId::MIN)),
            b"+" => return Ok(Spelled::Full(StreamId::MAX)),
            _ => {}
        }
        let (ms, seq) = match arg.iter().position(|&b| b == b'-') {
            Some(dash) => (&arg[..dash], Some(&arg[dash + 1..])),
            None => (arg, None),
        };
        let ms = parse_u64(ms).ok_or(StreamError::InvalidId)?;
        Ok(match seq {
            None => Spelled::Full(StreamId::new(ms, missing_seq)),
            Some(b"*") if auto_seq => Spelled::AutoSeq(ms),
            Some(seq) => Spelled::Full(StreamId::new(
                ms,
                parse_u64(seq).ok_or(StreamError::InvalidId)?,
            )),
        })
    }
}

/// A decimal `u64` as Redis's `string2ull` reads it: digits only.
fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_read_as_redis_reads_them() {
        let p = |s: &str| StreamId::parse(s.as_bytes(), 7, false);
        assert_eq!(p("-"), Ok(StreamId::MIN));
        assert_eq!(p("+"), Ok(StreamId::MAX));
        assert_eq!(p("5"), Ok(StreamId::new(5, 7)));
        assert_eq!(p("5-3"), Ok(StreamId::new(5, 3)));
        assert_eq!(p("007-1"), Ok(StreamId::new(7, 1)));
        for bad in ["", "-1", "1-", "a", "1-2-3", "1-*", "18446744073709551616"] {
            assert_eq!(p(bad), Err(StreamError::InvalidId), "{bad}");
        }
        assert_eq!(StreamId::parse(b"+", 0, true), Err(StreamError::InvalidId));
        assert_eq!(
            Spelled::parse(b"9-*", 0, true, true),
            Ok(Spelled::AutoSeq(9))
        );
    }

    #[test]
    fn exclusive_bounds_move_inward() {
        let b = |s: &str, start| StreamId::parse_bound(s.as_bytes(), 0, start);
        assert_eq!(b("(1-5", true), Ok(Some(StreamId::new(1, 6))));
        assert_eq!(b("(1-0", false), Ok(Some(StreamId::new(0, u64::MAX))));
        assert_eq!(b("(0-0", false), Ok(None));
        assert_eq!(b("(+", true), Err(StreamError::InvalidId));
        assert_eq!(b("(", true), Err(StreamError::InvalidId));
        assert_eq!(StreamId::MAX.next(), None);
        assert_eq!(StreamId::new(3, u64::MAX).next(), Some(StreamId::new(4, 0)));
    }
}
