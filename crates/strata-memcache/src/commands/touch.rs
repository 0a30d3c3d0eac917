//! `touch <key> <exptime> [noreply]`: sets a new expiry without fetching
//! the item (its CAS is kept). `TOUCHED` or `NOT_FOUND`.

use bytes::BytesMut;
use strata_kv::{Mutation, Store};

use crate::codec::Tokens;
use crate::expiry;
use crate::numbers::strtol32;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};

/// A parsed `touch`.
#[derive(Debug)]
pub struct Touch<'a> {
    key: &'a [u8],
    exptime: i32,
    noreply: bool,
}

impl<'a> Touch<'a> {
    /// Parses the line (three or four words, checked by the dispatcher).
    pub fn parse(tokens: &Tokens<'a>) -> Result<Self, ParseError> {
        let noreply = noreply_maybe(tokens);
        let key = tokens.get(1);
        if !crate::syntax::valid_key(key) {
            return Err(ParseError::quiet(Error::BadFormat, noreply));
        }
        let exptime =
            strtol32(tokens.get(2)).ok_or(ParseError::quiet(Error::InvalidExptime, noreply))?;
        Ok(Self {
            key,
            exptime,
            noreply,
        })
    }

    /// Sets the expiry.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        let stats = &shared.stats;
        let expires_at = expiry::expires_at(self.exptime, shared.keyspace.now_ms());
        let found = shared.keyspace.store().update(self.key, |old| match old {
            Some(_) => (Mutation::SetExpiry(expires_at), true),
            None => (Mutation::Keep, false),
        });
        if strata_kv::fetch::deferred() {
            // Discarded; the request runs again once its value is read.
            return;
        }
        stats.cmd_touch.incr();
        match found {
            Ok(true) => {
                stats.touch_hits.incr();
                reply::status(out, b"TOUCHED\r\n", self.noreply);
            }
            Ok(false) => {
                stats.touch_misses.incr();
                reply::status(out, b"NOT_FOUND\r\n", self.noreply);
            }
            Err(err) => reply::error(out, err.into(), self.noreply),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Touch<'_>, ParseError> {
        Touch::parse(&Tokens::split(line.as_bytes()))
    }

    #[test]
    fn parses() {
        let t = parse("touch k 10").unwrap();
        assert_eq!((t.key, t.exptime, t.noreply), (&b"k"[..], 10, false));
        assert!(parse("touch k 10 noreply").unwrap().noreply);
        assert!(!parse("touch k 10 foo").unwrap().noreply);
    }

    #[test]
    fn refusals() {
        assert_eq!(
            parse("touch k abc").unwrap_err(),
            ParseError::quiet(Error::InvalidExptime, false)
        );
        assert_eq!(
            parse("touch k abc noreply").unwrap_err(),
            ParseError::quiet(Error::InvalidExptime, true)
        );
        let key = "k".repeat(251);
        assert_eq!(
            parse(&format!("touch {key} 1")).unwrap_err().error,
            Error::BadFormat
        );
    }
}
