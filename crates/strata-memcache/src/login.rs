//! What a connection may do before it authenticates, when an auth file is
//! configured (memcached's `-Y`): only log in, by a `set` whose data is
//! `<user> <password>` (key, flags and expiry ignored; `STORED` on
//! success, nothing is stored). Everything else, meta commands included,
//! gets `CLIENT_ERROR unauthenticated` and the connection stays open, as in
//! memcached 1.6.
//!
//! The data of a login `set` is read only up to [`MAX_CREDENTIALS`]
//! bytes; a longer one is refused and its bytes discarded as they arrive.

use bytes::{BufMut, BytesMut};

use crate::codec::{self, Block, Frame, Tokens};
use crate::numbers::strtoul32;
use crate::shared::Shared;

/// Longest `<user> <password>` data accepted.
pub const MAX_CREDENTIALS: usize = 4096;

const UNAUTHENTICATED: &[u8] = b"CLIENT_ERROR unauthenticated\r\n";
const BAD_FORMAT: &[u8] = b"CLIENT_ERROR bad authentication token format\r\n";
const BAD_TERMINATION: &[u8] = b"CLIENT_ERROR bad command line termination\r\n";
const FAILURE: &[u8] = b"CLIENT_ERROR authentication failure\r\n";
const LINE_TOO_LONG: &[u8] = b"CLIENT_ERROR line too long\r\n";

/// What the front of the input did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Incomplete: wait for more input, nothing consumed.
    Wait,
    /// `consumed` bytes handled (reply written); then discard `swallow`
    /// more bytes as they arrive.
    Handled {
        /// Bytes of the input used.
        consumed: usize,
        /// Bytes after them to discard.
        swallow: usize,
    },
    /// Logged in: `consumed` bytes used, `STORED` written.
    LoggedIn {
        /// Bytes of the input used.
        consumed: usize,
    },
    /// A line that can never end: refused, close the connection.
    Close,
}

/// Handles the request at the front of `input` of a connection that has
/// not logged in yet.
pub fn step(input: &[u8], shared: &Shared, out: &mut BytesMut) -> Outcome {
    let (line, line_len) = match codec::next_line(input, codec::MAX_LINE) {
        Frame::Incomplete => return Outcome::Wait,
        Frame::TooLong => {
            out.put_slice(LINE_TOO_LONG);
            return Outcome::Close;
        }
        Frame::Line { text, consumed } => (text, consumed),
    };
    let tokens = Tokens::split(line);
    let size = match (tokens.len() >= 5 && tokens.get(0) == b"set")
        .then(|| strtoul32(tokens.get(4)))
        .flatten()
    {
        Some(size) => size as usize,
        None => {
            out.put_slice(UNAUTHENTICATED);
            return handled(line_len, 0);
        }
    };
    if size > MAX_CREDENTIALS {
        out.put_slice(BAD_FORMAT);
        return handled(line_len, size + 2);
    }
    let (data, terminated) = match codec::data_block(&input[line_len..], size) {
        Block::Incomplete => return Outcome::Wait,
        Block::Complete { data, terminated } => (data, terminated),
    };
    let consumed = line_len + size + 2;
    if !terminated {
        out.put_slice(BAD_TERMINATION);
        return handled(consumed, 0);
    }
    let credentials = Tokens::split(data);
    if credentials.len() < 2 {
        out.put_slice(BAD_FORMAT);
        return handled(consumed, 0);
    }
    let Some(auth) = shared.auth.as_ref() else {
        // Never called without an auth file; refuse rather than let in.
        out.put_slice(FAILURE);
        return handled(consumed, 0);
    };
    shared.stats.auth_cmds.incr();
    if auth.check(credentials.get(0), credentials.get(1)) {
        out.put_slice(b"STORED\r\n");
        Outcome::LoggedIn { consumed }
    } else {
        shared.stats.auth_errors.incr();
        out.put_slice(FAILURE);
        handled(consumed, 0)
    }
}

fn handled(consumed: usize, swallow: usize) -> Outcome {
    Outcome::Handled { consumed, swallow }
}
