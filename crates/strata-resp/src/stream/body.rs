//! [`Body`]: a stream's entries as a sequence of nodes (see `node.rs`),
//! either all in hand (a packed stream, one record) or read on demand from
//! the chunks of a large stream (one chunk per node, numbered around a
//! [`Ring`] so that trimming the front and appending at the back renumber
//! nothing).
//!
//! Invariants: entries rise across nodes as within them; `len` counts them
//! and `first_id` is the first one's identifier (`0-0` when empty, Redis's
//! `first_id`). An end node that `XDEL` empties is dropped; a middle one
//! stays, empty, until a trim reaches it (the ring cannot lose a middle
//! number), and every walk skips it. Finding an identifier is a binary search over
//! nodes (each probe reads one node), so a command reads the nodes it
//! needs, not the stream. Removal from the ends (trims, emptied end
//! nodes) is `cut.rs`'s.

use std::collections::HashMap;

use strata_kv::chunk::{Ring, RING};
use strata_kv::ChunkSource;

use super::held::Node;
use super::id::StreamId;
use super::node::{self, Entry, NODE_BYTES, NODE_ENTRIES};

/// What the last node of a large stream is padded to where records are
/// rewritten in place (DRAM): a node of small entries stays within it
/// while it fills, so each append overwrites its record instead of
/// writing a new one. At most the engine's 4 KiB of padding.
pub const NODE_PAD: usize = 4096;
use crate::reply::{RespError, StreamError};

/// A stream's entries.
pub struct Body<'s> {
    /// Where absent nodes are read from (`None`: a packed stream, every
    /// node in hand).
    source: Option<&'s dyn ChunkSource>,
    /// Node positions to chunk numbers.
    pub(super) ring: Ring,
    /// Nodes in hand, by chunk number.
    pub(super) nodes: HashMap<u32, Node>,
    /// Entries appended to the last node, deleted ones included (Redis
    /// counts them when it decides whether the node is full).
    pub(super) tail_used: u32,
    pub(super) len: u64,
    pub(super) first_id: StreamId,
    /// Entries of the node at position 0 as the head recorded them, while
    /// that node has not moved; `None` when unknown (see
    /// [`Body::front_len`]).
    pub(super) front_hint: Option<u32>,
}

impl std::fmt::Debug for Body<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Body")
            .field("chunked", &self.source.is_some())
            .field("ring", &self.ring)
            .field("len", &self.len)
            .finish()
    }
}

fn damaged() -> RespError {
    StreamError::Damaged.into()
}

impl<'s> Body<'s> {
    /// A packed body holding `nodes` (in order).
    pub(super) fn packed(nodes: Vec<Node>, tail_used: u32) -> Body<'s> {
        let len = nodes.iter().map(|n| n.len() as u64).sum();
        let first_id = nodes
            .iter()
            .find_map(Node::first_id)
            .unwrap_or(StreamId::MIN);
        let ring = Ring::dense(node::len32(nodes.len()));
        let nodes = (0..).zip(nodes).collect();
        Body {
            source: None,
            ring,
            nodes,
            tail_used,
            len,
            first_id,
            front_hint: None,
        }
    }

    /// A chunked body whose nodes are read from `source` when needed;
    /// `front_hint` is the first node's entry count as last written.
    pub(super) fn chunked(
        source: &'s dyn ChunkSource,
        ring: Ring,
        tail_used: u32,
        len: u64,
        first_id: StreamId,
        front_hint: u32,
    ) -> Body<'s> {
        Body {
            source: Some(source),
            ring,
            nodes: HashMap::new(),
            tail_used,
            len,
            first_id,
            front_hint: Some(front_hint),
        }
    }

    /// Entries of the node at position 0 (0 without nodes): from the node
    /// in hand, else from the head's record of it (the node cannot have
    /// changed without being taken in, and moving the front forgets the
    /// record), else read. An approximate `MAXLEN` trim decides with it,
    /// so `XADD` reads no front node while there is nothing to trim.
    pub(super) fn front_len(&mut self) -> Result<u32, RespError> {
        if self.ring.count == 0 {
            return Ok(0);
        }
        let number = self.ring.number(0);
        match (self.nodes.get(&number), self.front_hint) {
            (Some(n), _) => Ok(node::len32(n.len())),
            (None, Some(hint)) => Ok(hint),
            (None, None) => Ok(node::len32(self.node(0)?.len())),
        }
    }

    /// Whether the nodes live in chunks (a large stream).
    pub fn is_chunked(&self) -> bool {
        self.source.is_some()
    }

    /// Nodes, empty middle ones included.
    pub fn node_count(&self) -> u32 {
        self.ring.count
    }

    /// The node at position `pos` (< `ring.count`).
    pub(super) fn node(&mut self, pos: u32) -> Result<&mut Node, RespError> {
        use std::collections::hash_map::Entry as Slot;
        let number = self.ring.number(pos);
        match self.nodes.entry(number) {
            Slot::Occupied(n) => Ok(n.into_mut()),
            Slot::Vacant(slot) => {
                let source = self.source.ok_or_else(damaged)?;
                let value = source.chunk(number)?.ok_or_else(damaged)?;
                Ok(slot.insert(Node::from_stored(value).ok_or_else(damaged)?))
            }
        }
    }

    /// A position from which walking forward meets every entry at or after
    /// `id` and none before it: non-empty nodes before it end below `id`.
    fn locate(&mut self, id: StreamId) -> Result<u32, RespError> {
        if self.len == 0 || id <= self.first_id {
            return Ok(0);
        }
        let (mut lo, mut hi) = (0, self.ring.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let mut probe = mid;
            let mut last = None;
            while probe < hi {
                last = self.node(probe)?.last_id();
                if last.is_some() {
                    break;
                }
                probe += 1;
            }
            match last {
                Some(last) if last < id => lo = probe + 1,
                _ => hi = mid,
            }
        }
        Ok(lo)
    }

    /// Entries with identifiers in `start..=end`, at most `limit`, oldest
    /// first (newest first when `reverse`).
    pub fn range(
        &mut self,
        start: StreamId,
        end: StreamId,
        limit: usize,
        reverse: bool,
    ) -> Result<Vec<Entry>, RespError> {
        let mut out = Vec::new();
        if start > end || limit == 0 || self.len == 0 {
            return Ok(out);
        }
        if !reverse {
            let mut pos = self.locate(start)?;
            while pos < self.ring.count && out.len() < limit {
                for e in self.node(pos)?.views() {
                    if e.id() > end || out.len() == limit {
                        return Ok(out);
                    }
                    if e.id() >= start {
                        out.push(e.to_entry());
                    }
                }
                pos += 1;
            }
            return Ok(out);
        }
        // Nodes before `locate(end + 1)` end at or below `end`; the first
        // non-empty node from there may begin at or below it too.
        let mut pos = match end.next() {
            Some(after) => self.locate(after)?,
            None => self.ring.count,
        };
        while pos < self.ring.count && self.node(pos)?.is_empty() {
            pos += 1;
        }
        pos = pos.min(self.ring.count - 1);
        loop {
            for e in self.node(pos)?.views().iter().rev() {
                if e.id() < start || out.len() == limit {
                    return Ok(out);
                }
                if e.id() <= end {
                    out.push(e.to_entry());
                }
            }
            if pos == 0 {
                return Ok(out);
            }
            pos -= 1;
        }
    }

    /// The entry `id`, if the stream holds it.
    pub fn entry(&mut self, id: StreamId) -> Result<Option<Entry>, RespError> {
        Ok(self.range(id, id, 1, false)?.pop())
    }

    /// Whether entry `id` is held.
    pub fn contains(&mut self, id: StreamId) -> Result<bool, RespError> {
        let mut pos = self.locate(id)?;
        while pos < self.ring.count {
            let node = self.node(pos)?;
            if !node.is_empty() {
                let views = node.views();
                return Ok(views.binary_search_by(|e| e.id().cmp(&id)).is_ok());
            }
            pos += 1;
        }
        Ok(false)
    }

    /// Appends an entry (its identifier above every one held).
    pub fn append(&mut self, id: StreamId, fields: Vec<Vec<u8>>) -> Result<(), RespError> {
        let entry = Entry { id, fields };
        let open_new = self.ring.count == 0 || self.tail_used >= NODE_ENTRIES || {
            self.node(self.ring.count - 1)?.stored_len() >= NODE_BYTES
        };
        if open_new {
            if self.ring.count >= RING - 1 {
                return Err(RespError::Engine(strata_kv::KvError::TooLarge {
                    size: self.ring.count as usize,
                    limit: RING as usize,
                }));
            }
            if self.ring.count > 0 {
                // The old last node was stored padded (room to grow in
                // place): written again as long as it is, once.
                self.node(self.ring.count - 1)?.dirty = true;
            }
            self.ring.count += 1;
            let number = self.ring.number(self.ring.count - 1);
            self.nodes.insert(number, Node::with(entry));
            self.tail_used = 1;
        } else {
            self.node(self.ring.count - 1)?.push(entry);
            self.tail_used += 1;
        }
        self.len += 1;
        if self.len == 1 {
            self.first_id = id;
        }
        Ok(())
    }

    /// Deletes entry `id`; whether it was there.
    pub fn delete(&mut self, id: StreamId) -> Result<bool, RespError> {
        let mut pos = self.locate(id)?;
        while pos < self.ring.count && self.node(pos)?.is_empty() {
            pos += 1;
        }
        if pos == self.ring.count {
            return Ok(false);
        }
        let node = self.node(pos)?;
        if node.views().binary_search_by(|e| e.id().cmp(&id)).is_err() {
            return Ok(false);
        }
        let entries = node.entries_mut();
        if let Ok(at) = entries.binary_search_by(|e| e.id.cmp(&id)) {
            entries.remove(at);
        }
        node.edited();
        let emptied = node.is_empty();
        self.len = self.len.saturating_sub(1);
        if emptied {
            self.drop_empty_ends()?;
        }
        if id == self.first_id {
            self.refresh_first()?;
        }
        if self.len == 0 {
            self.tail_used = 0;
        }
        Ok(true)
    }

    /// The identifier of each non-empty node's first entry (Redis keys its
    /// nodes by them), reading every node.
    pub fn node_first_ids(&mut self) -> Result<Vec<StreamId>, RespError> {
        let mut ids = Vec::new();
        for pos in 0..self.ring.count {
            if let Some(id) = self.node(pos)?.first_id() {
                ids.push(id);
            }
        }
        Ok(ids)
    }

    /// Node positions to chunk numbers.
    pub fn ring(&self) -> Ring {
        self.ring
    }

    /// Numbers every node `0..n` and marks it changed, so that a packed
    /// body (every node in hand) is written whole as chunks.
    pub fn renumber_all(&mut self) {
        let ring = self.ring;
        let mut nodes = HashMap::with_capacity(self.nodes.len());
        for (i, number) in ring.numbers().enumerate() {
            if let Some(mut n) = self.nodes.remove(&number) {
                n.dirty = true;
                nodes.insert(node::len32(i), n);
            }
        }
        self.nodes = nodes;
        self.ring = Ring::dense(ring.count);
    }

    /// The stored form of each changed node still in the ring, by chunk
    /// number, and whether it is the last node (stored padded to
    /// [`NODE_PAD`] where records are rewritten in place, so appends
    /// overwrite it).
    pub fn changed_chunks(&self) -> Vec<(u32, Vec<u8>, bool)> {
        let last = self
            .ring
            .count
            .checked_sub(1)
            .map(|pos| self.ring.number(pos));
        self.ring
            .numbers()
            .filter_map(|n| {
                let node = self.nodes.get(&n).filter(|x| x.dirty)?;
                Some((n, node.stored(), Some(n) == last))
            })
            .collect()
    }

    /// Every node in order (a packed body has them all in hand).
    pub(super) fn all_nodes(&mut self) -> Result<Vec<&Node>, RespError> {
        for pos in 0..self.ring.count {
            self.node(pos)?;
        }
        let ring = self.ring;
        Ok(ring.numbers().filter_map(|n| self.nodes.get(&n)).collect())
    }
}

#[cfg(test)]
#[path = "body_tests.rs"]
mod tests;
