//! `mg <key> <flags>*`: meta get.
//!
//! Replies `VA <size> <flags>*` plus the value (with `v`), `HD <flags>*`
//! (without `v`), or `EN` on a miss (hidden by `q`). Returned flags follow
//! the request order: `s` size, `t` TTL left (-1: none), `c` CAS, `f` client
//! flags, `O` opaque, `k` key (` b` after a base64 key), `h`/`l` (fetched
//! before / seconds since last access, as they were before this request:
//! the engine's access records, read just before the fetch), then `Z`,
//! `X`, `W` for the recache
//! protocol. `T` sets a new TTL, `N` creates an empty item on a miss and
//! makes this client the winner (`W`), `R` wins the token when less TTL
//! than its argument remains, `u` reads without counting or bumping.

use std::borrow::Cow;

use bytes::{BufMut, BytesMut};
use strata_kv::{Access, ItemRef, Mutation, NewItem, Store};

use super::meta_flags::{MetaFlags, MetaKind};
use crate::codec::Tokens;
use crate::expiry;
use crate::marks::{Mark, Verdict};
use crate::shared::Shared;
use crate::syntax::ParseError;

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

        let vivify = flags.vivify.map(|ttl| expiry::expires_at(ttl, now));
        let mut created = false;
        if let Some(expires_at) = vivify {
            let stub = NewItem {
                value: Cow::Borrowed(&[]),
                flags: 0,
                expires_at,
            };
            created = store
                .update(key, |old| match old {
                    None => (Mutation::Put(stub), true),
                    Some(_) => (Mutation::Keep, false),
                })
                .unwrap_or(false);
        }
        // Read before the fetch marks the item (memcached delays its bump
        // for `h` and `l` the same way).
        let wants_access = flags.words().any(|w| matches!(w[0], b'h' | b'l'));
        let access = wants_access.then(|| store.access(key)).flatten();
        let walk = Walk {
            access: access.unwrap_or(NEVER_USED),
            ttl: flags.ttl.map(|t| expiry::expires_at(t, now)),
            vivify: vivify.filter(|_| created),
            recache: flags.recache.map(|r| expiry::expires_at(r, now)),
            now,
        };
        // Builds the whole reply for a found item; returns its final expiry.
        let reply = |item: &ItemRef<'_>, out: &mut BytesMut| -> Option<u64> {
            let start = if created { None } else { item.expires_at };
            let mut line = Vec::with_capacity(64);
            let (recache_win, final_expiry) = put_head(flags, item, start, &walk, &mut line);
            let verdict = if created {
                let sent = Mark {
                    stale: false,
                    token_sent: true,
                };
                shared.marks.set(key, item.cas, sent);
                Verdict {
                    won: true,
                    ..Verdict::default()
                }
            } else {
                shared.marks.read(key, item.cas, recache_win)
            };
            put_tail(flags, item, verdict, line, out);
            final_expiry
        };
        let hit = if walk.ttl.is_some() {
            store
                .update(key, |old| match old {
                    Some(item) => (Mutation::SetExpiry(reply(&item, out)), true),
                    None => (Mutation::Keep, false),
                })
                .unwrap_or(false)
        } else if flags.no_bump {
            store.peek(key, |item| reply(&item, out)).is_some()
        } else {
            store.get(key, |item| reply(&item, out)).is_some()
        };

        // A deferred attempt's reply is discarded: it counts when it runs again.
        let count = !strata_kv::fetch::deferred();
        match (hit, walk.ttl.is_some()) {
            (true, true) if count => {
                stats.cmd_touch.incr();
                stats.touch_hits.incr();
            }
            (true, false) if count => {
                stats.cmd_get.incr();
                stats.get_hits.incr();
                shared.prefixes.record_get(key, true);
            }
            (true, _) => {}
            (false, _) => {
                if count {
                    stats.cmd_get.incr();
                    stats.get_misses.incr();
                    shared.prefixes.record_get(key, false);
                }
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

/// The expiries memcached applies while it walks the flags in order: `T`
/// sets the new TTL at its position, `N` the TTL of a just-created item
/// (which has none before), so a `t` before them reports the old TTL, and
/// `R` compares against the TTL at its position.
struct Walk {
    /// The item's access record before this request.
    access: Access,
    ttl: Option<Option<u64>>,
    vivify: Option<Option<u64>>,
    recache: Option<Option<u64>>,
    now: u64,
}

/// What `h` and `l` report for an item with no access record yet (one
/// created by this very request with `N`).
const NEVER_USED: Access = Access {
    fetched: false,
    idle_secs: 0,
};

/// Appends `VA <size>`/`HD` and the requested flags, in request order.
/// Returns whether an `R` flag wins the recache token (if not already sent)
/// and the item's expiry after the walk.
fn put_head(
    flags: &MetaFlags<'_>,
    item: &ItemRef<'_>,
    start: Option<u64>,
    walk: &Walk,
    line: &mut Vec<u8>,
) -> (bool, Option<u64>) {
    if flags.value {
        line.extend_from_slice(b"VA ");
        line.extend_from_slice(itoa::Buffer::new().format(item.value.len()).as_bytes());
    } else {
        line.extend_from_slice(b"HD");
    }
    let mut expires_at = start;
    let mut recache_win = false;
    let mut num = itoa::Buffer::new();
    for word in flags.words() {
        let mut number = |tag: u8, text: &str| {
            line.push(b' ');
            line.push(tag);
            line.extend_from_slice(text.as_bytes());
        };
        match word[0] {
            b'T' => expires_at = walk.ttl.unwrap_or(expires_at),
            b'N' => expires_at = walk.vivify.unwrap_or(expires_at),
            b'R' => {
                if let (Some(at), Some(Some(threshold))) = (expires_at, walk.recache) {
                    recache_win |= walk.vivify.is_none() && at < threshold;
                }
            }
            b's' => number(b's', num.format(item.value.len())),
            b't' => number(b't', num.format(expiry::ttl_secs(expires_at, walk.now))),
            b'c' => number(b'c', num.format(item.cas)),
            b'f' => number(b'f', num.format(item.flags)),
            b'h' => number(b'h', if walk.access.fetched { "1" } else { "0" }),
            b'l' => number(b'l', num.format(walk.access.idle_secs)),
            _ => flags.put_opaque_and_key(word, line),
        }
    }
    (recache_win, expires_at)
}

/// Appends the recache flags (`Z`, `X`, `W`), ends the line, and appends
/// the value when asked for.
fn put_tail(
    flags: &MetaFlags<'_>,
    item: &ItemRef<'_>,
    verdict: Verdict,
    mut line: Vec<u8>,
    out: &mut BytesMut,
) {
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
        let walk = Walk {
            access: Access {
                fetched: true,
                idle_secs: 12,
            },
            ttl: None,
            vivify: None,
            recache: None,
            now: 1_000,
        };
        let mut line = Vec::new();
        put_head(&mg.flags, &item, item.expires_at, &walk, &mut line);
        let mut out = BytesMut::new();
        put_tail(&mg.flags, &item, verdict, line, &mut out);
        String::from_utf8(out.to_vec()).unwrap()
    }

    const ITEM: ItemRef<'static> = ItemRef {
        key: b"a",
        value: b"abc",
        kind: strata_kv::ValueKind::String,
        flags: 5,
        form: strata_kv::StringForm::Whole,
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
        assert_eq!(reply("mg a h l", ITEM, Verdict::default()), "HD h1 l12\r\n");
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
