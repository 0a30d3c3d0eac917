//! Score and lexicographic range bounds: `(1.5`, `-inf`, `+inf`; `[a`,
//! `(a`, `-`, `+`.

use std::ops::Range;

use super::view::Ordered;
use crate::number::parse_score_bound;
use crate::reply::{CollectionError, RespError};

/// A score range.
#[derive(Debug, Clone, Copy)]
pub struct ScoreRange {
    min: f64,
    min_open: bool,
    max: f64,
    max_open: bool,
}

fn score_bound(arg: &[u8]) -> Result<(f64, bool), RespError> {
    let (open, text) = match arg {
        [b'(', rest @ ..] => (true, rest),
        _ => (false, arg),
    };
    // Redis reads bounds with a bare `strtod`, laxer than scores.
    let value = parse_score_bound(text).ok_or(CollectionError::MinMaxNotFloat)?;
    Ok((value, open))
}

impl ScoreRange {
    /// Parses `min max`.
    pub fn parse(min: &[u8], max: &[u8]) -> Result<Self, RespError> {
        let (min, min_open) = score_bound(min)?;
        let (max, max_open) = score_bound(max)?;
        Ok(Self {
            min,
            min_open,
            max,
            max_open,
        })
    }

    /// Whether `score` is inside.
    pub fn contains(&self, score: f64) -> bool {
        let above = if self.min_open {
            score > self.min
        } else {
            score >= self.min
        };
        let below = if self.max_open {
            score < self.max
        } else {
            score <= self.max
        };
        above && below
    }

    /// The ranks inside, in `z`.
    pub fn span(&self, z: &mut dyn Ordered) -> Result<Range<u64>, RespError> {
        let (min, max) = (self.min, self.max);
        let start = match self.min_open {
            true => z.count_before(&|s, _| s <= min)?,
            false => z.count_before(&|s, _| s < min)?,
        };
        let end = match self.max_open {
            true => z.count_before(&|s, _| s < max)?,
            false => z.count_before(&|s, _| s <= max)?,
        };
        Ok(start..end.max(start))
    }
}

/// One end of a lexicographic range.
#[derive(Debug, Clone, Copy)]
enum Lex<'a> {
    NegInf,
    PosInf,
    Incl(&'a [u8]),
    Excl(&'a [u8]),
}

fn lex_bound(arg: &[u8]) -> Result<Lex<'_>, RespError> {
    match arg {
        b"-" => Ok(Lex::NegInf),
        b"+" => Ok(Lex::PosInf),
        [b'[', rest @ ..] => Ok(Lex::Incl(rest)),
        [b'(', rest @ ..] => Ok(Lex::Excl(rest)),
        _ => Err(CollectionError::BadLexRange.into()),
    }
}

/// A lexicographic range (meaningful when all scores are equal).
#[derive(Debug, Clone, Copy)]
pub struct LexRange<'a> {
    min: Lex<'a>,
    max: Lex<'a>,
}

impl<'a> LexRange<'a> {
    /// Parses `min max`.
    pub fn parse(min: &'a [u8], max: &'a [u8]) -> Result<Self, RespError> {
        Ok(Self {
            min: lex_bound(min)?,
            max: lex_bound(max)?,
        })
    }

    /// Whether `member` is inside.
    pub fn contains(&self, member: &[u8]) -> bool {
        above(self.min, member) && below(self.max, member)
    }

    /// The ranks inside, in `z` (a contiguous run when the scores are
    /// equal, as Redis assumes).
    pub fn span(&self, z: &mut dyn Ordered) -> Result<Range<u64>, RespError> {
        let (min, max) = (self.min, self.max);
        let start = z.count_before(&|_, m| !above(min, m))?;
        let end = z.count_before(&|_, m| below(max, m))?;
        Ok(start..end.max(start))
    }
}

/// Whether `member` is at or past the lower bound `min`.
fn above(min: Lex<'_>, member: &[u8]) -> bool {
    match min {
        Lex::NegInf => true,
        Lex::PosInf => false,
        Lex::Incl(m) => member >= m,
        Lex::Excl(m) => member > m,
    }
}

/// Whether `member` is within the upper bound `max`.
fn below(max: Lex<'_>, member: &[u8]) -> bool {
    match max {
        Lex::NegInf => false,
        Lex::PosInf => true,
        Lex::Incl(m) => member <= m,
        Lex::Excl(m) => member < m,
    }
}

/// Redis's inclusive `start..=stop` ranks (negative from the end) over a
/// set of `len`, as a range; empty when nothing is inside.
pub fn rank_span(start: i64, stop: i64, len: u64) -> Range<u64> {
    let len = i128::from(len);
    let from_end = |i: i64| match i128::from(i) {
        i if i < 0 => len + i,
        i => i,
    };
    let (start, stop) = (from_end(start).max(0), from_end(stop).min(len - 1));
    if start > stop || start >= len {
        return 0..0;
    }
    start as u64..stop as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::rank_span;

    #[test]
    fn rank_spans_clamp_like_redis() {
        assert_eq!(rank_span(0, -1, 5), 0..5);
        assert_eq!(rank_span(-100, 1, 5), 0..2);
        assert_eq!(rank_span(3, 1, 5), 0..0);
        assert_eq!(rank_span(5, 9, 5), 0..0);
        assert_eq!(rank_span(i64::MIN, i64::MAX, 5), 0..5);
        assert_eq!(rank_span(0, -1, 0), 0..0);
        assert_eq!(rank_span(-1, -1, 3), 2..3);
        assert_eq!(rank_span(-7, -6, 2), 0..0);
    }
}
