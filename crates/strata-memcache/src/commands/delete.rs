//! `delete <key> [0] [noreply]`: `DELETED` or `NOT_FOUND`.
//!
//! memcached still accepts the old `delete <key> 0` form but refuses any
//! other hold time with its usage message.

use bytes::BytesMut;
use strata_kv::{Deleted, Store};

use crate::codec::Tokens;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};

/// A parsed `delete`.
#[derive(Debug)]
pub struct Delete<'a> {
    key: &'a [u8],
    noreply: bool,
}

impl<'a> Delete<'a> {
    /// Parses `delete` (two to four words, checked by the dispatcher).
    pub fn parse(tokens: &Tokens<'a>) -> Result<Self, ParseError> {
        let words = tokens.len();
        let noreply = words > 2 && noreply_maybe(tokens);
        if words > 2 {
            let hold_is_zero = tokens.get(2) == b"0";
            let valid = (words == 3 && (hold_is_zero || noreply))
                || (words == 4 && hold_is_zero && noreply);
            if !valid {
                return Err(ParseError::quiet(Error::DeleteUsage, noreply));
            }
        }
        let key = tokens.get(1);
        if !crate::syntax::valid_key(key) {
            return Err(ParseError::quiet(Error::BadFormat, noreply));
        }
        Ok(Self { key, noreply })
    }

    /// Removes the item.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        shared.prefixes.record_delete(self.key);
        let line: &'static [u8] = match shared.keyspace.store().delete(self.key) {
            Ok(Deleted::Removed) => {
                shared.stats.delete_hits.incr();
                b"DELETED\r\n"
            }
            Ok(Deleted::Missing) => {
                shared.stats.delete_misses.incr();
                b"NOT_FOUND\r\n"
            }
            Err(err) => return reply::error(out, err.into(), self.noreply),
        };
        reply::status(out, line, self.noreply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Delete<'_>, ParseError> {
        Delete::parse(&Tokens::split(line.as_bytes()))
    }

    #[test]
    fn accepted_forms() {
        assert!(!parse("delete k").unwrap().noreply);
        assert!(!parse("delete k 0").unwrap().noreply);
        assert!(parse("delete k noreply").unwrap().noreply);
        assert!(parse("delete k 0 noreply").unwrap().noreply);
    }

    #[test]
    fn refused_forms() {
        let usage = ParseError::quiet(Error::DeleteUsage, false);
        assert_eq!(parse("delete k 5").unwrap_err(), usage);
        assert_eq!(parse("delete k foo").unwrap_err(), usage);
        assert_eq!(parse("delete k noreply extra").unwrap_err(), usage);
        assert_eq!(
            parse("delete k 1 noreply").unwrap_err(),
            ParseError::quiet(Error::DeleteUsage, true)
        );
        let key = "k".repeat(251);
        assert_eq!(
            parse(&format!("delete {key}")).unwrap_err(),
            ParseError::quiet(Error::BadFormat, false)
        );
        assert_eq!(
            parse(&format!("delete {key} noreply")).unwrap_err(),
            ParseError::quiet(Error::BadFormat, true)
        );
    }
}
