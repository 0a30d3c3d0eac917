//! `incr <key> <delta> [noreply]` and `decr <key> <delta> [noreply]`.
//!
//! The value is a decimal unsigned 64-bit number; `incr` wraps at 2^64,
//! `decr` stops at 0. The reply is the new number, `NOT_FOUND`, or
//! `CLIENT_ERROR cannot increment or decrement non-numeric value`. Like
//! memcached, a result shorter than the stored value is written in place,
//! padded with trailing spaces to the old length; a longer one replaces it.
//! Flags and expiry are kept; the CAS changes. [`apply_delta`] is shared
//! with `ma`.

use std::borrow::Cow;

use bytes::{BufMut, BytesMut};
use strata_kv::{ItemRef, KvError, Mutation, NewItem, Store};

use crate::codec::Tokens;
use crate::numbers::{item_number, strtoull};
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};

/// A parsed `incr`/`decr`.
#[derive(Debug)]
pub struct Arithmetic<'a> {
    key: &'a [u8],
    delta: u64,
    decrement: bool,
    noreply: bool,
}

/// What [`apply_delta`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeltaOutcome {
    /// The new number, the item's expiry before the change, and the CAS the
    /// change gave it.
    Done(u64, Option<u64>, u64),
    /// No item.
    NotFound,
    /// The item is not a number.
    NonNumeric,
    /// The CAS given did not match (`ma C`).
    Exists,
}

/// The new value of `item` after adding (or subtracting) `delta`: the
/// number, and the bytes to store, padded with spaces to the old length
/// when shorter.
pub fn next_value(value: &[u8], delta: u64, decrement: bool) -> Option<(u64, Vec<u8>)> {
    let current = item_number(value)?;
    let n = if decrement {
        current.saturating_sub(delta)
    } else {
        current.wrapping_add(delta)
    };
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(n).as_bytes();
    let mut bytes = Vec::with_capacity(value.len().max(digits.len()));
    bytes.extend_from_slice(digits);
    if digits.len() <= value.len() {
        bytes.resize(value.len(), b' ');
    }
    Some((n, bytes))
}

/// Applies `delta` to `key` atomically. `cas` is an expected CAS (0 or
/// `None`: no check, as in memcached); `expires_at` replaces the expiry when
/// given (`ma T`).
pub fn apply_delta(
    store: &mut impl Store,
    key: &[u8],
    delta: u64,
    decrement: bool,
    cas: Option<u64>,
    expires_at: Option<Option<u64>>,
) -> Result<DeltaOutcome, KvError> {
    let (outcome, cas_after) = store.update_cas(key, |old: Option<ItemRef<'_>>| {
        let Some(item) = old else {
            return (Mutation::Keep, DeltaOutcome::NotFound);
        };
        // memcached's order: an empty value, then the CAS, then the number.
        if item.value.is_empty() {
            return (Mutation::Keep, DeltaOutcome::NonNumeric);
        }
        if cas.is_some_and(|c| c != 0 && c != item.cas) {
            return (Mutation::Keep, DeltaOutcome::Exists);
        }
        match next_value(item.value, delta, decrement) {
            None => (Mutation::Keep, DeltaOutcome::NonNumeric),
            Some((n, bytes)) => {
                let new = NewItem {
                    value: Cow::Owned(bytes),
                    flags: item.flags,
                    expires_at: expires_at.unwrap_or(item.expires_at),
                };
                (
                    Mutation::Put(new),
                    DeltaOutcome::Done(n, item.expires_at, 0),
                )
            }
        }
    })?;
    Ok(match outcome {
        DeltaOutcome::Done(n, before, _) => DeltaOutcome::Done(n, before, cas_after.unwrap_or(0)),
        other => other,
    })
}

impl<'a> Arithmetic<'a> {
    /// Parses the line (three or four words, checked by the dispatcher).
    pub fn parse(tokens: &Tokens<'a>) -> Result<Self, ParseError> {
        let noreply = noreply_maybe(tokens);
        let key = tokens.get(1);
        if !crate::syntax::valid_key(key) {
            return Err(ParseError::quiet(Error::BadFormat, noreply));
        }
        let delta =
            strtoull(tokens.get(2)).ok_or(ParseError::quiet(Error::InvalidDelta, noreply))?;
        Ok(Self {
            key,
            delta,
            decrement: tokens.get(0) == b"decr",
            noreply,
        })
    }

    /// The command's name.
    pub fn name(&self) -> &'static str {
        if self.decrement {
            "decr"
        } else {
            "incr"
        }
    }

    /// Applies the delta and replies with the new number.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        let stats = &shared.stats;
        let mut store = shared.keyspace.store();
        let outcome = apply_delta(&mut store, self.key, self.delta, self.decrement, None, None);
        let (hits, misses) = if self.decrement {
            (&stats.decr_hits, &stats.decr_misses)
        } else {
            (&stats.incr_hits, &stats.incr_misses)
        };
        match outcome {
            Ok(DeltaOutcome::Done(n, _, _)) => {
                hits.incr();
                if !self.noreply {
                    reply::put_u64(out, n);
                    out.put_slice(b"\r\n");
                }
            }
            Ok(DeltaOutcome::NotFound | DeltaOutcome::Exists) => {
                misses.incr();
                reply::status(out, b"NOT_FOUND\r\n", self.noreply);
            }
            Ok(DeltaOutcome::NonNumeric) => reply::error(out, Error::NonNumeric, self.noreply),
            Err(err) => reply::error(out, err.into(), self.noreply),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_and_floors() {
        assert_eq!(next_value(b"18446744073709551615", 2, false).unwrap().0, 1);
        assert_eq!(next_value(b"5", 100, true).unwrap().0, 0);
        assert_eq!(next_value(b"5", u64::MAX, false).unwrap().0, 4);
    }

    #[test]
    fn keeps_length_semantics() {
        assert_eq!(next_value(b"10", 5, false).unwrap(), (15, b"15".to_vec()));
        assert_eq!(next_value(b"15", 100, true).unwrap(), (0, b"0 ".to_vec()));
        assert_eq!(next_value(b"100", 95, true).unwrap(), (5, b"5  ".to_vec()));
        assert_eq!(next_value(b"9", 1, false).unwrap(), (10, b"10".to_vec()));
        assert_eq!(next_value(b" 12", 2, false).unwrap(), (14, b"14 ".to_vec()));
        assert_eq!(
            next_value(b"18446744073709551615", 1, false).unwrap().1,
            b"0                   "
        );
    }

    #[test]
    fn non_numeric_values() {
        for v in [&b"ab"[..], b"12a", b"-12", b"", b"18446744073709551616"] {
            assert_eq!(next_value(v, 1, false), None, "{v:?}");
        }
    }

    #[test]
    fn parse_errors() {
        let parse =
            |l: &str| Arithmetic::parse(&Tokens::split(l.as_bytes())).map(|a| (a.delta, a.noreply));
        assert_eq!(parse("incr k 5"), Ok((5, false)));
        assert_eq!(parse("decr k 5 noreply"), Ok((5, true)));
        assert_eq!(
            parse("incr k abc").unwrap_err(),
            ParseError::quiet(Error::InvalidDelta, false)
        );
        assert_eq!(parse("incr k -1").unwrap_err().error, Error::InvalidDelta);
        assert_eq!(
            parse("incr k 18446744073709551616").unwrap_err().error,
            Error::InvalidDelta
        );
        assert_eq!(
            parse("incr k abc noreply").unwrap_err(),
            ParseError::quiet(Error::InvalidDelta, true)
        );
        let key = "k".repeat(251);
        assert_eq!(
            parse(&format!("incr {key} 1")).unwrap_err().error,
            Error::BadFormat
        );
    }
}
