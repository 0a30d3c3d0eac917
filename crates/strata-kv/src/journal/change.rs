//! The redo format: what one journal record body holds.
//!
//! A body is a sequence of changes, applied in order, all or none (a torn
//! record is dropped whole by the log). Each change is a tag byte followed by
//! LEB128 varints and raw bytes:
//!
//! ```text
//! PUT    = 1 | key_len | key | value_len | value | flags | cas | expiry
//! DELETE = 2 | key_len | key
//! EXPIRE = 3 | key_len | key | expiry
//! FLUSH  = 4
//! DELETE_CHUNK = 5 | key_len | key
//! ```
//! A PUT's `flags` carry the namespace of its key (a chunk of a large
//! collection, see [`crate::chunk`]); a chunk's delete has its own tag.
//!
//! `expiry` is 0 for none, else the absolute Unix millisecond (an item that
//! expires at 0 would never have been stored, so 0 is free to mean none).
//!
//! Changes record the resulting state of a key, never the operation (an
//! `INCR` is logged as the `PUT` of its result): applying a change twice, or
//! onto a state that already includes later changes of other keys, gives
//! the same result, which is what lets a fuzzy checkpoint plus the log
//! after its start reproduce the exact keyspace.

use crate::arena::get_varint;
use crate::chunk::Namespace;

/// Log record kind of a key-value change batch.
pub const KV_RECORD_KIND: u8 = 1;

const PUT: u8 = 1;
const DELETE: u8 = 2;
const EXPIRE: u8 = 3;
const FLUSH: u8 = 4;
const DELETE_CHUNK: u8 = 5;

/// One decoded change, borrowing from the record body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change<'a> {
    /// `key` now holds this item (its CAS version is kept across restarts).
    Put {
        /// The key.
        key: &'a [u8],
        /// The value.
        value: &'a [u8],
        /// Stored flags: memcached client flags and the value kind
        /// ([`stored_flags`](crate::item::stored_flags)).
        flags: u64,
        /// CAS version.
        cas: u64,
        /// Absolute expiry, Unix ms.
        expires_at: Option<u64>,
    },
    /// `key` no longer exists (deleted, expired or evicted).
    Delete {
        /// The key.
        key: &'a [u8],
    },
    /// `key`'s expiry changed; value and CAS are unchanged. No-op if absent.
    Expire {
        /// The key.
        key: &'a [u8],
        /// New absolute expiry, Unix ms; `None` to persist.
        expires_at: Option<u64>,
    },
    /// Every key was removed.
    Flush,
    /// The chunk `key` of a large collection no longer exists.
    DeleteChunk {
        /// The chunk's key.
        key: &'a [u8],
    },
}

/// A body that does not decode: the offset of the bad change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("malformed key-value change at byte {offset} of a log record")]
pub struct BadChange {
    /// Byte offset of the change that failed to decode.
    pub offset: usize,
}

fn push_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

fn push_bytes(buf: &mut Vec<u8>, bytes: &[u8]) {
    push_varint(buf, bytes.len() as u64);
    buf.extend_from_slice(bytes);
}

/// Appends the encoding of a put of `value_parts` (concatenated).
pub(crate) fn encode_put(
    buf: &mut Vec<u8>,
    key: &[u8],
    value: &[u8],
    flags: u64,
    cas: u64,
    expires_at: Option<u64>,
) {
    buf.push(PUT);
    push_bytes(buf, key);
    push_bytes(buf, value);
    push_varint(buf, flags);
    push_varint(buf, cas);
    push_varint(buf, expires_at.unwrap_or(0));
}

/// Appends the encoding of a delete.
pub(crate) fn encode_delete(buf: &mut Vec<u8>, key: &[u8]) {
    buf.push(DELETE);
    push_bytes(buf, key);
}

/// Appends the encoding of a delete of `key` in `ns`.
pub(crate) fn encode_delete_in(buf: &mut Vec<u8>, ns: Namespace, key: &[u8]) {
    buf.push(match ns {
        Namespace::User => DELETE,
        Namespace::Chunk => DELETE_CHUNK,
    });
    push_bytes(buf, key);
}

/// Appends the encoding of an expiry change.
pub(crate) fn encode_expire(buf: &mut Vec<u8>, key: &[u8], expires_at: Option<u64>) {
    buf.push(EXPIRE);
    push_bytes(buf, key);
    push_varint(buf, expires_at.unwrap_or(0));
}

/// Appends the encoding of a flush.
pub(crate) fn encode_flush(buf: &mut Vec<u8>) {
    buf.push(FLUSH);
}

impl Change<'_> {
    /// Appends this change's encoding to `buf`.
    pub fn encode(&self, buf: &mut Vec<u8>) {
        match *self {
            Change::Put {
                key,
                value,
                flags,
                cas,
                expires_at,
            } => encode_put(buf, key, value, flags, cas, expires_at),
            Change::Delete { key } => encode_delete(buf, key),
            Change::Expire { key, expires_at } => encode_expire(buf, key, expires_at),
            Change::Flush => encode_flush(buf),
            Change::DeleteChunk { key } => encode_delete_in(buf, Namespace::Chunk, key),
        }
    }
}

/// Iterates over the changes of a record body.
pub fn decode(body: &[u8]) -> Changes<'_> {
    Changes { body, pos: 0 }
}

/// Iterator returned by [`decode`]; yields an error (once) on a malformed body.
#[derive(Debug, Clone)]
pub struct Changes<'a> {
    body: &'a [u8],
    pos: usize,
}

impl<'a> Changes<'a> {
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(get_varint(self.body, &mut self.pos)?).ok()?;
        let end = self.pos.checked_add(len)?;
        let bytes = self.body.get(self.pos..end)?;
        self.pos = end;
        Some(bytes)
    }

    fn expiry(&mut self) -> Option<Option<u64>> {
        let at = get_varint(self.body, &mut self.pos)?;
        Some((at != 0).then_some(at))
    }

    fn change(&mut self) -> Option<Change<'a>> {
        let tag = *self.body.get(self.pos)?;
        self.pos += 1;
        Some(match tag {
            PUT => Change::Put {
                key: self.bytes()?,
                value: self.bytes()?,
                flags: get_varint(self.body, &mut self.pos)?,
                cas: get_varint(self.body, &mut self.pos)?,
                expires_at: self.expiry()?,
            },
            DELETE => Change::Delete { key: self.bytes()? },
            EXPIRE => Change::Expire {
                key: self.bytes()?,
                expires_at: self.expiry()?,
            },
            FLUSH => Change::Flush,
            DELETE_CHUNK => Change::DeleteChunk { key: self.bytes()? },
            _ => return None,
        })
    }
}

impl<'a> Iterator for Changes<'a> {
    type Item = Result<Change<'a>, BadChange>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.body.len() {
            return None;
        }
        let start = self.pos;
        match self.change() {
            Some(change) => Some(Ok(change)),
            None => {
                self.pos = self.body.len(); // stop after reporting
                Some(Err(BadChange { offset: start }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Change<'static>> {
        vec![
            Change::Put {
                key: b"k",
                value: b"value",
                flags: 7,
                cas: 300,
                expires_at: Some(1_700_000_000_000),
            },
            Change::Put {
                key: b"empty",
                value: b"",
                flags: 0,
                cas: 1,
                expires_at: None,
            },
            Change::Delete { key: b"gone" },
            Change::Expire {
                key: b"k",
                expires_at: None,
            },
            Change::Flush,
            Change::DeleteChunk {
                key: b"k\0\0\0\x01",
            },
        ]
    }

    #[test]
    fn changes_roundtrip() {
        let mut buf = Vec::new();
        for change in all() {
            change.encode(&mut buf);
        }
        let back: Vec<_> = decode(&buf).collect::<Result<_, _>>().unwrap();
        assert_eq!(back, all());
    }

    /// The format is on disk: this exact encoding must keep decoding.
    #[test]
    fn format_fixture_still_decodes() {
        let fixture: &[u8] = &[
            1, 1, b'k', 5, b'v', b'a', b'l', b'u', b'e', 7, 0xac, 0x02, 0x80, 0xd0, 0x95, 0xff,
            0xbc, 0x31, // PUT k=value flags 7 cas 300 expiry 1_700_000_000_000
            1, 5, b'e', b'm', b'p', b't', b'y', 0, 0, 1, 0, // PUT empty
            2, 4, b'g', b'o', b'n', b'e', // DELETE gone
            3, 1, b'k', 0, // EXPIRE k none
            4, // FLUSH
            5, 5, b'k', 0, 0, 0, 1, // DELETE_CHUNK
        ];
        let back: Vec<_> = decode(fixture).collect::<Result<_, _>>().unwrap();
        assert_eq!(back, all());
        let mut buf = Vec::new();
        for change in all() {
            change.encode(&mut buf);
        }
        assert_eq!(buf, fixture);
    }

    #[test]
    fn every_truncation_and_bad_tag_is_an_error_not_a_panic() {
        let mut buf = Vec::new();
        for change in all() {
            change.encode(&mut buf);
        }
        for cut in 0..buf.len() {
            let _ = decode(&buf[..cut]).count();
        }
        assert_eq!(decode(&[9]).next(), Some(Err(BadChange { offset: 0 })));
        assert!(
            decode(&[1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
                .any(|c| c.is_err())
        );
    }
}
