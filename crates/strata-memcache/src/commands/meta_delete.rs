//! `md <key> <flags>*`: meta delete.
//!
//! Replies `HD` (done; hidden by `q`), `NF` (no item) or `EX` (the `C` CAS
//! did not match), with the requested `O` and `k` flags. `I` does not
//! remove the item but marks it stale with a new CAS (readers then get `X`
//! and the first one `W`), `T` then also sets its TTL; `x` (a newer
//! memcached flag) empties the value and resets the client flags (to `F`,
//! default 0) but keeps the item.

use std::borrow::Cow;

use bytes::{BufMut, BytesMut};
use strata_kv::{Mutation, NewItem, Store};

use super::meta_flags::{MetaFlags, MetaKind};
use crate::codec::Tokens;
use crate::expiry;
use crate::marks::Mark;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::ParseError;

/// A parsed `md`.
#[derive(Debug)]
pub struct MetaDelete<'a> {
    flags: MetaFlags<'a>,
}

enum Outcome {
    Deleted,
    Invalidated,
    NotFound,
    Exists,
}

impl<'a> MetaDelete<'a> {
    /// Parses the line.
    pub fn parse(tokens: &Tokens<'a>) -> Result<Self, ParseError> {
        Ok(Self {
            flags: MetaFlags::parse(tokens, 2, MetaKind::Delete)?,
        })
    }

    /// Deletes, empties or invalidates the item and replies.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        let flags = &self.flags;
        let key: &[u8] = &flags.key;
        let now = shared.keyspace.now_ms();
        let mut store = shared.keyspace.store();
        let (result, cas_after) = match store.update_cas(key, |old| {
            let Some(item) = old else {
                return (Mutation::Keep, Outcome::NotFound);
            };
            if flags.compare_cas.is_some_and(|cas| cas != item.cas) {
                return (Mutation::Keep, Outcome::Exists);
            }
            if flags.invalidate {
                let expires_at = match flags.ttl {
                    Some(t) => expiry::expires_at(t, now),
                    None => item.expires_at,
                };
                let same = NewItem {
                    value: Cow::Owned(item.value.to_vec()),
                    flags: item.flags,
                    expires_at,
                };
                (Mutation::Put(same), Outcome::Invalidated)
            } else if flags.remove_value {
                let empty = NewItem {
                    value: Cow::Borrowed(&[]),
                    flags: flags.client_flags.unwrap_or(0),
                    expires_at: item.expires_at,
                };
                (Mutation::Put(empty), Outcome::Deleted)
            } else {
                (Mutation::Delete, Outcome::Deleted)
            }
        }) {
            Ok((outcome, cas)) => (Ok(outcome), cas),
            Err(err) => (Err(err), None),
        };
        if !strata_kv::fetch::deferred() {
            shared.prefixes.record_delete(key);
        }
        let code: &[u8] = match result {
            Ok(Outcome::Deleted | Outcome::Invalidated) => {
                shared.stats.delete_hits.incr();
                if let Ok(Outcome::Invalidated) = result {
                    if let Some(cas) = cas_after {
                        shared.marks.set(
                            key,
                            cas,
                            Mark {
                                stale: true,
                                token_sent: false,
                            },
                        );
                    }
                }
                if flags.quiet {
                    return;
                }
                b"HD"
            }
            Ok(Outcome::NotFound) => {
                shared.stats.delete_misses.incr();
                b"NF"
            }
            Ok(Outcome::Exists) => b"EX",
            Err(err) => {
                reply::error(out, Error::from(err), false);
                return;
            }
        };
        let mut line = code.to_vec();
        for word in flags.words() {
            flags.put_opaque_and_key(word, &mut line);
        }
        line.extend_from_slice(b"\r\n");
        out.put_slice(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_use_one_message() {
        let err = |l: &str| {
            MetaDelete::parse(&Tokens::split(l.as_bytes()))
                .unwrap_err()
                .error
        };
        assert_eq!(err("md k Z"), Error::InvalidOrDuplicateFlag);
        assert_eq!(err("md a b"), Error::InvalidOrDuplicateFlag);
        assert_eq!(err("md k q q"), Error::InvalidOrDuplicateFlag);
        assert_eq!(
            err(&format!("md k O{}", "o".repeat(32))),
            Error::OpaqueTooLong
        );
        assert_eq!(err(&format!("md {}", "k".repeat(251))), Error::BadFormat);
        assert!(MetaDelete::parse(&Tokens::split(b"md k x I T30 C5 q k O1")).is_ok());
    }
}
