//! List positions: an end of a list ([`End`]) and Redis's index and range
//! rules over a list's length ([`index`], [`range`]).

use crate::reply::RespError;

/// An end of a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The head (LEFT).
    Left,
    /// The tail (RIGHT).
    Right,
}

impl End {
    /// Parses `LEFT` or `RIGHT`.
    pub fn parse(arg: &[u8]) -> Result<Self, RespError> {
        if arg.eq_ignore_ascii_case(b"left") {
            Ok(Self::Left)
        } else if arg.eq_ignore_ascii_case(b"right") {
            Ok(Self::Right)
        } else {
            Err(RespError::Syntax)
        }
    }
}

/// Redis's index into a list of `len`: negative counts from the end.
pub fn index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let at = if i < 0 { len + i } else { i };
    (0..len).contains(&at).then_some(at as usize)
}

/// Redis's inclusive `start..=stop` range over a list of `len`, clamped;
/// `None` when empty.
pub fn range(start: i64, stop: i64, len: usize) -> Option<(usize, usize)> {
    let len = len as i64;
    let start = if start < 0 {
        (len + start).max(0)
    } else {
        start
    };
    let stop = if stop < 0 {
        len + stop
    } else {
        stop.min(len - 1)
    };
    (start <= stop && start < len).then_some((start as usize, stop as usize))
}
