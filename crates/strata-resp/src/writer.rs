//! Reply encoding for RESP2 and RESP3.
//!
//! Commands describe replies by shape (null, map, set, double, ...) and the
//! [`ReplyWriter`] picks the encoding of the connection's protocol version:
//! RESP3 types fall back to their RESP2 equivalents (a map becomes a flat
//! array, a set an array, a double a bulk string, a boolean an integer, a
//! verbatim string a bulk string, null `$-1` or `*-1`).

use bytes::{BufMut, BytesMut};

use crate::errorstats::ErrorStats;

/// The protocol version a connection speaks (`HELLO 2` / `HELLO 3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RespVersion {
    /// RESP2, the default for a new connection.
    #[default]
    Resp2,
    /// RESP3.
    Resp3,
}

impl RespVersion {
    /// The number clients use for it (2 or 3).
    pub fn number(self) -> i64 {
        match self {
            RespVersion::Resp2 => 2,
            RespVersion::Resp3 => 3,
        }
    }
}

/// Appends replies to a connection's output buffer.
#[derive(Debug)]
pub struct ReplyWriter<'a> {
    out: &'a mut BytesMut,
    version: RespVersion,
    errors: Option<&'a ErrorStats>,
    /// Error replies counted in `errors` so far.
    counted: u64,
}

impl<'a> ReplyWriter<'a> {
    /// A writer appending to `out` in `version`'s encoding.
    pub fn new(out: &'a mut BytesMut, version: RespVersion) -> Self {
        Self {
            out,
            version,
            errors: None,
            counted: 0,
        }
    }

    /// A writer that also counts its error replies by code in `errors`
    /// (`INFO errorstats`).
    pub fn counting(out: &'a mut BytesMut, version: RespVersion, errors: &'a ErrorStats) -> Self {
        Self {
            out,
            version,
            errors: Some(errors),
            counted: 0,
        }
    }

    /// The protocol version replies are encoded in.
    pub fn version(&self) -> RespVersion {
        self.version
    }

    /// Switches the encoding for the following replies (`HELLO`).
    pub fn set_version(&mut self, version: RespVersion) {
        self.version = version;
    }

    /// Bytes written to the buffer so far (for rolling back a partial reply).
    pub fn position(&self) -> usize {
        self.out.len()
    }

    /// Whether the reply starting at `position` is an error.
    pub fn is_error_at(&self, position: usize) -> bool {
        self.out.get(position) == Some(&b'-')
    }

    /// Drops everything written after `position`.
    pub fn truncate(&mut self, position: usize) {
        self.out.truncate(position);
    }

    fn line(&mut self, prefix: u8, text: &[u8]) {
        self.out.reserve(text.len() + 3);
        self.out.put_u8(prefix);
        self.out.put_slice(text);
        self.out.put_slice(b"\r\n");
    }

    fn number_line(&mut self, prefix: u8, n: i64) {
        let mut buf = itoa::Buffer::new();
        self.line(prefix, buf.format(n).as_bytes());
    }

    /// Bytes already encoded for this connection's version (a script's reply).
    pub fn raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// `+OK`.
    pub fn ok(&mut self) {
        self.out.put_slice(b"+OK\r\n");
    }

    /// A simple string; `\r` and `\n` are replaced by spaces to keep it one line.
    pub fn simple(&mut self, text: &str) {
        self.line_sanitized(b'+', text.as_bytes());
    }

    /// An error reply; `text` includes its code (`ERR ...`, `WRONGTYPE ...`).
    pub fn error(&mut self, text: &str) {
        if let Some(errors) = self.errors {
            errors.record(text.as_bytes());
            self.counted += 1;
        }
        self.line_sanitized(b'-', text.as_bytes());
    }

    /// An error reply counted already, where it arose (a script's reply
    /// re-raising a failed command's error): not counted again.
    pub fn error_uncounted(&mut self, text: &str) {
        self.line_sanitized(b'-', text.as_bytes());
    }

    /// Error replies this writer counted by code (a counting writer's).
    pub fn counted_errors(&self) -> u64 {
        self.counted
    }

    fn line_sanitized(&mut self, prefix: u8, text: &[u8]) {
        if text.iter().any(|&c| c == b'\r' || c == b'\n') {
            let clean: Vec<u8> = text
                .iter()
                .map(|&c| if c == b'\r' || c == b'\n' { b' ' } else { c })
                .collect();
            self.line(prefix, &clean);
        } else {
            self.line(prefix, text);
        }
    }

    /// An integer.
    pub fn integer(&mut self, n: i64) {
        self.number_line(b':', n);
    }

    /// A bulk string.
    pub fn bulk(&mut self, data: &[u8]) {
        let mut len = itoa::Buffer::new();
        let len = len.format(data.len());
        self.out.reserve(data.len() + len.len() + 5);
        self.out.put_u8(b'$');
        self.out.put_slice(len.as_bytes());
        self.out.put_slice(b"\r\n");
        self.out.put_slice(data);
        self.out.put_slice(b"\r\n");
    }

    /// An integer sent as a bulk string (SCAN cursors, TIME).
    pub fn bulk_integer(&mut self, n: u64) {
        let mut buf = itoa::Buffer::new();
        let text = buf.format(n);
        self.bulk(text.as_bytes());
    }

    /// A missing value: RESP2 `$-1`, RESP3 `_`.
    pub fn null(&mut self) {
        match self.version {
            RespVersion::Resp2 => self.out.put_slice(b"$-1\r\n"),
            RespVersion::Resp3 => self.out.put_slice(b"_\r\n"),
        }
    }

    /// A missing array (aborted `EXEC`): RESP2 `*-1`, RESP3 `_`.
    pub fn null_array(&mut self) {
        match self.version {
            RespVersion::Resp2 => self.out.put_slice(b"*-1\r\n"),
            RespVersion::Resp3 => self.out.put_slice(b"_\r\n"),
        }
    }

    /// The header of an array of `len` replies.
    pub fn array(&mut self, len: usize) {
        self.number_line(b'*', len as i64);
    }

    /// The header of an out-of-band message of `len` elements (pub/sub):
    /// RESP3's push type, a plain array in RESP2.
    pub fn push(&mut self, len: usize) {
        match self.version {
            RespVersion::Resp2 => self.number_line(b'*', len as i64),
            RespVersion::Resp3 => self.number_line(b'>', len as i64),
        }
    }

    /// The header of a map of `pairs` key/value pairs (RESP2: a flat array).
    pub fn map(&mut self, pairs: usize) {
        match self.version {
            RespVersion::Resp2 => self.number_line(b'*', pairs as i64 * 2),
            RespVersion::Resp3 => self.number_line(b'%', pairs as i64),
        }
    }

    /// The header of a set of `len` replies (RESP2: an array).
    pub fn set(&mut self, len: usize) {
        match self.version {
            RespVersion::Resp2 => self.number_line(b'*', len as i64),
            RespVersion::Resp3 => self.number_line(b'~', len as i64),
        }
    }

    /// A double (RESP2: a bulk string), formatted as Redis 7.0's
    /// `addReplyDouble` ([`format_double`](crate::number::format_double)).
    pub fn double(&mut self, value: f64) {
        let text = crate::number::format_double(value);
        match self.version {
            RespVersion::Resp2 => self.bulk(text.as_bytes()),
            RespVersion::Resp3 => self.line(b',', text.as_bytes()),
        }
    }

    /// A double as Redis writes a "human" long double (`GEOPOS`'s
    /// coordinates): 17 decimals, trailing zeros dropped (RESP2: a bulk
    /// string).
    pub fn human_double(&mut self, value: f64) {
        let text = crate::number::format_human(value);
        match self.version {
            RespVersion::Resp2 => self.bulk(text.as_bytes()),
            RespVersion::Resp3 => self.line(b',', text.as_bytes()),
        }
    }

    /// A boolean (RESP2: integer 1 or 0).
    pub fn boolean(&mut self, value: bool) {
        match self.version {
            RespVersion::Resp2 => self.integer(i64::from(value)),
            RespVersion::Resp3 => self
                .out
                .put_slice(if value { b"#t\r\n" } else { b"#f\r\n" }),
        }
    }

    /// A big number given as its decimal digits (RESP2: a bulk string).
    pub fn big_number(&mut self, digits: &str) {
        match self.version {
            RespVersion::Resp2 => self.bulk(digits.as_bytes()),
            RespVersion::Resp3 => self.line(b'(', digits.as_bytes()),
        }
    }

    /// The header of RESP3 attributes (`pairs` key/value pairs) that go
    /// before the reply they describe; RESP2 has none, so nothing is
    /// written and the caller writes no pairs.
    pub fn attribute(&mut self, pairs: usize) {
        if self.version == RespVersion::Resp3 {
            self.number_line(b'|', pairs as i64);
        }
    }

    /// A verbatim string of `format` (3 letters such as `txt`), as `INFO` and
    /// `CLIENT INFO` reply (RESP2: a bulk string of `text`).
    pub fn verbatim(&mut self, format: &str, text: &[u8]) {
        match self.version {
            RespVersion::Resp2 => self.bulk(text),
            RespVersion::Resp3 => {
                let mut len = itoa::Buffer::new();
                let len = len.format(text.len() + format.len() + 1);
                self.out.reserve(text.len() + len.len() + format.len() + 6);
                self.out.put_u8(b'=');
                self.out.put_slice(len.as_bytes());
                self.out.put_slice(b"\r\n");
                self.out.put_slice(format.as_bytes());
                self.out.put_u8(b':');
                self.out.put_slice(text);
                self.out.put_slice(b"\r\n");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(f: impl Fn(&mut ReplyWriter<'_>)) -> (String, String) {
        let mut two = BytesMut::new();
        f(&mut ReplyWriter::new(&mut two, RespVersion::Resp2));
        let mut three = BytesMut::new();
        f(&mut ReplyWriter::new(&mut three, RespVersion::Resp3));
        (
            String::from_utf8_lossy(&two).into_owned(),
            String::from_utf8_lossy(&three).into_owned(),
        )
    }

    #[test]
    fn shapes_per_version() {
        assert_eq!(both(|w| w.null()), ("$-1\r\n".into(), "_\r\n".into()));
        assert_eq!(both(|w| w.null_array()), ("*-1\r\n".into(), "_\r\n".into()));
        assert_eq!(both(|w| w.map(2)), ("*4\r\n".into(), "%2\r\n".into()));
        assert_eq!(both(|w| w.set(3)), ("*3\r\n".into(), "~3\r\n".into()));
        assert_eq!(
            both(|w| w.boolean(true)),
            (":1\r\n".into(), "#t\r\n".into())
        );
        assert_eq!(
            both(|w| w.double(1.5)),
            ("$3\r\n1.5\r\n".into(), ",1.5\r\n".into())
        );
        assert_eq!(both(|w| w.double(f64::NEG_INFINITY)).1, ",-inf\r\n");
        assert_eq!(
            both(|w| w.verbatim("txt", b"a:1")),
            ("$3\r\na:1\r\n".into(), "=7\r\ntxt:a:1\r\n".into())
        );
        assert_eq!(both(|w| w.bulk(b"")).0, "$0\r\n\r\n");
        assert_eq!(both(|w| w.integer(-5)).0, ":-5\r\n");
        assert_eq!(both(|w| w.error("ERR a\r\nb")).0, "-ERR a  b\r\n");
    }
}
