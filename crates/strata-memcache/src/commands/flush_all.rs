//! `flush_all [delay] [noreply]`: removes every item now, or `delay`
//! seconds from now (read like an expiration time, so large values are Unix
//! times). Everything present when the flush runs is removed. Always `OK`.

use crate::codec::Tokens;
use crate::expiry;
use crate::numbers::strtol32;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};
use bytes::BytesMut;

/// A parsed `flush_all`.
#[derive(Debug)]
pub struct FlushAll {
    delay: i32,
    noreply: bool,
}

impl FlushAll {
    /// Parses the line (one to three words, checked by the dispatcher).
    pub fn parse(tokens: &Tokens<'_>) -> Result<Self, ParseError> {
        let noreply = noreply_maybe(tokens);
        let without_delay = if noreply { 2 } else { 1 };
        let delay = if tokens.len() == without_delay {
            0
        } else {
            strtol32(tokens.get(1)).ok_or(ParseError::quiet(Error::InvalidExptime, noreply))?
        };
        Ok(Self { delay, noreply })
    }

    /// Flushes now or schedules the flush.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        shared.stats.cmd_flush.incr();
        let keyspace = &shared.keyspace;
        // A delay of 0 flushes now and cancels any pending delayed flush.
        match keyspace.flush_after(expiry::flush_delay_ms(self.delay, keyspace.now_ms())) {
            Ok(()) => reply::status(out, b"OK\r\n", self.noreply),
            Err(err) => reply::error(out, err.into(), self.noreply),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<(i32, bool), ParseError> {
        FlushAll::parse(&Tokens::split(line.as_bytes())).map(|f| (f.delay, f.noreply))
    }

    #[test]
    fn forms() {
        assert_eq!(parse("flush_all"), Ok((0, false)));
        assert_eq!(parse("flush_all noreply"), Ok((0, true)));
        assert_eq!(parse("flush_all 10"), Ok((10, false)));
        assert_eq!(parse("flush_all 10 noreply"), Ok((10, true)));
        assert_eq!(parse("flush_all -1"), Ok((-1, false)));
        assert_eq!(parse("flush_all 1 2"), Ok((1, false)));
        assert_eq!(
            parse("flush_all abc"),
            Err(ParseError::quiet(Error::InvalidExptime, false))
        );
        assert_eq!(
            parse("flush_all abc noreply"),
            Err(ParseError::quiet(Error::InvalidExptime, true))
        );
    }
}
