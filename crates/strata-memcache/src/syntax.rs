//! What every command's parser shares: the key rules, `noreply`, and the
//! refusal a parser returns ([`ParseError`]). A leaf below the commands
//! and the dispatcher (`command.rs`).

use crate::codec::Tokens;
use crate::reply::Error;

/// Longest key memcached accepts.
pub const KEY_MAX: usize = 250;

/// Whether `key` (as written on the command line, base64 or not) is a legal
/// key: at most [`KEY_MAX`] bytes and, as protocol.txt requires, no control
/// characters. (Whitespace never reaches here: it separates words.)
pub fn valid_key(key: &[u8]) -> bool {
    key.len() <= KEY_MAX && !key.iter().any(|&b| b < 0x20 || b == 0x7f)
}

/// A refused command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// The reply.
    pub error: Error,
    /// The reply is hidden: classic commands hide even their errors once
    /// `noreply` was recognised.
    pub noreply: bool,
    /// Bytes after the line to read and discard (the data block of a
    /// refused `ms`, whose length was understood).
    pub swallow: usize,
}

impl From<Error> for ParseError {
    fn from(error: Error) -> Self {
        Self {
            error,
            noreply: false,
            swallow: 0,
        }
    }
}

impl ParseError {
    /// `error`, hidden when `noreply`.
    pub fn quiet(error: Error, noreply: bool) -> Self {
        Self {
            error,
            noreply,
            swallow: 0,
        }
    }
}

/// Whether the last word is `noreply` (memcached's `set_noreply_maybe`).
pub fn noreply_maybe(tokens: &Tokens<'_>) -> bool {
    tokens.last() == b"noreply"
}
