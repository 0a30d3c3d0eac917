//! `get <key>*`, `gets <key>*`, `gat <exptime> <key>*`, `gats <exptime> <key>*`.
//!
//! Each found key is sent as `VALUE <key> <flags> <bytes>[ <cas>]` and its
//! data block; `END` closes the list. `gat`/`gats` also set the expiry of
//! every found item, keeping its CAS (as `touch` does). A key longer than
//! 250 bytes anywhere in the list discards everything already produced for
//! this command and answers `CLIENT_ERROR bad command line format`, as
//! memcached 1.6 does.

use bytes::{BufMut, BytesMut};
use strata_kv::{ItemRef, Mutation, Store};

use crate::codec::Tokens;
use crate::expiry;
use crate::numbers::strtol32;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::ParseError;

/// A retrieval request.
#[derive(Debug)]
pub struct Retrieve<'a> {
    tokens: Tokens<'a>,
    first_key: usize,
    with_cas: bool,
    /// `gat`/`gats`: the new expiration time.
    touch: Option<i32>,
}

impl<'a> Retrieve<'a> {
    /// Parses `get`/`gets`/`gat`/`gats` (at least two words, checked by the
    /// dispatcher).
    pub fn parse(tokens: Tokens<'a>) -> Result<Self, ParseError> {
        let name = tokens.get(0);
        let with_cas = name.ends_with(b"s");
        if name.starts_with(b"gat") {
            let exptime = strtol32(tokens.get(1)).ok_or(Error::InvalidExptime)?;
            Ok(Self {
                tokens,
                first_key: 2,
                with_cas,
                touch: Some(exptime),
            })
        } else {
            Ok(Self {
                tokens,
                first_key: 1,
                with_cas,
                touch: None,
            })
        }
    }

    /// The command's name.
    pub fn name(&self) -> &'static str {
        match (self.touch.is_some(), self.with_cas) {
            (false, false) => "get",
            (false, true) => "gets",
            (true, false) => "gat",
            (true, true) => "gats",
        }
    }

    /// Sends every found item, then `END`.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        let start = out.len();
        let stats = &shared.stats;
        let mut store = shared.keyspace.store();
        for key in self.tokens.words_from(self.first_key) {
            if !crate::syntax::valid_key(key) {
                out.truncate(start);
                reply::error(out, Error::BadFormat, false);
                return;
            }
            let with_cas = self.with_cas;
            match self.touch {
                None => {
                    let hit = store.get(key, |item| put_value(out, key, &item, with_cas));
                    // A deferred attempt's reply is discarded: it counts
                    // when it runs again.
                    if !strata_kv::fetch::deferred() {
                        stats.cmd_get.incr();
                        match hit {
                            Some(_) => stats.get_hits.incr(),
                            None => stats.get_misses.incr(),
                        }
                        shared.prefixes.record_get(key, hit.is_some());
                    }
                }
                Some(exptime) => {
                    let expires_at = expiry::expires_at(exptime, shared.keyspace.now_ms());
                    let hit = store.update(key, |old| match old {
                        Some(item) => {
                            put_value(out, key, &item, with_cas);
                            (Mutation::SetExpiry(expires_at), true)
                        }
                        None => (Mutation::Keep, false),
                    });
                    if !strata_kv::fetch::deferred() {
                        stats.cmd_touch.incr();
                        match hit {
                            Ok(true) => stats.touch_hits.incr(),
                            _ => stats.touch_misses.incr(),
                        }
                        shared.prefixes.record_get(key, hit == Ok(true));
                    }
                }
            }
        }
        out.put_slice(b"END\r\n");
    }
}

/// Appends `VALUE <key> <flags> <bytes>[ <cas>]\r\n<data>\r\n`.
pub fn put_value(out: &mut BytesMut, key: &[u8], item: &ItemRef<'_>, with_cas: bool) {
    out.reserve(key.len() + item.value.len() + 64);
    out.put_slice(b"VALUE ");
    out.put_slice(key);
    out.put_u8(b' ');
    reply::put_u64(out, u64::from(item.flags));
    out.put_u8(b' ');
    reply::put_u64(out, item.value.len() as u64);
    if with_cas {
        out.put_u8(b' ');
        reply::put_u64(out, item.cas);
    }
    out.put_slice(b"\r\n");
    out.put_slice(item.value);
    out.put_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Command;

    fn parse(line: &str) -> Result<Retrieve<'_>, Error> {
        match Command::parse(line.as_bytes()) {
            Ok(Command::Retrieve(r)) => Ok(r),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.error),
        }
    }

    #[test]
    fn parses_names_and_exptime() {
        assert_eq!(parse("get a").unwrap().name(), "get");
        assert_eq!(parse("gets a").unwrap().name(), "gets");
        let gat = parse("gat 10 a b").unwrap();
        assert_eq!((gat.name(), gat.touch, gat.first_key), ("gat", Some(10), 2));
        assert_eq!(parse("gats -1 a").unwrap().touch, Some(-1));
        assert_eq!(parse("gat abc a").unwrap_err(), Error::InvalidExptime);
        assert_eq!(parse("gat").unwrap_err(), Error::UnknownCommand);
        assert_eq!(parse("get").unwrap_err(), Error::UnknownCommand);
    }

    #[test]
    fn value_lines() {
        let mut out = BytesMut::new();
        let item = ItemRef {
            key: b"k",
            value: b"xy",
            kind: strata_kv::ValueKind::String,
            flags: 5,
            form: strata_kv::StringForm::Whole,
            cas: 9,
            expires_at: None,
        };
        put_value(&mut out, b"k", &item, false);
        put_value(&mut out, b"k", &item, true);
        assert_eq!(&out[..], b"VALUE k 5 2\r\nxy\r\nVALUE k 5 2 9\r\nxy\r\n");
    }
}
