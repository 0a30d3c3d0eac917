//! [`Tree`]: a sorted set's order tree, a B+-tree of chunk records (nodes
//! of [`order`](super::order)) whose interior entries count the keys
//! under each child, so a rank is found, and a rank reached, reading one
//! node per level.
//!
//! The tree's nodes are chunks `base..base + nodes`, after the member
//! buckets `0..base` ([`Hashed`](super::Hashed)), so a collection's chunks
//! stay numbered densely. Two moves keep them so:
//! - a bucket split appends bucket `base`: the node there moves to
//!   `base + nodes` ([`bucket_added`](Tree::bucket_added));
//! - a freed node's number is filled by the last node
//!   ([`release`](Tree::release)).
//!
//! A moved node's parent is found by descending from the root with the
//! first key of the node's leftmost leaf, and its pointer fixed: a move
//! reads and writes O(depth) nodes. A change reads one path; a node past
//! [`TARGET_NODE`](super::TARGET_NODE) bytes is split (the root too, adding a level); a leaf
//! under a quarter of that is merged with a sibling when both fit in one;
//! an empty node is freed and a root with one child gives way to it.
//! Interior nodes are not merged (a simplification: a tree that shrank
//! may keep its depth, bounded by its largest size, until it empties).
//!
//! Nodes read are kept decoded while the command runs; changed ones are
//! written once, at [`write`](Tree::write). `walk.rs` reads by rank,
//! `change.rs` inserts, removes and moves nodes.

use std::collections::HashMap;

mod change;
mod walk;

use super::order::{compare, Child, Node};
use crate::item::ValueKind;
use crate::shard::large::LargeEdit;
use crate::shard::large_read::ChunkSource;
use crate::KvError;

/// Deepest tree walked before the chunks are deemed damaged (a cycle).
const MAX_DEPTH: usize = 64;

struct Cached {
    node: Node,
    dirty: bool,
}

/// The order tree of one sorted set, as one command sees it.
pub(crate) struct Tree {
    /// Chunk number of the root.
    pub root: u32,
    /// First chunk number of the tree (= member buckets).
    pub base: u32,
    /// Nodes: chunks `base..base + nodes`.
    pub nodes: u32,
    cache: HashMap<u32, Cached>,
}

fn damaged(what: &str) -> KvError {
    KvError::Storage {
        cause: format!("a sorted set's order tree is damaged: {what}"),
    }
}

/// The child of `children` that would hold `key`.
fn child_for(children: &[Child], key: (f64, &[u8])) -> usize {
    children[1..].partition_point(|c| compare((c.key.0, &c.key.1), key).is_le())
}

impl Tree {
    /// A tree read from a head: `nodes` nodes from `base`, root `root`.
    pub fn new(root: u32, base: u32, nodes: u32) -> Self {
        Self {
            root,
            base,
            nodes,
            cache: HashMap::new(),
        }
    }

    /// A tree of one empty leaf at chunk `base`.
    pub fn empty(base: u32) -> Self {
        let mut tree = Self::new(base, base, 1);
        let leaf = Cached {
            node: Node::Leaf(Vec::new()),
            dirty: true,
        };
        tree.cache.insert(base, leaf);
        tree
    }

    fn cached<E: ChunkSource>(&mut self, src: &E, n: u32) -> Result<&mut Cached, KvError> {
        if !self.cache.contains_key(&n) {
            if n < self.base || n - self.base >= self.nodes {
                return Err(damaged("a child outside the tree"));
            }
            let bytes = src.chunk(n)?.ok_or_else(|| damaged("a missing node"))?;
            let node = Node::decode(&bytes).ok_or_else(|| damaged("a node does not decode"))?;
            self.cache.insert(n, Cached { node, dirty: false });
        }
        self.cache
            .get_mut(&n)
            .ok_or_else(|| damaged("a node vanished"))
    }

    fn node<E: ChunkSource>(&mut self, src: &E, n: u32) -> Result<&Node, KvError> {
        Ok(&self.cached(src, n)?.node)
    }

    fn children_mut<E: ChunkSource>(
        &mut self,
        src: &E,
        n: u32,
    ) -> Result<&mut Vec<Child>, KvError> {
        let cached = self.cached(src, n)?;
        cached.dirty = true;
        match &mut cached.node {
            Node::Inner(children) => Ok(children),
            Node::Leaf(_) => Err(damaged("a leaf where a node was expected")),
        }
    }

    /// The path of (node, child index) from the root to the leaf for
    /// `key`, and that leaf.
    fn descend<E: ChunkSource>(
        &mut self,
        src: &E,
        key: (f64, &[u8]),
    ) -> Result<(Vec<(u32, usize)>, u32), KvError> {
        let (mut path, mut n) = (Vec::new(), self.root);
        for _ in 0..MAX_DEPTH {
            match self.node(src, n)? {
                Node::Leaf(_) => return Ok((path, n)),
                Node::Inner(children) => {
                    let i = child_for(children, key);
                    path.push((n, i));
                    n = children[i].number;
                }
            }
        }
        Err(damaged("too deep"))
    }

    /// Writes the changed nodes as chunks of a sorted set.
    pub fn write(&mut self, edit: &mut LargeEdit<'_>) -> Result<(), KvError> {
        let end = self.base + self.nodes;
        let mut changed: Vec<u32> = self
            .cache
            .iter()
            .filter(|(n, c)| c.dirty && (self.base..end).contains(*n))
            .map(|(n, _)| *n)
            .collect();
        changed.sort_unstable();
        for n in changed {
            if let Some(cached) = self.cache.get_mut(&n) {
                cached.dirty = false;
                edit.put_chunk(n, ValueKind::SortedSet, &cached.node.encode())?;
            }
        }
        Ok(())
    }
}
