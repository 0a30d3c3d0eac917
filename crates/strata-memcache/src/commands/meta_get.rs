//! `mg <key> <flags>*`: meta get.
//!
//! Replies `VA <size> <flags>*` plus the value (with `v`), `HD <flags>*`
//! (without `v`), or `EN` on a miss (hidden by `q`). Returned flags follow
//! the request order: `s` size, `t` TTL left (-1: none), `c` CAS, `f` client
//! flags, `O` opaque, `k` key (` b` after a base64 key), `h`/`l` (hit
//! before / seconds since last access; the engine does not track these, so
//! they are always `h0` and `l0`), then `Z`, `X`, `W` for the recache
//! protocol. `T` sets a new TTL, `N` creates an empty item on a miss and
//! makes this client the winner (`W`), `R` wins the token when less TTL
//! than its argument remains, `u` reads without counting or bumping.

use std::borrow::Cow;

use bytes::{BufMut, BytesMut};
use strata_kv::{ItemRef, Mutation, NewItem, Store};

use super::meta_flags::{MetaFlags, MetaKind};
use crate::codec::Tokens;
use crate::command::ParseError;
use crate::expiry;
use crate::marks::{Mark, Verdict};
use crate::protocol::Shared;

/// A parsed `mg`.
#[derive(Debug)]
pub struct MetaGet<'a> {
    flags: MetaFlags<'a>,
}

impl<'a> MetaGet<'a> {
    /// Parses the line.
    pub fn parse(tokens: &Tokens<'a>) -> Result<Self, ParseError> {
        Ok(Self {
            flags: MetaFlags::parse(tokens, 2, MetaKind::Get)?,
        })
    }

    /// Looks the item up (creating it with `N`) and replies.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        let flags = &self.flags;
        let key: &[u8] = &flags.key;
        let stats = &shared.stats;
        let now = shared.keyspace.now_ms();
        let mut store = shared.keyspace.store();

        let mut created = false;
        if let Some(ttl) = flags.vivify {
            let stub = NewItem {
                value: Cow::Borrowed(&[]),
                flags: 0,
                expires_at: expiry::expires_at(ttl, now),
            };
            created = store
                .update(key, |old| match old {
                    None => (Mutation::Put(stub), true),
                    Some(_) => (Mutation::Keep, false),
                })
                .unwrap_or(false);
        }

        let new_expiry = flags.ttl.map(|t| expiry::expires_at(t, now));
        let recache_at = flags.recache.map(|r| expiry::expires_at(r, now));
        let reply = |item: &ItemRef<'_>, expires_at: Option<u64>, out: &mut BytesMut| {
            let verdict = if created {
                shared.marks.set(
                    key,
                    item.cas,
                    Mark {
                        stale: false,
                        token_sent: true,
                    },
                );
                Verdict {
                    won: true,
                    ..Verdict::default()
                }
            } else {
                let below_threshold = matches!(
                    (expires_at, recache_at),
                    (Some(at), Some(Some(threshold))) if at < threshold
                );
                shared.marks.read(key, item.cas, below_threshold)
            };
            put_hit(flags, item, expires_at, verdict, now, out);
        };
        let hit = match new_expiry {
            Some(expires_at) => store
                .update(key, |old| match old {
                    Some(item) => {
                        reply(&item, expires_at, out);
                        (Mutation::SetExpiry(expires_at), true)
                    }
                    None => (Mutation::Keep, false),
                })
                .unwrap_or(false),
            None if flags.no_bump => store
                .peek(key, |item| reply(&item, item.expires_at, out))
                .is_some(),
            None => store
                .get(key, |item| reply(&item, item.expires_at, out))
                .is_some(),
        };

        match (hit, new_expiry.is_some()) {
            (true, true) => {
                stats.cmd_touch.incr();
                stats.touch_hits.incr();
            }
            (true, false) => {
                stats.cmd_get.incr();
                stats.get_hits.incr();
            }
            (false, _) => {
                stats.cmd_get.incr();
                stats.get_misses.incr();
                if !flags.quiet {
                    let mut line = b"EN".to_vec();
                    for word in flags.words() {
                        flags.put_opaque_and_key(word, &mut line);
                    }
                    line.extend_from_slice(b"\r\n");
                    out.put_slice(&line);
                }
            }
        }
    }
}

/// Appends the reply for a found item: `VA`/`HD`, the requested flags in
/// order, the recache flags, and the value when asked for.
fn put_hit(
    flags: &MetaFlags<'_>,
    item: &ItemRef<'_>,
    expires_at: Option<u64>,
    verdict: Verdict,
    now: u64,
    out: &mut BytesMut,
) {
    let mut line = Vec::with_capacity(64);
    if flags.value {
        line.extend_from_slice(b"VA ");
        line.extend_from_slice(itoa::Buffer::new().format(item.value.len()).as_bytes());
    } else {
        line.extend_from_slice(b"HD");
    }
    let mut num = itoa::Buffer::new();
    for word in flags.words() {
        let number = |line: &mut Vec<u8>, tag: u8, text: &str| {
            line.push(b' ');
            line.push(tag);
            line.extend_from_slice(text.as_bytes());
        };
        match word[0] {
            b's' => number(&mut line, b's', num.format(item.value.len())),
            b't' => number(
                &mut line,
                b't',
                num.format(expiry::ttl_secs(expires_at, now)),
            ),
            b'c' => number(&mut line, b'c', num.format(item.cas)),
            b'f' => number(&mut line, b'f', num.format(item.flags)),
            b'h' => number(&mut line, b'h', "0"),
            b'l' => number(&mut line, b'l', "0"),
            _ => flags.put_opaque_and_key(word, &mut line),
        }
    }
    if verdict.token_sent {
        line.extend_from_slice(b" Z");
    }
    if verdict.stale {
        line.extend_from_slice(b" X");
    }
    if verdict.won {
        line.extend_from_slice(b" W");
    }
    line.extend_from_slice(b"\r\n");
    out.reserve(line.len() + item.value.len() + 2);
    out.put_slice(&line);
    if flags.value {
        out.put_slice(item.value);
        out.put_slice(b"\r\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::Error;

    fn reply(line: &str, item: ItemRef<'_>, verdict: Verdict) -> String {
        let tokens = Tokens::split(line.as_bytes());
        let mg = MetaGet::parse(&tokens).unwrap();
        let mut out = BytesMut::new();
        put_hit(&mg.flags, &item, item.expires_at, verdict, 1_000, &mut out);
        String::from_utf8(out.to_vec()).unwrap()
    }

    const ITEM: ItemRef<'static> = ItemRef {
        key: b"a",
        value: b"abc",
        flags: 5,
        cas: 64,
        expires_at: None,
    };

    #[test]
    fn flags_in_request_order() {
        assert_eq!(reply("mg a", ITEM, Verdict::default()), "HD\r\n");
        assert_eq!(reply("mg a v", ITEM, Verdict::default()), "VA 3\r\nabc\r\n");
        assert_eq!(
            reply("mg a s v f t c k O123 q", ITEM, Verdict::default()),
            "VA 3 s3 f5 t-1 c64 ka O123\r\nabc\r\n"
        );
        assert_eq!(reply("mg a h l", ITEM, Verdict::default()), "HD h0 l0\r\n");
        let ttl = ItemRef {
            expires_at: Some(31_000),
            ..ITEM
        };
        assert_eq!(reply("mg a t", ttl, Verdict::default()), "HD t30\r\n");
        assert_eq!(
            reply("mg YQ== b k", ITEM, Verdict::default()),
            "HD kYQ== b\r\n"
        );
    }

    #[test]
    fn recache_flags_come_last() {
        let v = Verdict {
            token_sent: false,
            stale: true,
            won: true,
        };
        assert_eq!(reply("mg a c v", ITEM, v), "VA 3 c64 X W\r\nabc\r\n");
        let v = Verdict {
            token_sent: true,
            stale: true,
            won: false,
        };
        assert_eq!(reply("mg a c", ITEM, v), "HD c64 Z X\r\n");
    }

    #[test]
    fn parse_errors() {
        let err = |l: &str| {
            MetaGet::parse(&Tokens::split(l.as_bytes()))
                .unwrap_err()
                .error
        };
        assert_eq!(err("mg a zz"), Error::InvalidFlag);
        assert_eq!(err("mg a v v"), Error::DuplicateFlag);
        assert_eq!(err("mg a Tabc"), Error::BadToken);
        assert_eq!(err(&format!("mg {} v", "k".repeat(251))), Error::BadFormat);
    }
}
