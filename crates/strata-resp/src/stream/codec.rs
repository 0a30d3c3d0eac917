//! A stream's stored values.
//!
//! Packed (one record, first byte 1): last id, max deleted id (two u64
//! each); entries added (u64); tail node use (u32); node count (u32) and
//! each node as `node.rs` stores it; the groups with their pending
//! entries (`groups.rs`, version 1).
//! Large: the head of the stream's chunks, starting `00 C7 02`, which no
//! packed value does: last id, max deleted id, entries added, tail node
//! use, length (u64), first id, the entry nodes' ring (first, count: u32
//! each), the first node's entry count (u32), the pending entries' tree
//! (root's chunk number, `u32::MAX` when empty, and node count: u32
//! each; its nodes are the chunks right after the entry nodes, see
//! `pel/`), the groups without their pending entries (`groups.rs`,
//! version 2). Heads written before the tree (`00 C7 01`) end with the
//! version 1 groups instead, and have no tree fields; they are still
//! read (the first change writes the new form).
//! Decoding checks every length against the bytes left, so a damaged value
//! is refused (`None`), never trusted to size an allocation.

use strata_kv::chunk::{Ring, RING};
use strata_kv::ChunkSource;

use super::body::Body;
use super::groups::{put_groups_v1, put_groups_v2, read_groups_v1, read_groups_v2};
use super::held::Node;
use super::id::StreamId;
use super::model::{Group, Stream};
use super::node::{self, len32, put_id, put_u32, put_u64, Reader};
use super::pel::Pels;
use crate::reply::RespError;

const VERSION: u8 = 1;
/// A large stream's head written before the pending entries' tree.
const HEAD_MAGIC_V1: [u8; 3] = [0x00, 0xC7, 0x01];
const HEAD_MAGIC: [u8; 3] = [0x00, 0xC7, 0x02];
/// The tree's root when nothing is pending.
const NO_ROOT: u32 = u32::MAX;

/// Whether `value` (a stream's stored value) is a large stream's head.
pub fn is_head(value: &[u8]) -> bool {
    value.starts_with(&HEAD_MAGIC) || value.starts_with(&HEAD_MAGIC_V1)
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
    put_groups_v1(&mut w, &stream.groups, &mut stream.pels)?;
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
    let mut pels = Pels::in_hand();
    let groups = read_groups_v1(&mut r, &mut pels)?;
    finish(r, counters, body, groups, pels)
}

/// The head value of `stream` stored as chunks: its entry nodes' ring is
/// the body's, its tree's root and node count are the ones placed (the
/// tree must have been placed after the body changed); the first node
/// is read when its count is not known otherwise.
pub fn encode_head(stream: &mut Stream<'_>) -> Result<Vec<u8>, RespError> {
    let front = stream.body.front_len()?;
    let mut w = HEAD_MAGIC.to_vec();
    put_counters(&mut w, stream);
    put_u64(&mut w, stream.body.len);
    put_id(&mut w, stream.body.first_id);
    put_u32(&mut w, stream.body.ring.first);
    put_u32(&mut w, stream.body.ring.count);
    put_u32(&mut w, front);
    put_u32(&mut w, stream.pels.root().unwrap_or(NO_ROOT));
    put_u32(&mut w, stream.pels.count());
    put_groups_v2(&mut w, &stream.groups);
    Ok(w)
}

/// The large stream whose head value is `value` (a head of `chunks`
/// chunks), its nodes read from `source` when needed; `None` when the
/// head is damaged.
pub fn decode_head<'s>(
    value: &[u8],
    chunks: u32,
    source: &'s dyn ChunkSource,
) -> Option<Stream<'s>> {
    let (v1, rest) = match value.strip_prefix(&HEAD_MAGIC) {
        Some(rest) => (false, rest),
        None => (true, value.strip_prefix(&HEAD_MAGIC_V1)?),
    };
    let mut r = Reader(rest);
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
    if v1 {
        let mut pels = Pels::in_hand();
        let groups = read_groups_v1(&mut r, &mut pels)?;
        if ring.count != chunks {
            return None;
        }
        return finish(r, counters, body, groups, pels);
    }
    let root = Some(r.u32()?).filter(|&n| n != NO_ROOT);
    let tree = Ring {
        first: ring.number(ring.count),
        count: r.u32()?,
    };
    if ring.count.checked_add(tree.count)? != chunks {
        return None;
    }
    let pels = Pels::stored(source, tree, root)?;
    let groups = read_groups_v2(&mut r)?;
    finish(r, counters, body, groups, pels)
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

/// The stream of `counters`, `body`, `groups` and `pels`, read from `r`
/// (nothing may follow them).
fn finish<'s>(
    r: Reader<'_>,
    counters: Counters,
    body: Body<'s>,
    groups: Vec<Group>,
    pels: Pels<'s>,
) -> Option<Stream<'s>> {
    if !r.0.is_empty() {
        return None;
    }
    Some(Stream {
        last_id: counters.last_id,
        max_deleted: counters.max_deleted,
        entries_added: counters.entries_added,
        groups,
        pels,
        body,
    })
}

#[cfg(test)]
#[path = "codec_tests.rs"]
mod tests;
