//! `ma <key> <flags>*`: meta arithmetic, `incr`/`decr` with options.
//!
//! Replies `HD` or, with `v`, `VA <len>` and the new number (both hidden
//! by `q`), `NF` (no item), `NS` (auto-creation failed), `EX` (the `C` CAS
//! did not match), plus the requested `t`, `c`, `O`, `k` flags in request
//! order. `D` is the delta (default 1), `M` the mode (`I`/`+` increment,
//! `D`/`-` decrement), `N` creates a missing item with `J` (default 0) as
//! its value and `N`'s TTL, `T` sets a new TTL on success. The stored value
//! keeps `incr`'s length rule (see [`super::incr`]).

use std::borrow::Cow;

use bytes::{BufMut, BytesMut};
use strata_kv::{Mutation, NewItem, Store};

use super::incr::{apply_delta, DeltaOutcome};
use super::meta_flags::{MetaFlags, MetaKind};
use crate::codec::Tokens;
use crate::expiry;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::ParseError;

/// A parsed `ma`.
#[derive(Debug)]
pub struct MetaArithmetic<'a> {
    flags: MetaFlags<'a>,
    decrement: bool,
}

impl<'a> MetaArithmetic<'a> {
    /// Parses the line.
    pub fn parse(tokens: &Tokens<'a>) -> Result<Self, ParseError> {
        let flags = MetaFlags::parse(tokens, 2, MetaKind::Arithmetic)?;
        let decrement = match flags.mode {
            None | Some(b'I' | b'+') => false,
            Some(b'D' | b'-') => true,
            Some(_) => return Err(Error::ArithmeticMode.into()),
        };
        Ok(Self { flags, decrement })
    }

    /// Applies the delta (or creates the item) and replies.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        let flags = &self.flags;
        let key: &[u8] = &flags.key;
        let stats = &shared.stats;
        let (hits, misses) = if self.decrement {
            (&stats.decr_hits, &stats.decr_misses)
        } else {
            (&stats.incr_hits, &stats.incr_misses)
        };
        let now = shared.keyspace.now_ms();
        let mut store = shared.keyspace.store();
        let delta = flags.delta.unwrap_or(1);
        let new_ttl = flags.ttl.map(|t| expiry::expires_at(t, now));
        let vivify_ttl = flags.vivify.map(|n| expiry::expires_at(n, now));
        let outcome = apply_delta(
            &mut store,
            key,
            delta,
            self.decrement,
            flags.compare_cas,
            new_ttl,
        );
        // Where the flag walk starts: the old expiry after a change, none
        // for a just-created item (memcached creates it without one and
        // applies `N`/`T` at their positions).
        type Found = (&'static [u8], Option<u64>, Option<u64>, bool, u64);
        let (code, number, start, created, cas): Found = match outcome {
            Ok(DeltaOutcome::Done(n, before, cas)) => {
                hits.incr();
                if flags.quiet {
                    return;
                }
                (b"HD", Some(n), before, false, cas)
            }
            Ok(DeltaOutcome::NotFound) => {
                misses.incr();
                match flags.vivify {
                    None => (b"NF", None, None, false, 0),
                    Some(_) => {
                        let initial = flags.initial.unwrap_or(0);
                        let digits = itoa::Buffer::new().format(initial).as_bytes().to_vec();
                        let walk = Walk {
                            ttl: new_ttl,
                            vivify: vivify_ttl,
                            now,
                        };
                        let expires_at = walk.run(flags, None, true, &mut Vec::new(), 0);
                        let item = NewItem {
                            value: Cow::Owned(digits),
                            flags: 0,
                            expires_at,
                        };
                        // memcached shows this reply even with `q`.
                        match store.update_cas(key, |old| match old {
                            None => (Mutation::Put(item), true),
                            Some(_) => (Mutation::Keep, false),
                        }) {
                            Ok((true, cas)) => (b"HD", Some(initial), None, true, cas.unwrap_or(0)),
                            _ => (b"NS", None, None, false, 0),
                        }
                    }
                }
            }
            Ok(DeltaOutcome::Exists) => (b"EX", None, None, false, 0),
            Ok(DeltaOutcome::NonNumeric) => {
                reply::error(out, Error::NonNumeric, false);
                return;
            }
            Err(err) => {
                reply::error(out, Error::from(err), false);
                return;
            }
        };
        let mut line = Vec::with_capacity(64);
        let value = number
            .filter(|_| flags.value)
            .map(|n| itoa::Buffer::new().format(n).to_owned());
        match &value {
            Some(v) => {
                line.extend_from_slice(b"VA ");
                line.extend_from_slice(itoa::Buffer::new().format(v.len()).as_bytes());
            }
            None => line.extend_from_slice(code),
        }
        if number.is_some() {
            let walk = Walk {
                ttl: new_ttl,
                vivify: vivify_ttl,
                now,
            };
            walk.run(flags, start, created, &mut line, cas);
        } else {
            for word in flags.words() {
                flags.put_opaque_and_key(word, &mut line);
            }
        }
        line.extend_from_slice(b"\r\n");
        if let Some(v) = value {
            line.extend_from_slice(v.as_bytes());
            line.extend_from_slice(b"\r\n");
        }
        out.put_slice(&line);
    }
}

/// memcached's reply walk over the flags of a successful `ma`: `T` and
/// (for a created item) `N` set the expiry at their position, so `t` reports
/// the expiry as it stands at its own position.
struct Walk {
    ttl: Option<Option<u64>>,
    vivify: Option<Option<u64>>,
    now: u64,
}

impl Walk {
    /// Appends the `t`, `c`, `O`, `k` flags in order to `line`; returns the
    /// expiry after the walk.
    fn run(
        &self,
        flags: &MetaFlags<'_>,
        start: Option<u64>,
        created: bool,
        line: &mut Vec<u8>,
        cas: u64,
    ) -> Option<u64> {
        let mut expires_at = start;
        for word in flags.words() {
            match word[0] {
                b'T' => expires_at = self.ttl.unwrap_or(expires_at),
                b'N' if created => expires_at = self.vivify.unwrap_or(expires_at),
                b't' => {
                    line.extend_from_slice(b" t");
                    let ttl = expiry::ttl_secs(expires_at, self.now);
                    line.extend_from_slice(itoa::Buffer::new().format(ttl).as_bytes());
                }
                b'c' => {
                    line.extend_from_slice(b" c");
                    line.extend_from_slice(itoa::Buffer::new().format(cas).as_bytes());
                }
                _ => flags.put_opaque_and_key(word, line),
            }
        }
        expires_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<MetaArithmetic<'_>, Error> {
        MetaArithmetic::parse(&Tokens::split(line.as_bytes())).map_err(|e| e.error)
    }

    #[test]
    fn modes() {
        assert!(!parse("ma k").unwrap().decrement);
        assert!(!parse("ma k MI").unwrap().decrement);
        assert!(!parse("ma k M+").unwrap().decrement);
        assert!(parse("ma k MD").unwrap().decrement);
        assert!(parse("ma k M-").unwrap().decrement);
        assert_eq!(parse("ma k Mi").unwrap_err(), Error::ArithmeticMode);
        assert_eq!(parse("ma k Mx").unwrap_err(), Error::ArithmeticMode);
    }

    #[test]
    fn flag_errors_use_one_message() {
        for line in [
            "ma k Dabc",
            "ma k D-1",
            "ma k Jx N0",
            "ma k Z",
            "ma k b",
            "ma k Nabc",
        ] {
            assert_eq!(
                parse(line).unwrap_err(),
                Error::InvalidOrDuplicateFlag,
                "{line}"
            );
        }
    }
}
