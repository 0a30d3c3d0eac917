//! Redis's slow log: the latest commands whose execution took at least
//! `slowlog-log-slower-than` microseconds (negative: off; 0: every
//! command), at most `slowlog-max-len` of them, newest first.
//!
//! Entries are kept as Redis keeps them: at most 32 arguments (the 32nd
//! then says how many more there were), each at most 128 bytes followed
//! by "... (N more bytes)"; secrets (`AUTH`, `HELLO ... AUTH`, `CONFIG SET
//! requirepass`, `ACL SETUSER`'s user and rules) are logged as
//! "(redacted)", as [`redact`](crate::redact) decides. So an
//! entry holds at most about 5 KiB and the log at most
//! [`MAX_LEN_LIMIT`] entries.
//!
//! The hot path reads one atomic (the threshold); only a command at or
//! over it takes the log's lock.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use strata_service::ClientInfo;

use crate::args::Args;
use crate::redact::{redacted, REDACTED};

/// `slowlog-log-slower-than`'s default, in microseconds.
pub const DEFAULT_SLOWER_THAN_US: i64 = 10_000;
/// `slowlog-max-len`'s default.
pub const DEFAULT_MAX_LEN: usize = 128;
/// Largest `slowlog-max-len` accepted: bounds the log's memory (Redis
/// accepts any `long`).
pub const MAX_LEN_LIMIT: usize = 65_536;
/// Arguments kept per entry.
const MAX_ARGS: usize = 32;
/// Bytes kept per argument.
const MAX_ARG_BYTES: usize = 128;

/// One logged command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowEntry {
    /// Increasing from 0 since start (not reset by `SLOWLOG RESET`).
    pub id: u64,
    /// When it was logged, Unix seconds.
    pub unix_secs: u64,
    /// How long it ran, microseconds.
    pub micros: u64,
    /// Its arguments, cut as described above.
    pub args: Vec<Vec<u8>>,
    /// The client's `ip:port`.
    pub client_addr: String,
    /// The client's name (`CLIENT SETNAME`), or empty.
    pub client_name: String,
}

/// The slow log of one front end.
#[derive(Debug)]
pub struct SlowLog {
    slower_than_us: AtomicI64,
    max_len: AtomicUsize,
    next_id: AtomicU64,
    entries: Mutex<VecDeque<SlowEntry>>,
}

impl Default for SlowLog {
    fn default() -> Self {
        Self {
            slower_than_us: AtomicI64::new(DEFAULT_SLOWER_THAN_US),
            max_len: AtomicUsize::new(DEFAULT_MAX_LEN),
            next_id: AtomicU64::new(0),
            entries: Mutex::new(VecDeque::new()),
        }
    }
}

impl SlowLog {
    /// `slowlog-log-slower-than`, microseconds.
    pub fn slower_than(&self) -> i64 {
        self.slower_than_us.load(Ordering::Relaxed)
    }

    /// Sets `slowlog-log-slower-than`.
    pub fn set_slower_than(&self, micros: i64) {
        self.slower_than_us.store(micros, Ordering::Relaxed);
    }

    /// `slowlog-max-len`.
    pub fn max_len(&self) -> usize {
        self.max_len.load(Ordering::Relaxed)
    }

    /// Sets `slowlog-max-len` (at most [`MAX_LEN_LIMIT`]), dropping the
    /// oldest entries beyond it.
    pub fn set_max_len(&self, len: usize) {
        let len = len.min(MAX_LEN_LIMIT);
        self.max_len.store(len, Ordering::Relaxed);
        self.entries.lock().truncate(len);
    }

    /// Whether a command that ran `nanos` is logged.
    pub fn is_slow(&self, nanos: u64) -> bool {
        let threshold = self.slower_than();
        threshold >= 0 && nanos / 1000 >= threshold as u64
    }

    /// Logs a command that ran `nanos` (the caller checked [`is_slow`](Self::is_slow))
    /// for `client`, or (`None`) for a script: Redis logs those as its
    /// script client's, `?:0` with no name.
    pub fn push(&self, nanos: u64, args: &Args<'_>, client: Option<&ClientInfo>) {
        let max_len = self.max_len();
        if max_len == 0 {
            return;
        }
        let entry = SlowEntry {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            unix_secs: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            micros: nanos / 1000,
            args: logged_args(args),
            client_addr: client.map_or_else(|| "?:0".to_string(), |c| c.addr.to_string()),
            client_name: client
                .and_then(|c| c.name.lock().clone())
                .unwrap_or_default(),
        };
        let mut entries = self.entries.lock();
        entries.push_front(entry);
        entries.truncate(max_len);
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.lock().len()
    }

    /// True when no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The newest `count` entries (all with `None`), newest first.
    pub fn latest(&self, count: Option<usize>) -> Vec<SlowEntry> {
        let entries = self.entries.lock();
        let n = count.map_or(entries.len(), |c| c.min(entries.len()));
        entries.iter().take(n).cloned().collect()
    }

    /// `SLOWLOG RESET`: forgets every entry (ids keep increasing).
    pub fn reset(&self) {
        self.entries.lock().clear();
    }
}

/// The arguments as an entry keeps them.
fn logged_args(args: &Args<'_>) -> Vec<Vec<u8>> {
    let argc = args.len();
    let kept = argc.min(MAX_ARGS);
    let hidden = redacted(args);
    (0..kept)
        .map(|i| {
            if kept < argc && i == kept - 1 {
                return format!("... ({} more arguments)", argc - kept + 1).into_bytes();
            }
            if hidden & (1 << i) != 0 {
                return REDACTED.to_vec();
            }
            let arg = args.get(i);
            if arg.len() > MAX_ARG_BYTES {
                let mut cut = arg[..MAX_ARG_BYTES].to_vec();
                cut.extend_from_slice(
                    format!("... ({} more bytes)", arg.len() - MAX_ARG_BYTES).as_bytes(),
                );
                cut
            } else {
                arg.to_vec()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logged(words: &[&[u8]]) -> Vec<Vec<u8>> {
        crate::args::with_words(words, logged_args)
    }

    #[test]
    fn cuts_long_arguments_and_argument_lists() {
        let long = vec![b'x'; 200];
        let out = logged(&[b"set", b"k", &long]);
        assert_eq!(out[2].len(), 128 + "... (72 more bytes)".len());
        assert!(out[2].ends_with(b"... (72 more bytes)"));
        let many: Vec<Vec<u8>> = (0..40).map(|i| format!("a{i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = many.iter().map(|v| v.as_slice()).collect();
        let out = logged(&refs);
        assert_eq!(out.len(), 32);
        assert_eq!(out[30], b"a30");
        assert_eq!(out[31], b"... (9 more arguments)");
        let exactly: Vec<&[u8]> = refs[..32].to_vec();
        assert_eq!(logged(&exactly)[31], b"a31");
    }

    #[test]
    fn redacts_secrets() {
        assert_eq!(logged(&[b"AUTH", b"u", b"p"])[1..], [REDACTED, REDACTED]);
        let hello = logged(&[b"hello", b"3", b"auth", b"u", b"p", b"setname", b"n"]);
        assert_eq!(hello[3], REDACTED);
        assert_eq!(hello[4], REDACTED);
        assert_eq!(hello[6], b"n");
        let config = logged(&[b"config", b"set", b"requirepass", b"s"]);
        assert_eq!(config[3], REDACTED);
        let mixed = logged(&[b"config", b"set", b"timeout", b"5", b"requirepass", b"s"]);
        assert_eq!(mixed[3], b"5");
        assert_eq!(mixed[5], REDACTED);
        let acl = logged(&[b"acl", b"setuser", b"bob", b">pw"]);
        assert_eq!(acl[2..], [REDACTED, REDACTED]);
    }

    #[test]
    fn thresholds() {
        let log = SlowLog::default();
        assert!(!log.is_slow(9_999_999));
        assert!(log.is_slow(10_000_000));
        log.set_slower_than(0);
        assert!(log.is_slow(0));
        log.set_slower_than(-1);
        assert!(!log.is_slow(u64::MAX));
    }
}
