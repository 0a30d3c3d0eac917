//! What both wire protocols' reply framing shares: the operations, the
//! reply kinds, the framing errors and the small byte helpers. A leaf
//! below `memcache.rs` and `resp.rs`.

/// Longest reply header line accepted; a server sending more without a line end is broken.
pub const MAX_LINE: usize = 64 * 1024;

/// Deepest RESP aggregate nesting accepted.
pub const MAX_DEPTH: usize = 32;

/// One benchmark operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Store a value under a key.
    Set,
    /// Read the value under a key.
    Get,
}

/// How a reply is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// A positive status or non-lookup reply: `STORED`, `OK`, `+OK`, integers, arrays.
    Success,
    /// A lookup found a value: memcached `VALUE ... END`, RESP non-nil bulk string.
    Hit,
    /// A lookup or condition found nothing: memcached `END`, `NOT_FOUND`, `NOT_STORED`,
    /// `EXISTS`; RESP nil bulk string, nil array or RESP3 null.
    Miss,
    /// An error reply: memcached `ERROR`/`CLIENT_ERROR`/`SERVER_ERROR`, RESP `-...`.
    Error,
}

/// One complete reply at the front of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    /// How the reply is counted.
    pub kind: ReplyKind,
    /// Bytes the reply occupies; the caller consumes exactly this many.
    pub len: usize,
}

/// Bytes that can never become a valid reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A reply line that the protocol does not define.
    #[error("unexpected reply line {0:?}")]
    UnexpectedLine(String),
    /// A length or integer field that is not a valid number.
    #[error("invalid number in reply line {0:?}")]
    BadNumber(String),
    /// A data block not followed by CRLF.
    #[error("data block not terminated by CRLF")]
    MissingCrlf,
    /// No line end within [`MAX_LINE`] bytes.
    #[error("reply line longer than {MAX_LINE} bytes")]
    LineTooLong,
    /// A RESP reply starting with a type byte this client does not know.
    #[error("unknown RESP type byte {0:#04x}")]
    UnknownType(u8),
    /// RESP aggregates nested deeper than [`MAX_DEPTH`].
    #[error("RESP aggregates nested deeper than {MAX_DEPTH}")]
    TooDeep,
}

/// Finds the line at the front of `buf`: its content without the line end, and its length
/// including the line end (CRLF, or a bare LF from lenient servers).
pub(crate) fn split_line(buf: &[u8]) -> Result<Option<(&[u8], usize)>, ProtocolError> {
    match memchr::memchr(b'\n', buf) {
        Some(lf) => {
            let content_end = if lf > 0 && buf[lf - 1] == b'\r' {
                lf - 1
            } else {
                lf
            };
            Ok(Some((&buf[..content_end], lf + 1)))
        }
        None if buf.len() > MAX_LINE => Err(ProtocolError::LineTooLong),
        None => Ok(None),
    }
}

/// Parses an unsigned decimal without sign or whitespace.
pub(crate) fn parse_u64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    digits.iter().try_fold(0u64, |acc, &d| {
        if d.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        } else {
            None
        }
    })
}

/// Lossy, truncated rendering of a reply line for error messages.
pub(crate) fn show(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned()
}

/// Appends the decimal form of `n`.
pub(crate) fn push_decimal(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}
