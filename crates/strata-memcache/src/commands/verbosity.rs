//! `verbosity <level> [noreply]`: sets the server's log verbosity (capped
//! at 2, memcached's maximum). Always `OK` for a numeric level.

use std::sync::atomic::Ordering;

use bytes::BytesMut;

use crate::codec::Tokens;
use crate::numbers::strtoul32;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};

/// memcached's highest verbosity level.
const MAX_LEVEL: u32 = 2;

/// A parsed `verbosity`.
#[derive(Debug)]
pub struct Verbosity {
    level: u32,
    noreply: bool,
}

impl Verbosity {
    /// Parses the line (two or three words, checked by the dispatcher).
    pub fn parse(tokens: &Tokens<'_>) -> Result<Self, ParseError> {
        let noreply = noreply_maybe(tokens);
        let level = strtoul32(tokens.get(1)).ok_or(ParseError::quiet(Error::BadFormat, noreply))?;
        Ok(Self {
            level: level.min(MAX_LEVEL),
            noreply,
        })
    }

    /// Stores the level.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        shared
            .info
            .settings
            .verbosity
            .store(self.level, Ordering::Relaxed);
        reply::status(out, b"OK\r\n", self.noreply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_caps() {
        let p =
            |l: &str| Verbosity::parse(&Tokens::split(l.as_bytes())).map(|v| (v.level, v.noreply));
        assert_eq!(p("verbosity 1"), Ok((1, false)));
        assert_eq!(p("verbosity 9 noreply"), Ok((2, true)));
        assert_eq!(p("verbosity 1 2"), Ok((1, false)));
        assert_eq!(
            p("verbosity abc"),
            Err(ParseError::quiet(Error::BadFormat, false))
        );
    }
}
