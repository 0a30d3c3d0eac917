//! A stream's stored value: [`encode`] and [`decode`] of a [`Stream`].
//!
//! Layout (little-endian): version `1`; last id, max deleted id (two u64
//! each); entries added (u64); tail node use (u32); entry count (u64) and
//! each entry: id, node-start byte, field count (u32), each field (u32
//! length, bytes); group count (u32) and each group: name, last id,
//! entries read (u64, `u64::MAX` unknown), consumer count (u32) and each
//! consumer: name, seen time, active time (u64, `u64::MAX` never); pending
//! count (u64) and each: id, consumer index (u32), delivery time, count.
//! Decoding checks every length against the bytes left, so a damaged value
//! is refused (`None`), never trusted to size an allocation.

use std::collections::BTreeMap;

use super::id::StreamId;
use super::model::{Consumer, Entry, Group, Pending, Stream};

const VERSION: u8 = 1;

/// The stored value of `stream`.
pub fn encode(stream: &Stream) -> Vec<u8> {
    let mut w = Vec::with_capacity(64 + stream.entries.len() * 48);
    w.push(VERSION);
    put_id(&mut w, stream.last_id);
    put_id(&mut w, stream.max_deleted);
    put_u64(&mut w, stream.entries_added);
    put_u32(&mut w, stream.tail_used);
    put_u64(&mut w, stream.len());
    for e in &stream.entries {
        put_id(&mut w, e.id);
        w.push(u8::from(e.node_start));
        put_u32(&mut w, len32(e.fields.len()));
        for f in &e.fields {
            put_bytes(&mut w, f);
        }
    }
    put_u32(&mut w, len32(stream.groups.len()));
    for g in &stream.groups {
        put_bytes(&mut w, &g.name);
        put_id(&mut w, g.last_id);
        put_u64(&mut w, g.entries_read.unwrap_or(u64::MAX));
        put_u32(&mut w, len32(g.consumers.len()));
        for c in &g.consumers {
            put_bytes(&mut w, &c.name);
            put_u64(&mut w, c.seen_time);
            put_u64(&mut w, c.active_time.unwrap_or(u64::MAX));
        }
        put_u64(&mut w, g.pel.len() as u64);
        for (id, p) in &g.pel {
            put_id(&mut w, *id);
            let index = g.consumers.iter().position(|c| c.name == p.consumer);
            put_u32(&mut w, index.map_or(u32::MAX, len32));
            put_u64(&mut w, p.delivery_time);
            put_u64(&mut w, p.delivery_count);
        }
    }
    w
}

/// The stream stored as `value`; `None` when it is damaged.
pub fn decode(value: &[u8]) -> Option<Stream> {
    let mut r = Reader(value);
    if r.u8()? != VERSION {
        return None;
    }
    let mut stream = Stream {
        last_id: r.id()?,
        max_deleted: r.id()?,
        entries_added: r.u64()?,
        tail_used: r.u32()?,
        ..Stream::default()
    };
    for _ in 0..r.u64()? {
        let id = r.id()?;
        let node_start = r.u8()? != 0;
        let n = r.u32()?;
        let mut fields = Vec::new();
        for _ in 0..n {
            fields.push(r.bytes()?.to_vec());
        }
        stream.entries.push(Entry {
            id,
            fields,
            node_start,
        });
    }
    for _ in 0..r.u32()? {
        stream.groups.push(group(&mut r)?);
    }
    r.0.is_empty().then_some(stream)
}

fn group(r: &mut Reader<'_>) -> Option<Group> {
    let name = r.bytes()?.to_vec();
    let last_id = r.id()?;
    let entries_read = Some(r.u64()?).filter(|&n| n != u64::MAX);
    let mut consumers = Vec::new();
    for _ in 0..r.u32()? {
        consumers.push(Consumer {
            name: r.bytes()?.to_vec(),
            seen_time: r.u64()?,
            active_time: Some(r.u64()?).filter(|&t| t != u64::MAX),
        });
    }
    let mut pel = BTreeMap::new();
    for _ in 0..r.u64()? {
        let id = r.id()?;
        let consumer = consumers.get(usize::try_from(r.u32()?).ok()?)?.name.clone();
        let pending = Pending {
            consumer,
            delivery_time: r.u64()?,
            delivery_count: r.u64()?,
        };
        pel.insert(id, pending);
    }
    Some(Group {
        name,
        last_id,
        entries_read,
        pel,
        consumers,
    })
}

/// A length as stored; the command layer bounds counts far below this.
fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn put_u32(w: &mut Vec<u8>, n: u32) {
    w.extend_from_slice(&n.to_le_bytes());
}

fn put_u64(w: &mut Vec<u8>, n: u64) {
    w.extend_from_slice(&n.to_le_bytes());
}

fn put_id(w: &mut Vec<u8>, id: StreamId) {
    put_u64(w, id.ms);
    put_u64(w, id.seq);
}

fn put_bytes(w: &mut Vec<u8>, b: &[u8]) {
    put_u32(w, len32(b.len()));
    w.extend_from_slice(b);
}

/// Reads from the front of a value; every read checks what is left.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn id(&mut self) -> Option<StreamId> {
        Some(StreamId::new(self.u64()?, self.u64()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u32()?).ok()?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stream {
        let mut s = Stream::default();
        s.append(StreamId::new(1, 0), vec![b"f".to_vec(), b"v".to_vec()]);
        s.append(StreamId::new(2, 5), vec![b"a".to_vec(), Vec::new()]);
        s.delete(StreamId::new(1, 0));
        let mut g = Group::new(b"g", StreamId::new(2, 5), Some(2));
        g.consumer_or_create(b"alice", 10);
        g.pel.insert(
            StreamId::new(2, 5),
            Pending {
                consumer: b"alice".to_vec(),
                delivery_time: 11,
                delivery_count: 3,
            },
        );
        assert!(s.add_group(g));
        assert!(s.add_group(Group::new(b"h", StreamId::MIN, None)));
        s
    }

    #[test]
    fn a_stream_round_trips() {
        let s = sample();
        assert_eq!(decode(&encode(&s)), Some(s));
        assert_eq!(decode(&encode(&Stream::default())), Some(Stream::default()));
    }

    #[test]
    fn every_truncation_and_a_huge_count_are_refused() {
        let bytes = encode(&sample());
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut huge = encode(&Stream::default());
        huge[45..53].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode(&huge), None);
    }
}
