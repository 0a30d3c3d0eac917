//! `ms <key> <datalen> <flags>*` plus a data block: meta set.
//!
//! Replies `HD` (stored; hidden by `q`), `NS` (not stored: mode condition
//! not met), `EX` (CAS mismatch), `NF` (CAS given, no item), followed by the
//! requested `O`, `k`, `c` flags in request order. Flags: `F` client flags,
//! `T` TTL, `C` compare CAS, `I` with `C` lower than the item's CAS stores
//! the value marked stale instead of refusing, `M` mode (`S` set, `E` add,
//! `R` replace, `A` append, `P` prepend), `N` creates the item on an
//! append/prepend miss (a newer memcached feature). Errors found after the
//! data length was read make the data block be discarded, as memcached
//! does; a malformed length or key does not.

use std::borrow::Cow;

use bytes::{BufMut, BytesMut};
use strata_kv::{Mutation, NewItem, Store};

use super::meta_flags::{MetaFlags, MetaKind};
use crate::codec::Tokens;
use crate::expiry;
use crate::marks::Mark;
use crate::numbers::strtol32;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::ParseError;

/// A parsed `ms`.
#[derive(Debug)]
pub struct MetaSet<'a> {
    /// The flags and decoded key.
    pub flags: MetaFlags<'a>,
    /// Length of the data block.
    pub len: usize,
    mode: u8,
}

/// How a supplied CAS compares with the item's (memcached's `cas_result`).
enum Cas {
    None,
    Match,
    Stale,
    BadValue,
}

enum Outcome {
    Stored { stale: Option<Mark> },
    NotStored,
    Exists,
    NotFound,
}

impl<'a> MetaSet<'a> {
    /// Parses the line.
    pub fn parse(tokens: &Tokens<'a>) -> Result<Self, ParseError> {
        if !crate::syntax::valid_key(tokens.get(1)) || tokens.len() == 2 {
            return Err(Error::BadFormat.into());
        }
        if tokens.ntokens() > 20 {
            return Err(Error::TooManyFlags.into());
        }
        let len = match strtol32(tokens.get(2)) {
            Some(len) if (0..=i32::MAX - 2).contains(&len) => len as usize,
            _ => return Err(Error::BadFormat.into()),
        };
        let swallowing = |error| ParseError {
            error,
            noreply: false,
            swallow: len + 2,
        };
        let flags = MetaFlags::parse(tokens, 3, MetaKind::Set).map_err(swallowing)?;
        let mode = flags.mode.unwrap_or(b'S');
        if !matches!(mode, b'S' | b'E' | b'R' | b'A' | b'P') {
            return Err(swallowing(Error::SetMode));
        }
        Ok(Self { flags, len, mode })
    }

    /// Stores `data` per the mode and replies.
    pub fn execute(self, data: &[u8], shared: &Shared, out: &mut BytesMut) {
        let flags = &self.flags;
        let key: &[u8] = &flags.key;
        let stats = &shared.stats;
        let now = shared.keyspace.now_ms();
        let ttl = flags.ttl.and_then(|t| expiry::expires_at(t, now));
        let client_flags = flags.client_flags.unwrap_or(0);
        let mode = self.mode;
        let marks = &shared.marks;
        let mut store = shared.keyspace.store();
        // memcached turns set/replace with a CAS into its "cas" command; add
        // ignores the CAS; append/prepend only check a non-zero one.
        let cas_mode = flags.compare_cas.is_some() && matches!(mode, b'S' | b'R');
        let result = store.update_cas(key, |old| {
            let Some(item) = old else {
                return match mode {
                    _ if cas_mode => (Mutation::Keep, Outcome::NotFound),
                    b'S' | b'E' => {
                        let new = NewItem {
                            value: Cow::Borrowed(data),
                            flags: client_flags,
                            expires_at: ttl,
                        };
                        (Mutation::Put(new), Outcome::Stored { stale: None })
                    }
                    // Append/prepend with N create the item (newer memcached).
                    b'A' | b'P' if flags.vivify.is_some() => {
                        let expires_at = flags.vivify.and_then(|n| expiry::expires_at(n, now));
                        let new = NewItem {
                            value: Cow::Borrowed(data),
                            flags: client_flags,
                            expires_at,
                        };
                        (Mutation::Put(new), Outcome::Stored { stale: None })
                    }
                    _ => (Mutation::Keep, Outcome::NotStored),
                };
            };
            let cas = match flags.compare_cas {
                None | Some(0) => Cas::None,
                Some(c) if c == item.cas => Cas::Match,
                Some(c) if cas_mode && flags.invalidate && c < item.cas => Cas::Stale,
                Some(_) => Cas::BadValue,
            };
            let replace = |expires_at, stale| {
                let new = NewItem {
                    value: Cow::Borrowed(data),
                    flags: client_flags,
                    expires_at,
                };
                (Mutation::Put(new), Outcome::Stored { stale })
            };
            match mode {
                b'E' => (Mutation::Keep, Outcome::NotStored),
                _ if cas_mode => match cas {
                    Cas::Match => replace(ttl, None),
                    // A late writer with an older CAS: stored, but stale,
                    // keeping the TTL and any recache token already sent.
                    Cas::Stale => {
                        let prior = marks.get(key, item.cas);
                        replace(
                            item.expires_at,
                            Some(Mark {
                                stale: true,
                                token_sent: prior.token_sent,
                            }),
                        )
                    }
                    Cas::None | Cas::BadValue => (Mutation::Keep, Outcome::Exists),
                },
                b'A' | b'P' => {
                    if !matches!(cas, Cas::None | Cas::Match) {
                        return (Mutation::Keep, Outcome::Exists);
                    }
                    let mut value = Vec::with_capacity(item.value.len() + data.len());
                    let (first, second) = if mode == b'A' {
                        (item.value, data)
                    } else {
                        (data, item.value)
                    };
                    value.extend_from_slice(first);
                    value.extend_from_slice(second);
                    let joined = NewItem {
                        value: Cow::Owned(value),
                        flags: item.flags,
                        expires_at: item.expires_at,
                    };
                    (Mutation::Put(joined), Outcome::Stored { stale: None })
                }
                _ => replace(ttl, None),
            }
        });
        if strata_kv::fetch::deferred() {
            // Nothing changed and the reply is discarded: the request runs
            // again once its value is read (never the delete below), and
            // counts then.
            return;
        }
        stats.cmd_set.incr();
        shared.prefixes.record_set(key);
        let (result, cas_after) = match result {
            Ok((outcome, cas)) => (Ok(outcome), cas),
            Err(err) => (Err(err), None),
        };
        let (code, cas): (&[u8], u64) = match result {
            Ok(Outcome::Stored { stale }) => {
                let cas = cas_after.unwrap_or(0);
                if let Some(mark) = stale {
                    marks.set(key, cas, mark);
                }
                if flags.quiet {
                    return;
                }
                (b"HD", cas)
            }
            Ok(Outcome::NotStored) => (b"NS", 0),
            Ok(Outcome::Exists) => (b"EX", 0),
            Ok(Outcome::NotFound) => (b"NF", 0),
            Err(err) => {
                let err = Error::from(err);
                match err {
                    Error::TooLarge => stats.store_too_large.incr(),
                    Error::NotDurable | Error::LogStalled => {}
                    _ => stats.store_no_memory.incr(),
                }
                // Best effort, as memcached: a refused delete changes nothing.
                let _ = store.delete(key);
                reply::error(out, err, false);
                return;
            }
        };
        let mut line = code.to_vec();
        for word in flags.words() {
            if word[0] == b'c' {
                line.extend_from_slice(b" c");
                line.extend_from_slice(itoa::Buffer::new().format(cas).as_bytes());
            } else {
                flags.put_opaque_and_key(word, &mut line);
            }
        }
        line.extend_from_slice(b"\r\n");
        out.put_slice(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<MetaSet<'_>, ParseError> {
        MetaSet::parse(&Tokens::split(line.as_bytes()))
    }

    #[test]
    fn parses_length_and_mode() {
        let ms = parse("ms k 3 MA T10 F5 c").unwrap();
        assert_eq!((ms.len, ms.mode), (3, b'A'));
        assert_eq!(parse("ms k 0").unwrap().mode, b'S');
    }

    #[test]
    fn malformed_lines_do_not_swallow() {
        let plain = |e| ParseError {
            error: e,
            noreply: false,
            swallow: 0,
        };
        assert_eq!(parse("ms k").unwrap_err(), plain(Error::BadFormat));
        assert_eq!(parse("ms k abc").unwrap_err(), plain(Error::BadFormat));
        assert_eq!(parse("ms k -1").unwrap_err(), plain(Error::BadFormat));
        assert_eq!(
            parse(&format!("ms {} 1", "k".repeat(251))).unwrap_err(),
            plain(Error::BadFormat)
        );
        let many = "ms k 1 P L k s t c f v h l u q O1 T1 N1 R1 F1";
        assert_eq!(parse(many).unwrap_err(), plain(Error::TooManyFlags));
    }

    #[test]
    fn flag_errors_swallow_the_block() {
        let swallowed = |e| ParseError {
            error: e,
            noreply: false,
            swallow: 5,
        };
        assert_eq!(
            parse("ms k 3 Z").unwrap_err(),
            swallowed(Error::InvalidFlag)
        );
        assert_eq!(
            parse("ms k 3 S3").unwrap_err(),
            swallowed(Error::InvalidFlag)
        );
        assert_eq!(parse("ms k 3 MX").unwrap_err(), swallowed(Error::SetMode));
        assert_eq!(parse("ms k 3 Ma").unwrap_err(), swallowed(Error::SetMode));
        assert_eq!(
            parse("ms k 3 Mxx").unwrap_err(),
            swallowed(Error::ModeLength)
        );
        assert_eq!(
            parse("ms YWJ 3 b").unwrap_err(),
            swallowed(Error::KeyDecode)
        );
        assert_eq!(
            parse("ms k 3 x").unwrap_err(),
            swallowed(Error::InvalidFlag)
        );
    }
}
