//! A node: a run of consecutive entries stored together, as Redis stores
//! them in one listpack. Its stored form (a chunk of a large stream, or a
//! part of a packed one) is a [`HEADER`] (the entry count and the bytes of
//! the entries, u32 each, and the last entry's id, `0-0` when empty), then
//! each entry: id (two u64), field count (u32), each field (u32 length,
//! bytes), little-endian. The header lets a node be taken in without
//! walking its entries (an `XADD` appends after them, a search over nodes
//! needs their last ids). A node in hand is `held.rs`'s.

use super::id::StreamId;

/// One entry: its identifier and fields and values alternating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The identifier.
    pub id: StreamId,
    /// Field, value, field, value, ...
    pub fields: Vec<Vec<u8>>,
}

/// Entries a node holds at most: Redis's default
/// `stream-node-max-entries`.
pub const NODE_ENTRIES: u32 = 100;

/// Stored bytes past which a node takes no more entries. Redis closes a
/// node at 4 KiB of listpack (`stream-node-max-bytes`); Strata's encoding
/// of the same entries is about twice as long.
pub const NODE_BYTES: usize = 8 << 10;

/// Bytes before a node's entries: count, entry bytes, last id.
pub const HEADER: usize = 24;

/// Stored bytes of an entry without fields, the least one takes.
pub const MIN_ENTRY: usize = 20;

/// Stored bytes of one entry.
pub fn entry_len(e: &Entry) -> usize {
    MIN_ENTRY + e.fields.iter().map(|f| 4 + f.len()).sum::<usize>()
}

/// A node's header as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Entries.
    pub count: u32,
    /// Bytes of the entries after the header.
    pub bytes: u32,
    /// The last entry's id (`0-0` when empty).
    pub last: StreamId,
}

impl Header {
    /// The header at the front of `r`.
    pub fn read(r: &mut Reader<'_>) -> Option<Header> {
        Some(Header {
            count: r.u32()?,
            bytes: r.u32()?,
            last: r.id()?,
        })
    }

    /// Writes the header of the node stored in `raw` (header and entries,
    /// nothing after), holding `count` entries up to `last`.
    pub fn write(raw: &mut [u8], count: u32, last: StreamId) {
        let bytes = len32(raw.len().saturating_sub(HEADER));
        let mut w = Vec::with_capacity(HEADER);
        put_u32(&mut w, count);
        put_u32(&mut w, bytes);
        put_u64(&mut w, last.ms);
        put_u64(&mut w, last.seq);
        if let Some(head) = raw.get_mut(..HEADER) {
            head.copy_from_slice(&w);
        }
    }
}

/// Appends the stored form of `entries` to `w`.
pub fn encode_into(w: &mut Vec<u8>, entries: &[Entry]) {
    let start = w.len();
    w.resize(start + HEADER, 0);
    for e in entries {
        encode_entry(w, e);
    }
    let last = entries.last().map_or(StreamId::MIN, |e| e.id);
    Header::write(&mut w[start..], len32(entries.len()), last);
}

/// Appends the stored form of one entry (not the node's count) to `w`.
pub fn encode_entry(w: &mut Vec<u8>, e: &Entry) {
    put_u64(w, e.id.ms);
    put_u64(w, e.id.seq);
    put_u32(w, len32(e.fields.len()));
    for f in &e.fields {
        put_u32(w, len32(f.len()));
        w.extend_from_slice(f);
    }
}

/// The stored form of `entries`.
pub fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut w = Vec::with_capacity(HEADER + entries.iter().map(entry_len).sum::<usize>());
    encode_into(&mut w, entries);
    w
}

/// Takes the stored bytes of one node (header and entries) from the
/// front of `r`; `None` when they run out.
pub fn split_from<'a>(r: &mut Reader<'a>) -> Option<&'a [u8]> {
    let start = r.0;
    let header = Header::read(r)?;
    r.take(usize::try_from(header.bytes).ok()?)?;
    Some(&start[..start.len() - r.0.len()])
}

/// A length as stored; the keyspace bounds values far below this.
pub fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Appends `n`.
pub fn put_u32(w: &mut Vec<u8>, n: u32) {
    w.extend_from_slice(&n.to_le_bytes());
}

/// Appends `n`.
pub fn put_u64(w: &mut Vec<u8>, n: u64) {
    w.extend_from_slice(&n.to_le_bytes());
}

/// Appends `id` (milliseconds, then sequence).
pub fn put_id(w: &mut Vec<u8>, id: StreamId) {
    put_u64(w, id.ms);
    put_u64(w, id.seq);
}

/// Reads from the front of a stored value; every read checks what is
/// left, so a damaged value is refused, never trusted to size anything.
pub struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    /// A byte.
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    /// A u32.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// A u64.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// An identifier.
    pub fn id(&mut self) -> Option<StreamId> {
        Some(StreamId::new(self.u64()?, self.u64()?))
    }

    /// A length-prefixed byte string.
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u32()?).ok()?;
        self.take(n)
    }
}
