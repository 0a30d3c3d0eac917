//! Score and lexicographic range bounds: `(1.5`, `-inf`, `+inf`; `[a`,
//! `(a`, `-`, `+`.

use super::Entry;
use crate::number::parse_f64;
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
    let value = parse_f64(text).ok_or(CollectionError::MinMaxNotFloat)?;
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

    /// The index range of `entries` (in order) inside.
    pub fn slice(&self, entries: &[Entry<'_>]) -> std::ops::Range<usize> {
        let start = entries.partition_point(|e| {
            if self.min_open {
                e.0 <= self.min
            } else {
                e.0 < self.min
            }
        });
        let end = entries.partition_point(|e| {
            if self.max_open {
                e.0 < self.max
            } else {
                e.0 <= self.max
            }
        });
        start..end.max(start)
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
        let above = match self.min {
            Lex::NegInf => true,
            Lex::PosInf => false,
            Lex::Incl(m) => member >= m,
            Lex::Excl(m) => member > m,
        };
        let below = match self.max {
            Lex::NegInf => false,
            Lex::PosInf => true,
            Lex::Incl(m) => member <= m,
            Lex::Excl(m) => member < m,
        };
        above && below
    }

    /// The index range of `entries` inside (assuming equal scores, as
    /// Redis does: a contiguous run).
    pub fn slice(&self, entries: &[Entry<'_>]) -> std::ops::Range<usize> {
        let start = entries.iter().position(|e| self.contains(e.1));
        match start {
            None => 0..0,
            Some(s) => {
                let len = entries[s..]
                    .iter()
                    .take_while(|e| self.contains(e.1))
                    .count();
                s..s + len
            }
        }
    }
}
