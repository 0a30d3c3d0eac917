//! A stream's stored values.
//!
//! Packed (one record, first byte 1): last id, max deleted id (two u64
//! each); entries added (u64); tail node use (u32); node count (u32) and
//! each node as `node.rs` stores it; the groups.
//! Large (the head of one chunk record per node, starting `00 C7 01`, which
//! no packed value does): last id, max deleted id, entries added, tail node
//! use, length (u64), first id, the ring of chunk numbers (first, count:
//! u32 each), the first node's entry count (u32); the groups.
//! Groups: count (u32) and each: name, last id, entries read (u64,
//! `u64::MAX` unknown), consumer count (u32) and each consumer: name, seen
//! time, active time (u64, `u64::MAX` never); pending count (u64) and each:
//! id, consumer index (u32), delivery time, delivery count.
//! Decoding checks every length against the bytes left, so a damaged value
//! is refused (`None`), never trusted to size an allocation.

use std::collections::BTreeMap;

use strata_kv::chunk::{Ring, RING};
use strata_kv::ChunkSource;

use super::body::Body;
use super::held::Node;
use super::id::StreamId;
use super::model::{Consumer, Group, Pending, Stream};
use super::node::{self, len32, put_u32, put_u64, Reader};
use crate::reply::RespError;

const VERSION: u8 = 1;
const HEAD_MAGIC: [u8; 3] = [0x00, 0xC7, 0x01];

/// Whether `value` (a stream's stored value) is a large stream's head.
pub fn is_head(value: &[u8]) -> bool {
    value.starts_with(&HEAD_MAGIC)
}

fn put_id(w: &mut Vec<u8>, id: StreamId) {
    put_u64(w, id.ms);
    put_u64(w, id.seq);
}

fn put_bytes(w: &mut Vec<u8>, b: &[u8]) {
    put_u32(w, len32(b.len()));
    w.extend_from_slice(b);
}

fn put_counters(w: &mut Vec<u8>, stream: &Stream<'_>) {
    put_id(w, stream.last_id);
    put_id(w, stream.max_deleted);
    put_u64(w, stream.entries_added);
    put_u32(w, stream.body.tail_used);
}

/// The packed value of `stream` (every node in one record).
pub fn encode_packed(stream: &mut Stream<'_>) -> Result<Vec<u8>, RespError> {
    let mut w = vec![VERSION];
    put_counters(&mut w, stream);
    let nodes = stream.body.all_nodes()?;
    put_u32(&mut w, len32(nodes.len()));
    for n in nodes {
        n.store_into(&mut w);
    }
    put_groups(&mut w, &stream.groups);
    Ok(w)
}

/// The stream stored packed as `value`; `None` when it is damaged.
pub fn decode_packed(value: &[u8]) -> Option<Stream<'static>> {
    let mut r = Reader(value);
    if r.u8()? != VERSION {
        return None;
    }
    let counters = Counters::read(&mut r)?;
    let mut nodes = Vec::new();
    for _ in 0..r.u32()? {
        let raw = node::split_from(&mut r)?;
        nodes.push(Node::from_stored(raw.to_vec())?);
    }
    let body = Body::packed(nodes, counters.tail_used);
    finish(r, counters, body)
}

/// The head value of `stream` stored as chunks (its ring is the body's);
/// the first node is read when its count is not known otherwise.
pub fn encode_head(stream: &mut Stream<'_>) -> Result<Vec<u8>, RespError> {
    let front = stream.body.front_len()?;
    let mut w = HEAD_MAGIC.to_vec();
    put_counters(&mut w, stream);
    put_u64(&mut w, stream.body.len);
    put_id(&mut w, stream.body.first_id);
    put_u32(&mut w, stream.body.ring.first);
    put_u32(&mut w, stream.body.ring.count);
    put_u32(&mut w, front);
    put_groups(&mut w, &stream.groups);
    Ok(w)
}

/// The large stream whose head value is `value`, its nodes read from
/// `source` when needed; `None` when the head is damaged.
pub fn decode_head<'s>(value: &[u8], source: &'s dyn ChunkSource) -> Option<Stream<'s>> {
    let mut r = Reader(value.strip_prefix(&HEAD_MAGIC)?);
    let counters = Counters::read(&mut r)?;
    let (len, first_id) = (r.u64()?, r.id()?);
    let ring = Ring {
        first: r.u32()?,
        count: r.u32()?,
    };
    let front = r.u32()?;
    if ring.first >= RING || ring.count >= RING || u64::from(front) > len {
        return None;
    }
    let body = Body::chunked(source, ring, counters.tail_used, len, first_id, front);
    finish(r, counters, body)
}

/// The counters both forms start with.
struct Counters {
    last_id: StreamId,
    max_deleted: StreamId,
    entries_added: u64,
    tail_used: u32,
}

impl Counters {
    fn read(r: &mut Reader<'_>) -> Option<Counters> {
        Some(Counters {
            last_id: r.id()?,
            max_deleted: r.id()?,
            entries_added: r.u64()?,
            tail_used: r.u32()?,
        })
    }
}

/// The stream of `counters` and `body`, with the groups that end both
/// forms read from `r` (nothing may follow them).
fn finish<'s>(mut r: Reader<'_>, counters: Counters, body: Body<'s>) -> Option<Stream<'s>> {
    let groups = groups(&mut r)?;
    if !r.0.is_empty() {
        return None;
    }
    Some(Stream {
        last_id: counters.last_id,
        max_deleted: counters.max_deleted,
        entries_added: counters.entries_added,
        groups,
        body,
    })
}

fn put_groups(w: &mut Vec<u8>, groups: &[Group]) {
    put_u32(w, len32(groups.len()));
    for g in groups {
        put_bytes(w, &g.name);
        put_id(w, g.last_id);
        put_u64(w, g.entries_read.unwrap_or(u64::MAX));
        put_u32(w, len32(g.consumers.len()));
        for c in &g.consumers {
            put_bytes(w, &c.name);
            put_u64(w, c.seen_time);
            put_u64(w, c.active_time.unwrap_or(u64::MAX));
        }
        put_u64(w, g.pel.len() as u64);
        for (id, p) in &g.pel {
            put_id(w, *id);
            let index = g.consumers.iter().position(|c| c.name == p.consumer);
            put_u32(w, index.map_or(u32::MAX, len32));
            put_u64(w, p.delivery_time);
            put_u64(w, p.delivery_count);
        }
    }
}

fn groups(r: &mut Reader<'_>) -> Option<Vec<Group>> {
    let mut groups = Vec::new();
    for _ in 0..r.u32()? {
        groups.push(group(r)?);
    }
    Some(groups)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stream<'static> {
        let mut s = Stream::new();
        for ms in 1..=150 {
            s.append(StreamId::new(ms, 0), vec![b"f".to_vec(), b"v".to_vec()])
                .unwrap();
        }
        s.append(StreamId::new(200, 5), vec![b"a".to_vec(), Vec::new()])
            .unwrap();
        s.delete(StreamId::new(1, 0)).unwrap();
        let mut g = Group::new(b"g", StreamId::new(2, 5), Some(2));
        g.consumer_or_create(b"alice", 10);
        g.pel.insert(
            StreamId::new(200, 5),
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
    fn a_packed_stream_round_trips() {
        let bytes = encode_packed(&mut sample()).unwrap();
        let mut back = decode_packed(&bytes).unwrap();
        assert_eq!(back.len(), 150);
        assert_eq!(back.body.node_count(), 2);
        assert_eq!(back.first_id(), StreamId::new(2, 0));
        assert_eq!(back.groups, sample().groups);
        assert_eq!(encode_packed(&mut back).unwrap(), bytes);
        let empty = encode_packed(&mut Stream::new()).unwrap();
        assert_eq!(
            encode_packed(&mut decode_packed(&empty).unwrap()).unwrap(),
            empty
        );
        assert!(!is_head(&bytes));
    }

    #[test]
    fn every_truncation_and_a_huge_count_are_refused() {
        let bytes = encode_packed(&mut sample()).unwrap();
        for cut in 0..bytes.len() {
            assert!(decode_packed(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut huge = encode_packed(&mut Stream::new()).unwrap();
        huge[45..49].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_packed(&huge).is_none());
        let head = encode_head(&mut sample()).unwrap();
        assert!(is_head(&head));
        for cut in 0..head.len() {
            assert!(
                decode_head(&head[..cut], &NoChunks).is_none(),
                "cut at {cut}"
            );
        }
        let back = decode_head(&head, &NoChunks).unwrap();
        assert_eq!((back.len(), back.first_id()), (150, StreamId::new(2, 0)));
    }

    /// A source with no chunks (heads only).
    struct NoChunks;

    impl ChunkSource for NoChunks {
        fn current(&self) -> Result<Option<strata_kv::Current>, strata_kv::KvError> {
            Ok(None)
        }
        fn chunk(&self, _: u32) -> Result<Option<Vec<u8>>, strata_kv::KvError> {
            Ok(None)
        }
    }
}
