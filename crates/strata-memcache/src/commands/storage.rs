//! The storage family: `set`, `add`, `replace`, `append`, `prepend`
//! (`<cmd> <key> <flags> <exptime> <bytes> [noreply]`) and `cas`
//! (`cas <key> <flags> <exptime> <bytes> <cas unique> [noreply]`), each
//! followed by a data block.
//!
//! Replies: `STORED`, `NOT_STORED` (add/replace/append/prepend condition
//! not met), `EXISTS` (cas: the item changed), `NOT_FOUND` (cas: no item).
//! `append`/`prepend` keep the item's flags and expiry, ignoring the ones
//! given. A refused `set` (too large, out of memory) also removes the key,
//! as memcached does so stale data does not survive a failed update.

use std::borrow::Cow;

use bytes::BytesMut;
use strata_kv::{Mutation, NewItem, Store};

use crate::codec::Tokens;
use crate::expiry;
use crate::numbers::{strtol32, strtoul32, strtoull};
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::{noreply_maybe, ParseError};

/// Which storage command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Store unconditionally.
    Set,
    /// Store only if absent.
    Add,
    /// Store only if present.
    Replace,
    /// Add the data after the existing value.
    Append,
    /// Add the data before the existing value.
    Prepend,
    /// Store only if the item's CAS is still this one.
    Cas(u64),
}

/// A parsed storage command line.
#[derive(Debug)]
pub struct Storage<'a> {
    /// The command.
    pub mode: Mode,
    /// The key.
    pub key: &'a [u8],
    /// Client flags.
    pub flags: u32,
    /// memcached expiration time.
    pub exptime: i32,
    /// Length of the data block.
    pub len: usize,
    /// Hide the reply.
    pub noreply: bool,
}

/// Largest data length memcached accepts on the line (`INT_MAX - 2`).
const MAX_LEN: i32 = i32::MAX - 2;

enum Outcome {
    Stored,
    NotStored,
    Exists,
    NotFound,
}

impl<'a> Storage<'a> {
    /// Parses the line (word count already checked by the dispatcher).
    pub fn parse(tokens: Tokens<'a>) -> Result<Self, ParseError> {
        let noreply = noreply_maybe(&tokens);
        let bad = ParseError::quiet(Error::BadFormat, noreply);
        let key = tokens.get(1);
        if !crate::syntax::valid_key(key) {
            return Err(bad);
        }
        let flags = strtoul32(tokens.get(2)).ok_or(bad)?;
        let exptime = strtol32(tokens.get(3)).ok_or(bad)?;
        let len = strtol32(tokens.get(4)).ok_or(bad)?;
        let mode = match tokens.get(0) {
            b"set" => Mode::Set,
            b"add" => Mode::Add,
            b"replace" => Mode::Replace,
            b"append" => Mode::Append,
            b"prepend" => Mode::Prepend,
            _ => Mode::Cas(strtoull(tokens.get(5)).ok_or(bad)?),
        };
        if !(0..=MAX_LEN).contains(&len) {
            return Err(bad);
        }
        Ok(Self {
            mode,
            key,
            flags,
            exptime,
            len: len as usize,
            noreply,
        })
    }

    /// True for `set` (whose failure removes the old item).
    pub fn is_set(&self) -> bool {
        self.mode == Mode::Set
    }

    /// The command's name.
    pub fn name(&self) -> &'static str {
        match self.mode {
            Mode::Set => "set",
            Mode::Add => "add",
            Mode::Replace => "replace",
            Mode::Append => "append",
            Mode::Prepend => "prepend",
            Mode::Cas(_) => "cas",
        }
    }

    /// Stores `data` per the mode.
    pub fn execute(self, data: &[u8], shared: &Shared, out: &mut BytesMut) {
        let stats = &shared.stats;
        let expires_at = expiry::expires_at(self.exptime, shared.keyspace.now_ms());
        let new = NewItem {
            value: Cow::Borrowed(data),
            flags: self.flags,
            expires_at,
        };
        let mode = self.mode;
        let mut store = shared.keyspace.store();
        // A plain set needs nothing of the old item: stored blind (with the
        // SSD tier, no read of the old value).
        let result = match mode {
            Mode::Set => store.set(self.key, new).map(|()| Outcome::Stored),
            _ => store.update(self.key, |old| match (mode, old) {
                (Mode::Set, _) | (Mode::Add, None) | (Mode::Replace, Some(_)) => {
                    (Mutation::Put(new), Outcome::Stored)
                }
                (Mode::Add, Some(_)) | (Mode::Replace | Mode::Append | Mode::Prepend, None) => {
                    (Mutation::Keep, Outcome::NotStored)
                }
                (Mode::Append | Mode::Prepend, Some(item)) => {
                    let mut value = Vec::with_capacity(item.value.len() + data.len());
                    if mode == Mode::Append {
                        value.extend_from_slice(item.value);
                        value.extend_from_slice(data);
                    } else {
                        value.extend_from_slice(data);
                        value.extend_from_slice(item.value);
                    }
                    let joined = NewItem {
                        value: Cow::Owned(value),
                        flags: item.flags,
                        expires_at: item.expires_at,
                    };
                    (Mutation::Put(joined), Outcome::Stored)
                }
                (Mode::Cas(_), None) => (Mutation::Keep, Outcome::NotFound),
                (Mode::Cas(cas), Some(item)) if item.cas == cas => {
                    (Mutation::Put(new), Outcome::Stored)
                }
                (Mode::Cas(_), Some(_)) => (Mutation::Keep, Outcome::Exists),
            }),
        };
        if strata_kv::fetch::deferred() {
            // Discarded; the request runs again once its value is read.
            return;
        }
        stats.cmd_set.incr();
        shared.prefixes.record_set(self.key);
        let line: &'static [u8] = match result {
            Ok(Outcome::Stored) => {
                if let Mode::Cas(_) = mode {
                    stats.cas_hits.incr();
                }
                b"STORED\r\n"
            }
            Ok(Outcome::NotStored) => b"NOT_STORED\r\n",
            Ok(Outcome::Exists) => {
                stats.cas_badval.incr();
                b"EXISTS\r\n"
            }
            Ok(Outcome::NotFound) => {
                stats.cas_misses.incr();
                b"NOT_FOUND\r\n"
            }
            Err(err) => {
                let err = Error::from(err);
                match err {
                    Error::TooLarge => stats.store_too_large.incr(),
                    Error::NotDurable | Error::LogStalled => {}
                    _ => stats.store_no_memory.incr(),
                }
                if mode == Mode::Set {
                    // Best effort, as memcached: a refused delete changes nothing.
                    let _ = store.delete(self.key);
                }
                reply::error(out, err, self.noreply);
                return;
            }
        };
        reply::status(out, line, self.noreply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Command;

    fn parse(line: &str) -> Result<Storage<'_>, ParseError> {
        match Command::parse(line.as_bytes()) {
            Ok(Command::Store(s)) => Ok(s),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e),
        }
    }

    #[test]
    fn parses_every_mode() {
        let s = parse("set k 5 100 3 noreply").unwrap();
        assert_eq!(
            (s.mode, s.key, s.flags, s.exptime, s.len, s.noreply),
            (Mode::Set, &b"k"[..], 5, 100, 3, true)
        );
        assert_eq!(parse("add k 0 0 1").unwrap().mode, Mode::Add);
        assert_eq!(parse("replace k 0 0 1").unwrap().mode, Mode::Replace);
        assert_eq!(parse("append k 0 0 1").unwrap().mode, Mode::Append);
        assert_eq!(parse("prepend k 0 0 1").unwrap().mode, Mode::Prepend);
        assert_eq!(parse("cas k 0 0 1 77").unwrap().mode, Mode::Cas(77));
        // An unknown sixth word is not noreply and is ignored.
        assert!(!parse("set k 0 0 1 foo").unwrap().noreply);
        // Out-of-range numbers are truncated like memcached's int32 parse.
        assert_eq!(parse("set k 4294967296 0 4294967297").unwrap().flags, 0);
        assert_eq!(parse("set k 0 0 4294967297").unwrap().len, 1);
    }

    #[test]
    fn refusals() {
        let bad = ParseError::quiet(Error::BadFormat, false);
        let key = "k".repeat(251);
        assert_eq!(parse(&format!("set {key} 0 0 1")).unwrap_err(), bad);
        assert_eq!(parse("set k abc 0 1").unwrap_err(), bad);
        assert_eq!(parse("set k -1 0 1").unwrap_err(), bad);
        assert_eq!(parse("set k 0 abc 1").unwrap_err(), bad);
        assert_eq!(parse("set k 0 0 -1").unwrap_err(), bad);
        assert_eq!(parse("set k 0 0 abc").unwrap_err(), bad);
        assert_eq!(parse("set k 0 0 2147483646").unwrap_err(), bad);
        assert_eq!(parse("cas k 0 0 1 abc").unwrap_err(), bad);
        assert_eq!(parse("append k abc 0 1").unwrap_err(), bad);
        // noreply hides even these.
        assert_eq!(
            parse("set k abc 0 1 noreply").unwrap_err(),
            ParseError::quiet(Error::BadFormat, true)
        );
        assert_eq!(parse("set k 0 0").unwrap_err().error, Error::UnknownCommand);
    }
}
