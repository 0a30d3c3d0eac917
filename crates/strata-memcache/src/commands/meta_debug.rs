//! `me <key> [b]`: meta debug, a human-readable line about an item:
//! `ME <key> exp=<ttl|-1> la=<secs> cas=<cas> fetch=<yes|no> cls=<class> size=<n>`,
//! or `EN` on a miss. `la` (seconds since last access) and `fetch` (hit
//! since written) come from the engine's access records, read without
//! counting an access; `size` is the key and value lengths plus
//! memcached's typical 48-byte item header; `cls` is the item's size class
//! (`strata_kv::size_class`, as `stats items` reports them).

use bytes::{BufMut, BytesMut};
use strata_kv::{size_class, Access, Store};

use crate::base64;
use crate::codec::Tokens;
use crate::expiry;
use crate::reply::Error;
use crate::shared::Shared;
use crate::syntax::ParseError;

/// Approximate per-item overhead reported in `size=`.
const ITEM_HEADER: usize = 48;

/// A parsed `me`.
#[derive(Debug)]
pub struct MetaDebug {
    key: Vec<u8>,
}

impl MetaDebug {
    /// Parses the line.
    pub fn parse(tokens: &Tokens<'_>) -> Result<Self, ParseError> {
        let raw_key = tokens.get(1);
        if !(2..=3).contains(&tokens.len()) || !crate::syntax::valid_key(raw_key) {
            return Err(Error::BadFormat.into());
        }
        let base64 = tokens.get(2) == b"b";
        let key = if base64 {
            base64::decode(raw_key).ok_or(Error::KeyDecode)?
        } else {
            raw_key.to_vec()
        };
        Ok(Self { key })
    }

    /// Describes the item.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        shared.stats.cmd_meta.incr();
        let now = shared.keyspace.now_ms();
        let mut store = shared.keyspace.store();
        let access = store.access(&self.key).unwrap_or(Access {
            fetched: false,
            idle_secs: 0,
        });
        let found = store.peek(&self.key, |item| {
            let exp = expiry::ttl_secs(item.expires_at, now);
            let size = item.key.len() + item.value.len() + ITEM_HEADER;
            let (la, fetch) = (access.idle_secs, if access.fetched { "yes" } else { "no" });
            let cls = size_class::class_of(size_class::item_size(&item));
            format!(
                "exp={exp} la={la} cas={} fetch={fetch} cls={cls} size={size}",
                item.cas
            )
        });
        match found {
            Some(details) => {
                out.put_slice(b"ME ");
                // memcached prints keys as text unless they were stored as
                // binary; Strata does not record that, so it encodes only
                // keys that cannot be printed.
                if self.key.iter().all(|b| b.is_ascii_graphic()) {
                    out.put_slice(&self.key);
                } else {
                    let mut encoded = Vec::new();
                    base64::encode_into(&self.key, &mut encoded);
                    out.put_slice(&encoded);
                }
                out.put_u8(b' ');
                out.put_slice(details.as_bytes());
                out.put_slice(b"\r\n");
            }
            None => out.put_slice(b"EN\r\n"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        let p = |l: &str| {
            MetaDebug::parse(&Tokens::split(l.as_bytes()))
                .map(|m| m.key)
                .map_err(|e| e.error)
        };
        assert_eq!(p("me k"), Ok(b"k".to_vec()));
        assert_eq!(p("me YQ== b"), Ok(b"a".to_vec()));
        assert_eq!(p("me"), Err(Error::BadFormat));
        assert_eq!(p("me a b c"), Err(Error::BadFormat));
        assert_eq!(p("me a x"), Ok(b"a".to_vec()));
        assert_eq!(p("me a b"), Err(Error::KeyDecode));
        assert_eq!(p(&format!("me {}", "k".repeat(251))), Err(Error::BadFormat));
    }
}
