//! RESP2 request parsing: arrays of bulk strings (what every client library
//! sends) and inline commands (a space-separated line typed by hand, with
//! quotes handled as Redis's `sdssplitargs` does).
//!
//! Invariants:
//! - the parser never copies a multibulk argument: it records `(start, end)`
//!   offsets into the caller's buffer, which must not change in front of the
//!   parsed position between calls (the session only consumes input after a
//!   whole request is parsed);
//! - an incomplete request allocates nothing beyond the argument offsets
//!   already recorded, and a partially received multibulk request resumes
//!   where the previous call stopped instead of rescanning;
//! - every length is checked against [`Limits`] when its header arrives, before
//!   any of the announced bytes are buffered.

use memchr::memchr;

use crate::args::Args;
use crate::number::parse_i64;

/// Longest inline request, and longest multibulk or bulk header line
/// (Redis's `PROTO_INLINE_MAX_SIZE`).
pub const INLINE_MAX: usize = 64 * 1024;
/// Most arguments one multibulk request may announce.
pub const MAX_MULTIBULK: i64 = 1024 * 1024;
/// Most arguments an unauthenticated client may send in one request.
pub const UNAUTHENTICATED_MAX_MULTIBULK: i64 = 10;
/// Largest bulk argument an unauthenticated client may send.
pub const UNAUTHENTICATED_MAX_BULK: i64 = 16 * 1024;

/// Limits that apply to the request being parsed.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest bulk argument accepted (`proto-max-bulk-len`).
    pub max_bulk: usize,
    /// False while a password is required and the client has not given it:
    /// requests are then limited as Redis limits them.
    pub authenticated: bool,
}

/// A malformed request. The session replies `-ERR Protocol error: <this>` and
/// closes the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// An inline request without a newline in its first [`INLINE_MAX`] bytes.
    #[error("too big inline request")]
    TooBigInline,
    /// An inline request with an unterminated quote, or a closing quote not
    /// followed by a space.
    #[error("unbalanced quotes in request")]
    UnbalancedQuotes,
    /// A `*<count>` line longer than [`INLINE_MAX`].
    #[error("too big mbulk count string")]
    TooBigMultibulkCount,
    /// A `*<count>` that is not a number or is too large.
    #[error("invalid multibulk length")]
    InvalidMultibulkLength,
    /// More arguments than an unauthenticated client may send.
    #[error("unauthenticated multibulk length")]
    UnauthenticatedMultibulkLength,
    /// A `$<len>` line longer than [`INLINE_MAX`].
    #[error("too big bulk count string")]
    TooBigBulkCount,
    /// Something other than `$` where a bulk argument must start.
    #[error("expected '$', got '{}'", char::from(*.0))]
    ExpectedBulk(u8),
    /// A `$<len>` that is not a number, negative or over the bulk limit.
    #[error("invalid bulk length")]
    InvalidBulkLength,
    /// A bulk larger than an unauthenticated client may send.
    #[error("unauthenticated bulk length")]
    UnauthenticatedBulkLength,
}

/// What one [`RequestParser::parse`] call found at the front of the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    /// A whole request of `consumed` bytes; read it with [`RequestParser::args`].
    Request {
        /// Bytes the request occupies at the front of the buffer.
        consumed: usize,
    },
    /// `consumed` bytes that hold no command (an empty line, `*0`, `*-1`).
    Nothing {
        /// Bytes to drop from the front of the buffer.
        consumed: usize,
    },
    /// More bytes are needed; the buffer must be passed again, unchanged in
    /// front, once they arrive.
    Incomplete,
}

/// Where the arguments of the last parsed request live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Input,
    Inline,
}

/// Progress through a multibulk request that has not fully arrived.
#[derive(Debug, Clone, Copy)]
struct Partial {
    /// Arguments announced by the `*<count>` line.
    count: usize,
    /// Offset of the next unparsed byte (the next `$` header).
    pos: usize,
}

/// Incremental request parser of one connection.
#[derive(Debug)]
pub struct RequestParser {
    ranges: Vec<(usize, usize)>,
    inline: Vec<u8>,
    source: Source,
    partial: Option<Partial>,
    /// Input length the bulk being received needs (0: none pending).
    wanted: usize,
}

/// Argument offset tables above this capacity are released after use so one
/// huge request does not pin memory for the life of the connection.
const KEEP_RANGES: usize = 4096;
const KEEP_INLINE: usize = INLINE_MAX;

impl Default for RequestParser {
    fn default() -> Self {
        Self::new()
    }
}

impl RequestParser {
    /// A parser expecting the start of a request.
    pub fn new() -> Self {
        Self {
            ranges: Vec::new(),
            inline: Vec::new(),
            source: Source::Input,
            partial: None,
            wanted: 0,
        }
    }

    /// Parses the request at the front of `buf`.
    ///
    /// The caller guarantees that after [`Parsed::Incomplete`] the next call
    /// passes the same bytes again (possibly followed by more). After
    /// `Request` or `Nothing` the caller drops `consumed` bytes before the
    /// next call. After an error the parser must not be used again.
    pub fn parse(&mut self, buf: &[u8], limits: Limits) -> Result<Parsed, ProtocolError> {
        self.wanted = 0;
        if let Some(partial) = self.partial.take() {
            return self.parse_bulks(buf, partial, limits);
        }
        if self.ranges.capacity() > KEEP_RANGES {
            self.ranges = Vec::new();
        }
        if self.inline.capacity() > KEEP_INLINE {
            self.inline = Vec::new();
        }
        self.ranges.clear();
        match buf.first() {
            None => Ok(Parsed::Incomplete),
            Some(b'*') => self.parse_multibulk(buf, limits),
            Some(_) => self.parse_inline(buf),
        }
    }

    /// After [`Parsed::Incomplete`] inside a bulk's data: the input length
    /// that bulk needs (its announced length is known, within `max_bulk`).
    pub fn input_wanted(&self) -> Option<usize> {
        (self.wanted > 0).then_some(self.wanted)
    }

    /// The arguments of the request the last `parse` returned as
    /// [`Parsed::Request`]; `buf` must be the buffer passed to that call.
    pub fn args<'a>(&'a self, buf: &'a [u8]) -> Args<'a> {
        match self.source {
            Source::Input => Args::new(buf, &self.ranges),
            Source::Inline => Args::new(&self.inline, &self.ranges),
        }
    }

    fn parse_multibulk(&mut self, buf: &[u8], limits: Limits) -> Result<Parsed, ProtocolError> {
        let Some((line, next)) = header_line(buf, 1) else {
            return if buf.len() > INLINE_MAX {
                Err(ProtocolError::TooBigMultibulkCount)
            } else {
                Ok(Parsed::Incomplete)
            };
        };
        let count = match parse_i64(line) {
            Some(n) if n <= i64::from(i32::MAX) => n,
            _ => return Err(ProtocolError::InvalidMultibulkLength),
        };
        if !limits.authenticated && count > UNAUTHENTICATED_MAX_MULTIBULK {
            return Err(ProtocolError::UnauthenticatedMultibulkLength);
        }
        if count > MAX_MULTIBULK {
            return Err(ProtocolError::InvalidMultibulkLength);
        }
        if count <= 0 {
            return Ok(Parsed::Nothing { consumed: next });
        }
        self.source = Source::Input;
        // `count` is at most MAX_MULTIBULK, so the conversion is lossless.
        self.parse_bulks(
            buf,
            Partial {
                count: count as usize,
                pos: next,
            },
            limits,
        )
    }

    fn parse_bulks(
        &mut self,
        buf: &[u8],
        mut partial: Partial,
        limits: Limits,
    ) -> Result<Parsed, ProtocolError> {
        while self.ranges.len() < partial.count {
            let pos = partial.pos;
            let Some(&first) = buf.get(pos) else {
                self.partial = Some(partial);
                return Ok(Parsed::Incomplete);
            };
            if first != b'$' {
                return Err(ProtocolError::ExpectedBulk(first));
            }
            let Some((line, start)) = header_line(buf, pos + 1) else {
                if buf.len() - pos > INLINE_MAX {
                    return Err(ProtocolError::TooBigBulkCount);
                }
                self.partial = Some(partial);
                return Ok(Parsed::Incomplete);
            };
            let len = match parse_i64(line) {
                Some(n) if n >= 0 && n as u64 <= limits.max_bulk as u64 => n,
                _ => return Err(ProtocolError::InvalidBulkLength),
            };
            if !limits.authenticated && len > UNAUTHENTICATED_MAX_BULK {
                return Err(ProtocolError::UnauthenticatedBulkLength);
            }
            // Bounded by `max_bulk`, itself a usize.
            let end = start + len as usize;
            // Like Redis, the two bytes after the data are skipped unchecked.
            if buf.len() < end + 2 {
                self.partial = Some(partial);
                self.wanted = end + 2;
                return Ok(Parsed::Incomplete);
            }
            self.ranges.push((start, end));
            partial.pos = end + 2;
        }
        Ok(Parsed::Request {
            consumed: partial.pos,
        })
    }

    fn parse_inline(&mut self, buf: &[u8]) -> Result<Parsed, ProtocolError> {
        let Some(newline) = memchr(b'\n', buf) else {
            return if buf.len() > INLINE_MAX {
                Err(ProtocolError::TooBigInline)
            } else {
                Ok(Parsed::Incomplete)
            };
        };
        let mut line = &buf[..newline];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        self.inline.clear();
        split_inline(line, &mut self.inline, &mut self.ranges)?;
        self.source = Source::Inline;
        if self.ranges.is_empty() {
            Ok(Parsed::Nothing {
                consumed: newline + 1,
            })
        } else {
            Ok(Parsed::Request {
                consumed: newline + 1,
            })
        }
    }
}

/// The header line starting at `from` (up to `\r`) and the offset after its
/// `\r\n`, or `None` when the line and the byte after `\r` have not arrived.
pub(crate) fn header_line(buf: &[u8], from: usize) -> Option<(&[u8], usize)> {
    let rest = buf.get(from..)?;
    let cr = memchr(b'\r', rest)?;
    if cr + 2 > rest.len() {
        return None;
    }
    Some((&rest[..cr], from + cr + 2))
}

/// Splits an inline line into arguments as Redis's `sdssplitargs` does:
/// `"..."` with `\n \r \t \b \a \xHH` and `\<c>` escapes, `'...'` with `\'`,
/// a closing quote must be followed by a blank or the end of the line.
fn split_inline(
    line: &[u8],
    out: &mut Vec<u8>,
    ranges: &mut Vec<(usize, usize)>,
) -> Result<(), ProtocolError> {
    let mut p = 0;
    let at = |i: usize| line.get(i).copied();
    loop {
        while matches!(at(p), Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) {
            p += 1;
        }
        if p >= line.len() {
            return Ok(());
        }
        let start = out.len();
        let (mut in_double, mut in_single) = (false, false);
        loop {
            let Some(c) = at(p) else {
                if in_double || in_single {
                    return Err(ProtocolError::UnbalancedQuotes);
                }
                break;
            };
            if in_double {
                match (c, at(p + 1), at(p + 2), at(p + 3)) {
                    (b'\\', Some(b'x'), Some(h), Some(l))
                        if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() =>
                    {
                        out.push(hex_value(h) << 4 | hex_value(l));
                        p += 3;
                    }
                    (b'\\', Some(e), _, _) => {
                        out.push(match e {
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'b' => 0x08,
                            b'a' => 0x07,
                            other => other,
                        });
                        p += 1;
                    }
                    (b'"', next, _, _) => {
                        if next.is_some_and(|n| !n.is_ascii_whitespace() && n != 0x0b) {
                            return Err(ProtocolError::UnbalancedQuotes);
                        }
                        p += 1;
                        break;
                    }
                    _ => out.push(c),
                }
            } else if in_single {
                match (c, at(p + 1)) {
                    (b'\\', Some(b'\'')) => {
                        out.push(b'\'');
                        p += 1;
                    }
                    (b'\'', next) => {
                        if next.is_some_and(|n| !n.is_ascii_whitespace() && n != 0x0b) {
                            return Err(ProtocolError::UnbalancedQuotes);
                        }
                        p += 1;
                        break;
                    }
                    _ => out.push(c),
                }
            } else {
                match c {
                    b' ' | b'\n' | b'\r' | b'\t' => break,
                    b'"' => in_double = true,
                    b'\'' => in_single = true,
                    _ => out.push(c),
                }
            }
            p += 1;
        }
        ranges.push((start, out.len()));
    }
}

fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

#[cfg(test)]
mod tests;
