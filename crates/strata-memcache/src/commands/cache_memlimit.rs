//! `cache_memlimit <megabytes> [noreply]`: changes the memory limit at
//! runtime, as memcached's `-m`; at least 8 MB (memcached's floor), at
//! most 1,000,000,000 MB (above, memcached takes it for bytes and refuses).

use bytes::BytesMut;

use crate::codec::Tokens;
use crate::numbers::strtoull;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};

/// memcached refuses limits under this many megabytes.
const MIN_MEGABYTES: u64 = 8;
/// ... and above this many.
const MAX_MEGABYTES: u64 = 1_000_000_000;

/// A parsed `cache_memlimit`.
#[derive(Debug)]
pub struct CacheMemlimit {
    megabytes: u64,
    noreply: bool,
}

impl CacheMemlimit {
    /// Parses the line (two or three words, checked by the dispatcher); a
    /// size that is not a 32-bit number is `ERROR`, as memcached answers.
    pub fn parse(tokens: &Tokens<'_>) -> Result<Self, ParseError> {
        let noreply = noreply_maybe(tokens);
        let megabytes = strtoull(tokens.get(1))
            .filter(|&m| m <= u64::from(u32::MAX))
            .ok_or(ParseError::quiet(Error::UnknownCommand, noreply))?;
        Ok(Self { megabytes, noreply })
    }

    /// Applies the limit.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        if self.megabytes < MIN_MEGABYTES {
            let line = b"MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n";
            return reply::status(out, line, self.noreply);
        }
        if self.megabytes > MAX_MEGABYTES {
            let line = b"MEMLIMIT_ADJUST_FAILED input value is megabytes not bytes\r\n";
            return reply::status(out, line, self.noreply);
        }
        shared.keyspace.set_memory_limit(self.megabytes << 20);
        reply::status(out, b"OK\r\n", self.noreply);
    }
}
