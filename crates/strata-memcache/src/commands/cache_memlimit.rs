//! `cache_memlimit <megabytes> [noreply]`: changes the memory limit at
//! runtime, as memcached's `-m`; at least 8 MB (memcached's floor).

use bytes::BytesMut;

use crate::codec::Tokens;
use crate::numbers::strtoul32;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};

/// memcached refuses limits under this many megabytes.
const MIN_MEGABYTES: u64 = 8;

/// A parsed `cache_memlimit`.
#[derive(Debug)]
pub struct CacheMemlimit {
    megabytes: u64,
    noreply: bool,
}

impl CacheMemlimit {
    /// Parses the line (two or three words, checked by the dispatcher); a
    /// size that is not a number is `ERROR`, as memcached answers.
    pub fn parse(tokens: &Tokens<'_>) -> Result<Self, ParseError> {
        let noreply = noreply_maybe(tokens);
        let megabytes =
            strtoul32(tokens.get(1)).ok_or(ParseError::quiet(Error::UnknownCommand, noreply))?;
        Ok(Self {
            megabytes: u64::from(megabytes),
            noreply,
        })
    }

    /// Applies the limit.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        if self.megabytes < MIN_MEGABYTES {
            let line = b"MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n";
            return reply::status(out, line, self.noreply);
        }
        shared.keyspace.set_memory_limit(self.megabytes << 20);
        reply::status(out, b"OK\r\n", self.noreply);
    }
}
