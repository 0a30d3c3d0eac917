//! The text of one `MONITOR` line, byte for byte as Redis 7.2's
//! `replicationFeedMonitors` writes it:
//! `+<secs>.<micros> [0 <ip:port>|lua] "<arg>" "<arg>"...\r\n`, each
//! argument quoted and escaped as `sdscatrepr` does (`\"`, `\\`, `\n`,
//! `\r`, `\t`, `\a`, `\b`, other bytes outside printable ASCII as
//! `\xHH`), hidden ones as `"(redacted)"`.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use crate::args::Args;
use crate::redact::REDACTED;

/// Who ran a command, as its line names it.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A client on this TCP address (Strata has no unix sockets).
    Client(SocketAddr),
    /// A script's `redis.call` (`EVAL`, `FCALL`): `lua`.
    Script,
}

/// `+<secs>.<micros> [0 <who>] `, for a line fed `since_epoch` after the
/// Unix epoch (Strata has one database: always 0).
pub fn prefix(since_epoch: Duration, source: Source) -> String {
    let mut out = String::with_capacity(64);
    let _ = write!(
        out,
        "+{}.{:06} ",
        since_epoch.as_secs(),
        since_epoch.subsec_micros()
    );
    let _ = match source {
        Source::Client(addr) => write!(out, "[0 {addr}] "),
        Source::Script => write!(out, "[0 lua] "),
    };
    out
}

/// Bytes of [`body`] for `args` with the arguments of mask `hidden`
/// redacted, counted without building it (an argument may take four
/// times its size once escaped).
pub fn body_len(args: &Args<'_>, hidden: u64) -> usize {
    let quoted: usize = (0..args.len())
        .map(|i| {
            2 + shown(args, hidden, i)
                .iter()
                .map(|&c| escaped_len(c))
                .sum::<usize>()
        })
        .sum();
    quoted + args.len().saturating_sub(1) + 2
}

/// The arguments, quoted and escaped, separated by spaces, then `\r\n`;
/// `len` is [`body_len`] (the capacity reserved).
pub fn body(args: &Args<'_>, hidden: u64, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    for i in 0..args.len() {
        if i > 0 {
            out.push(b' ');
        }
        push_repr(&mut out, shown(args, hidden, i));
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// Argument `i` as the line shows it.
fn shown<'a>(args: &Args<'a>, hidden: u64, i: usize) -> &'a [u8] {
    if i < 64 && hidden & (1 << i) != 0 {
        REDACTED
    } else {
        args.get(i)
    }
}

/// Bytes `c` takes once escaped.
fn escaped_len(c: u8) -> usize {
    match c {
        b'\\' | b'"' | b'\n' | b'\r' | b'\t' | 0x07 | 0x08 => 2,
        0x20..=0x7e => 1,
        _ => 4,
    }
}

/// Appends `bytes` quoted and escaped as Redis's `sdscatrepr`.
pub fn push_repr(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for &c in bytes {
        match c {
            b'\\' | b'"' => out.extend_from_slice(&[b'\\', c]),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x20..=0x7e => out.push(c),
            _ => out.extend_from_slice(&[
                b'\\',
                b'x',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 0xf)],
            ]),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_body(words: &[&[u8]], hidden: u64) -> String {
        let body = crate::args::with_words(words, |args| {
            let len = body_len(args, hidden);
            let body = body(args, hidden, len);
            assert_eq!(body.len(), len, "body_len counts what body writes");
            body
        });
        String::from_utf8(body).expect("escaped lines are ASCII")
    }

    #[test]
    fn escapes_as_sdscatrepr() {
        // The bytes redis-server 7.0.15 was sent, and the line it wrote.
        let value = b"v\"\\\n\r\t\x07\x08\x01\xc3\xbf e";
        assert_eq!(
            line_body(&[b"SET", b"k", value], 0),
            "\"SET\" \"k\" \"v\\\"\\\\\\n\\r\\t\\a\\b\\x01\\xc3\\xbf e\"\r\n"
        );
        assert_eq!(line_body(&[b"ECHO", b""], 0), "\"ECHO\" \"\"\r\n");
        assert_eq!(
            line_body(&[b"x", b"\x00\x1f\x7f\x80\xff~ "], 0),
            "\"x\" \"\\x00\\x1f\\x7f\\x80\\xff~ \"\r\n"
        );
    }

    #[test]
    fn every_byte_counts_what_it_writes() {
        let all: Vec<u8> = (0..=255).collect();
        let body = line_body(&[b"SET", b"k", &all], 0);
        assert!(body
            .bytes()
            .all(|c| (0x20..=0x7e).contains(&c) || c == b'\r' || c == b'\n'));
        assert!(body.ends_with("\"\r\n"));
    }

    #[test]
    fn hidden_arguments_show_redacted() {
        assert_eq!(
            line_body(&[b"AUTH", b"user", b"secret"], 0b110),
            "\"AUTH\" \"(redacted)\" \"(redacted)\"\r\n"
        );
    }

    #[test]
    fn prefix_shape() {
        let at = Duration::new(1_700_000_000, 1_234_567);
        let addr: SocketAddr = "127.0.0.1:49436".parse().expect("addr");
        assert_eq!(
            prefix(at, Source::Client(addr)),
            "+1700000000.001234 [0 127.0.0.1:49436] "
        );
        assert_eq!(
            prefix(Duration::new(5, 999_999_999), Source::Script),
            "+5.999999 [0 lua] "
        );
        let v6: SocketAddr = "[::1]:6379".parse().expect("addr");
        assert_eq!(
            prefix(Duration::ZERO, Source::Client(v6)),
            "+0.000000 [0 [::1]:6379] "
        );
    }
}
