//! One request's panic contained to its connection: the driver runs
//! [`Session::process`](crate::Session::process) under [`contain`], and a
//! panic becomes a logged error, the protocol's error reply and the close
//! of that one connection, while every other client keeps being served.
//!
//! A panic is a bug (sessions MUST NOT panic on any input); this is the net
//! under it. Locks held by the panicking request are released as its stack
//! unwinds (the engine's locks do not poison), so the keyspace stays usable.

use std::any::Any;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How many bytes of the offending input the log shows.
const LOGGED_INPUT: usize = 256;

/// Runs `f`; a panic comes back as its message.
///
/// The caller guarantees that what `f` mutates is either dropped or still
/// consistent after a panic half-way (a session is dropped with its
/// connection).
pub fn contain<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(&*payload))
}

/// The text a panic was raised with (`panic!("...")` or a formatted one).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// The start of `input` for a log line: printable ASCII as is, other bytes
/// escaped, at most [`LOGGED_INPUT`] bytes (then `...`).
pub fn input_excerpt(input: &[u8]) -> String {
    let mut text = String::new();
    for &b in input.iter().take(LOGGED_INPUT) {
        match b {
            b'\r' => text.push_str("\\r"),
            b'\n' => text.push_str("\\n"),
            b'\\' => text.push_str("\\\\"),
            0x20..=0x7e => text.push(b as char),
            _ => {
                let _ = write!(text, "\\x{b:02x}");
            }
        }
    }
    if input.len() > LOGGED_INPUT {
        text.push_str("...");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message() {
        assert_eq!(contain(|| 7), Ok(7));
        assert_eq!(contain(|| -> u8 { panic!("boom") }), Err("boom".into()));
        let n = 3;
        assert_eq!(
            contain(|| -> u8 { panic!("boom {n}") }),
            Err("boom 3".into())
        );
    }

    #[test]
    fn excerpts_escape_and_cut() {
        assert_eq!(input_excerpt(b"GET a\r\n\x00\\"), "GET a\\r\\n\\x00\\\\");
        let long = vec![b'a'; LOGGED_INPUT + 1];
        assert_eq!(
            input_excerpt(&long),
            format!("{}...", "a".repeat(LOGGED_INPUT))
        );
    }
}
