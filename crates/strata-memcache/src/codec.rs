//! Bytes to frames: command lines, their tokens, and data blocks.
//!
//! Framing follows memcached 1.6: a command line ends at `\n` (one `\r`
//! before it is dropped), a data block is exactly `<bytes>` bytes followed
//! by `\r\n`. Every function here borrows from the input and allocates
//! nothing, so the "incomplete" path (waiting for more bytes) is free.
//!
//! Limits: a line with no newline within [`MAX_LINE`] bytes is refused
//! ([`Frame::TooLong`]), except a multi-key `get`/`gets`, which may grow to
//! the larger limit the caller passes (memcached lets multigets be long).

use memchr::memchr;

/// Longest command line accepted while no newline has been seen (memcached's
/// 2048-byte read-buffer rule).
pub const MAX_LINE: usize = 2048;

/// At most this many words are split out of a line; memcached's
/// `MAX_TOKENS` is 24 including the terminal token.
pub const MAX_WORDS: usize = 23;

/// What the front of the input holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// No complete line yet; nothing may be consumed.
    Incomplete,
    /// A complete line: `text` excludes the line terminator, `consumed`
    /// counts it.
    Line {
        /// The line without `\r\n` or `\n`.
        text: &'a [u8],
        /// Bytes the line occupies in the input, terminator included.
        consumed: usize,
    },
    /// No newline within the limit: the client must be refused.
    TooLong,
}

/// Finds the command line at the front of `input`. `multiget_limit` is the
/// longest unterminated line tolerated when it starts with `get ` or `gets `.
pub fn next_line(input: &[u8], multiget_limit: usize) -> Frame<'_> {
    match memchr(b'\n', input) {
        Some(nl) => {
            let mut end = nl;
            // memcached drops the '\r' only when the line has more than it.
            if end > 1 && input[end - 1] == b'\r' {
                end -= 1;
            }
            Frame::Line {
                text: &input[..end],
                consumed: nl + 1,
            }
        }
        None if input.len() <= MAX_LINE => Frame::Incomplete,
        None if input.len() <= multiget_limit && is_multiget(input) => Frame::Incomplete,
        None => Frame::TooLong,
    }
}

/// memcached tolerates long unterminated lines only for multigets: at most
/// 100 leading spaces, then `get ` or `gets `.
fn is_multiget(input: &[u8]) -> bool {
    let spaces = input.iter().take_while(|&&b| b == b' ').count();
    if spaces > 100 {
        return false;
    }
    let rest = &input[spaces..];
    rest.starts_with(b"get ") || rest.starts_with(b"gets ")
}

/// The words of a command line, split on spaces as memcached does.
///
/// memcached treats a line as a C string, so a NUL byte ends it. At most
/// [`MAX_WORDS`] words are split; `more` tells whether text follows them.
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    words: [&'a [u8]; MAX_WORDS],
    len: usize,
    rest: &'a [u8],
}

impl<'a> Tokens<'a> {
    /// Splits `line`.
    pub fn split(line: &'a [u8]) -> Self {
        let line = match memchr(0, line) {
            Some(nul) => &line[..nul],
            None => line,
        };
        let mut words: [&'a [u8]; MAX_WORDS] = [&[]; MAX_WORDS];
        let mut len = 0;
        let mut iter = Words { rest: line };
        while len < MAX_WORDS {
            match iter.next() {
                Some(w) => {
                    words[len] = w;
                    len += 1;
                }
                None => break,
            }
        }
        Self {
            words,
            len,
            rest: iter.rest,
        }
    }

    /// Number of words split out (at most [`MAX_WORDS`]).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the line had no words.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the line continues past the words split out.
    pub fn more(&self) -> bool {
        self.rest.iter().any(|&b| b != b' ')
    }

    /// memcached's `ntokens`: the words plus its terminal token; a line with
    /// more than [`MAX_WORDS`] words counts as `MAX_WORDS + 1`.
    pub fn ntokens(&self) -> usize {
        self.len + 1
    }

    /// The word at `i`, or an empty slice past the end.
    pub fn get(&self, i: usize) -> &'a [u8] {
        if i < self.len {
            self.words[i]
        } else {
            &[]
        }
    }

    /// The last word split out.
    pub fn last(&self) -> &'a [u8] {
        if self.len == 0 {
            &[]
        } else {
            self.words[self.len - 1]
        }
    }

    /// The words split out.
    pub fn as_slice(&self) -> &[&'a [u8]] {
        &self.words[..self.len]
    }

    /// Every word from `i` on, including those past [`MAX_WORDS`] (for the
    /// keys of a multiget).
    pub fn words_from(&self, i: usize) -> impl Iterator<Item = &'a [u8]> + '_ {
        let split = self.words[..self.len].iter().skip(i).copied();
        // Past the split words, keep splitting the rest of the line.
        let rest = Words { rest: self.rest };
        let skip_rest = i.saturating_sub(self.len);
        split.chain(rest.skip(skip_rest))
    }
}

/// Iterator over space-separated words.
#[derive(Debug, Clone)]
struct Words<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| b != b' ')?;
        let rest = &self.rest[start..];
        let end = memchr(b' ', rest).unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

/// A data block at the front of some input.
#[derive(Debug, PartialEq, Eq)]
pub enum Block<'a> {
    /// Fewer than `len + 2` bytes are available.
    Incomplete,
    /// The block and its terminator are present.
    Complete {
        /// The `len` data bytes.
        data: &'a [u8],
        /// Whether the two bytes after the data are `\r\n`; memcached
        /// answers `CLIENT_ERROR bad data chunk` otherwise.
        terminated: bool,
    },
}

/// Reads a data block of `len` bytes plus `\r\n` from the front of `input`.
pub fn data_block(input: &[u8], len: usize) -> Block<'_> {
    let Some(total) = len.checked_add(2) else {
        return Block::Incomplete;
    };
    if input.len() < total {
        return Block::Incomplete;
    }
    Block::Complete {
        data: &input[..len],
        terminated: &input[len..total] == b"\r\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(input: &[u8]) -> (&[u8], usize) {
        match next_line(input, 1 << 20) {
            Frame::Line { text, consumed } => (text, consumed),
            other => panic!("expected a line, got {other:?}"),
        }
    }

    #[test]
    fn complete_lines_with_crlf_and_bare_lf() {
        assert_eq!(line(b"get a\r\nrest"), (&b"get a"[..], 7));
        assert_eq!(line(b"get a\nrest"), (&b"get a"[..], 6));
        // Only one '\r' is dropped.
        assert_eq!(line(b"get a\r\r\n"), (&b"get a\r"[..], 8));
        // A lone "\r\n" keeps its '\r' (memcached's rule), still one line.
        assert_eq!(line(b"\r\n"), (&b"\r"[..], 2));
        assert_eq!(line(b"\n"), (&b""[..], 1));
    }

    #[test]
    fn incomplete_and_split_input() {
        assert_eq!(next_line(b"", 4096), Frame::Incomplete);
        assert_eq!(next_line(b"get a", 4096), Frame::Incomplete);
        assert_eq!(next_line(b"get a\r", 4096), Frame::Incomplete);
        let whole = b"set k 0 0 1\r\n";
        for cut in 0..whole.len() {
            assert_eq!(
                next_line(&whole[..cut], 4096),
                Frame::Incomplete,
                "cut at {cut}"
            );
        }
        assert_eq!(line(whole), (&b"set k 0 0 1"[..], whole.len()));
    }

    #[test]
    fn long_lines() {
        let long = vec![b'x'; MAX_LINE + 1];
        assert_eq!(next_line(&long, 1 << 20), Frame::TooLong);
        assert_eq!(next_line(&long[..MAX_LINE], 1 << 20), Frame::Incomplete);
        // A long line that did arrive whole is still a line.
        let mut terminated = long.clone();
        terminated.extend_from_slice(b"\r\n");
        assert_eq!(line(&terminated).1, MAX_LINE + 3);
        // Multigets may grow up to the caller's limit.
        let mut get = b"get ".to_vec();
        get.extend_from_slice(&b"k ".repeat(3000));
        assert_eq!(next_line(&get, 1 << 20), Frame::Incomplete);
        assert_eq!(next_line(&get, 4096), Frame::TooLong);
        let mut gets = b"   gets ".to_vec();
        gets.extend(vec![b'k'; 5000]);
        assert_eq!(next_line(&gets, 1 << 20), Frame::Incomplete);
        let mut spaced = vec![b' '; 101];
        spaced.extend_from_slice(&get);
        assert_eq!(next_line(&spaced, 1 << 20), Frame::TooLong);
    }

    #[test]
    fn tokens_split_on_spaces_only() {
        let t = Tokens::split(b"  set  k\t 0 0 1  ");
        assert_eq!(t.as_slice(), &[&b"set"[..], b"k\t", b"0", b"0", b"1"]);
        assert_eq!(t.ntokens(), 6);
        assert!(!t.more());
        assert_eq!(t.get(9), b"");
        assert_eq!(t.last(), b"1");
        assert!(Tokens::split(b"   ").is_empty());
    }

    #[test]
    fn tokens_stop_at_nul_and_cap_at_max_words() {
        let t = Tokens::split(b"get a\0b c");
        assert_eq!(t.as_slice(), &[&b"get"[..], b"a"]);

        let line: Vec<u8> = (0..40)
            .map(|i| format!("w{i} "))
            .collect::<String>()
            .into_bytes();
        let t = Tokens::split(&line);
        assert_eq!(t.len(), MAX_WORDS);
        assert!(t.more());
        assert_eq!(t.ntokens(), MAX_WORDS + 1);
        let all: Vec<_> = t.words_from(1).collect();
        assert_eq!(all.len(), 39);
        assert_eq!(all[38], b"w39");
        assert_eq!(t.words_from(30).next(), Some(&b"w30"[..]));
    }

    #[test]
    fn data_blocks() {
        assert_eq!(data_block(b"abc\r", 3), Block::Incomplete);
        assert_eq!(
            data_block(b"abc\r\nx", 3),
            Block::Complete {
                data: b"abc",
                terminated: true
            }
        );
        assert_eq!(
            data_block(b"abcd\r\n", 3),
            Block::Complete {
                data: b"abc",
                terminated: false
            }
        );
        assert_eq!(
            data_block(b"\r\n", 0),
            Block::Complete {
                data: b"",
                terminated: true
            }
        );
        assert_eq!(data_block(b"ab", usize::MAX), Block::Incomplete);
    }
}

/// True for a line shaped like an HTTP request line (`GET / HTTP/1.0`:
/// an upper-case method, a target, a version starting with `HTTP/`), which memcached answers by
/// closing the connection (an HTTP client or a misdirected probe).
pub fn looks_like_http(line: &[u8]) -> bool {
    let mut words = line.split(|&c| c == b' ').filter(|w| !w.is_empty());
    let (Some(method), Some(_target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return false;
    };
    // memcached's commands are lower case: `get / HTTP/1.0` is a get.
    method.iter().all(u8::is_ascii_uppercase) && version.starts_with(b"HTTP/")
}

#[cfg(test)]
mod http_tests {
    use super::looks_like_http;

    #[test]
    fn http_request_lines() {
        assert!(looks_like_http(b"GET / HTTP/1.0"));
        assert!(looks_like_http(b"POST /x HTTP/1.1"));
        assert!(looks_like_http(b"HEAD / HTTP/1.0"));
        assert!(!looks_like_http(b"GET key"));
        assert!(!looks_like_http(b"get a b"));
        assert!(!looks_like_http(b"get / HTTP/1.0"));
        assert!(!looks_like_http(b"set k 0 0 HTTP/1"));
    }
}
