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
//! [`TARGET_NODE`] bytes is split (the root too, adding a level); an empty
//! node is freed and a root with one child gives way to it. Nodes are not
//! merged with siblings otherwise (a simplification: a tree that shrank
//! keeps its depth until it empties).
//!
//! Nodes read are kept decoded while the command runs; changed ones are
//! written once, at [`write`](Tree::write).

use std::collections::HashMap;

use super::order::{compare, Child, Key, Node, TARGET_NODE};
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

    /// The rank of `key`; `None` when absent.
    pub fn rank<E: ChunkSource>(
        &mut self,
        src: &E,
        key: (f64, &[u8]),
    ) -> Result<Option<u64>, KvError> {
        let (mut n, mut before) = (self.root, 0u64);
        for _ in 0..MAX_DEPTH {
            match self.node(src, n)? {
                Node::Leaf(keys) => {
                    let at = keys.binary_search_by(|k| compare((k.0, &k.1), key));
                    return Ok(at.ok().map(|at| before + at as u64));
                }
                Node::Inner(children) => {
                    let i = child_for(children, key);
                    before += children[..i].iter().map(|c| c.count).sum::<u64>();
                    n = children[i].number;
                }
            }
        }
        Err(damaged("too deep"))
    }

    /// How many keys come before the first for which `before` is false
    /// (`before` holds for a prefix of the keys in order).
    pub fn count_before<E: ChunkSource>(
        &mut self,
        src: &E,
        before: &dyn Fn(f64, &[u8]) -> bool,
    ) -> Result<u64, KvError> {
        let (mut n, mut count) = (self.root, 0u64);
        for _ in 0..MAX_DEPTH {
            match self.node(src, n)? {
                Node::Leaf(keys) => {
                    return Ok(count + keys.partition_point(|k| before(k.0, &k.1)) as u64);
                }
                Node::Inner(children) => {
                    let i = children[1..].partition_point(|c| before(c.key.0, &c.key.1));
                    count += children[..i].iter().map(|c| c.count).sum::<u64>();
                    n = children[i].number;
                }
            }
        }
        Err(damaged("too deep"))
    }

    /// The keys of ranks `start..end`, in order (fewer if the tree ends).
    pub fn range<E: ChunkSource>(
        &mut self,
        src: &E,
        start: u64,
        end: u64,
    ) -> Result<Vec<Key>, KvError> {
        let want = end.saturating_sub(start);
        let mut out = Vec::with_capacity(usize::try_from(want.min(1024)).unwrap_or(0));
        if want == 0 {
            return Ok(out);
        }
        let mut stack: Vec<(Vec<Child>, usize)> = Vec::new();
        let (mut n, mut skip) = (self.root, start);
        let mut leaf = loop {
            if stack.len() > MAX_DEPTH {
                return Err(damaged("too deep"));
            }
            match self.node(src, n)? {
                Node::Leaf(keys) => break keys.clone(),
                Node::Inner(children) => {
                    let mut i = 0;
                    while i + 1 < children.len() && skip >= children[i].count {
                        skip -= children[i].count;
                        i += 1;
                    }
                    n = children[i].number;
                    stack.push((children.clone(), i));
                }
            }
        };
        let mut pos = usize::try_from(skip).unwrap_or(usize::MAX);
        while (out.len() as u64) < want {
            if let Some(key) = leaf.get(pos) {
                out.push(key.clone());
                pos += 1;
                continue;
            }
            // The next leaf: up to the first level with a child to the
            // right, then down its leftmost path.
            let next = loop {
                let Some((children, i)) = stack.last_mut() else {
                    return Ok(out);
                };
                if *i + 1 < children.len() {
                    *i += 1;
                    break children[*i].number;
                }
                stack.pop();
            };
            n = next;
            leaf = loop {
                if stack.len() > MAX_DEPTH {
                    return Err(damaged("too deep"));
                }
                match self.node(src, n)? {
                    Node::Leaf(keys) => break keys.clone(),
                    Node::Inner(children) => {
                        n = children[0].number;
                        stack.push((children.clone(), 0));
                    }
                }
            };
            pos = 0;
        }
        Ok(out)
    }

    fn alloc(&mut self, node: Node) -> u32 {
        let n = self.base + self.nodes;
        self.nodes += 1;
        self.cache.insert(n, Cached { node, dirty: true });
        n
    }

    /// Adds `key` (not present).
    pub fn insert<E: ChunkSource>(&mut self, src: &E, key: Key) -> Result<(), KvError> {
        let (mut path, leaf) = self.descend(src, (key.0, &key.1))?;
        for &(p, i) in &path {
            self.children_mut(src, p)?[i].count += 1;
        }
        let cached = self.cached(src, leaf)?;
        cached.dirty = true;
        let Node::Leaf(keys) = &mut cached.node else {
            return Err(damaged("a node where a leaf was expected"));
        };
        let at = keys.partition_point(|k| compare((k.0, &k.1), (key.0, &key.1)).is_lt());
        keys.insert(at, key);
        // Split upwards while a node is over its size.
        let mut cur = leaf;
        loop {
            let node = &mut self.cached(src, cur)?.node;
            if node.bytes() <= TARGET_NODE || node.len() < 2 {
                return Ok(());
            }
            let right = node.split_off();
            let left = Child {
                key: node.first_key().cloned().unwrap_or((0.0, Vec::new())),
                number: cur,
                count: node.count(),
            };
            let right_key = right.first_key().cloned().unwrap_or((0.0, Vec::new()));
            let right_count = right.count();
            let right = Child {
                key: right_key,
                number: self.alloc(right),
                count: right_count,
            };
            match path.pop() {
                Some((p, i)) => {
                    let children = self.children_mut(src, p)?;
                    children[i].count = left.count;
                    children.insert(i + 1, right);
                    cur = p;
                }
                None => {
                    self.root = self.alloc(Node::Inner(vec![left, right]));
                    return Ok(());
                }
            }
        }
    }

    /// Removes `key`; false when absent.
    pub fn remove<E: ChunkSource>(&mut self, src: &E, key: (f64, &[u8])) -> Result<bool, KvError> {
        let (mut path, leaf) = self.descend(src, key)?;
        let cached = self.cached(src, leaf)?;
        let Node::Leaf(keys) = &mut cached.node else {
            return Err(damaged("a node where a leaf was expected"));
        };
        let Ok(at) = keys.binary_search_by(|k| compare((k.0, &k.1), key)) else {
            return Ok(false);
        };
        keys.remove(at);
        cached.dirty = true;
        for &(p, i) in &path {
            let child = &mut self.children_mut(src, p)?[i];
            child.count = child.count.saturating_sub(1);
        }
        // Free emptied nodes upwards, then a root left with one child.
        let mut freed = Vec::new();
        let mut cur = leaf;
        while self.node(src, cur)?.len() == 0 {
            let Some((p, i)) = path.pop() else { break };
            self.children_mut(src, p)?.remove(i);
            self.cache.remove(&cur);
            freed.push(cur);
            cur = p;
        }
        loop {
            let only = match self.node(src, self.root)? {
                Node::Inner(children) if children.len() == 1 => children[0].number,
                _ => break,
            };
            let old = std::mem::replace(&mut self.root, only);
            self.cache.remove(&old);
            freed.push(old);
        }
        self.release(src, freed)?;
        Ok(true)
    }

    /// Gives back freed node numbers, each filled by the last node (in
    /// descending order, so the last node is never a freed one).
    fn release<E: ChunkSource>(&mut self, src: &E, mut freed: Vec<u32>) -> Result<(), KvError> {
        freed.sort_unstable_by(|a, b| b.cmp(a));
        for f in freed {
            let last = self.base + self.nodes - 1;
            if f != last {
                self.relocate(src, last, f)?;
            }
            self.nodes -= 1;
        }
        Ok(())
    }

    /// Bucket `base` was appended to the member buckets: the node there
    /// moves past the last one.
    pub fn bucket_added<E: ChunkSource>(&mut self, src: &E) -> Result<(), KvError> {
        let (from, to) = (self.base, self.base + self.nodes);
        self.relocate(src, from, to)?;
        self.base += 1;
        Ok(())
    }

    /// Moves node `from` to number `to` (free) and points its parent (or
    /// the root) at it.
    fn relocate<E: ChunkSource>(&mut self, src: &E, from: u32, to: u32) -> Result<(), KvError> {
        // A key under `from`: the first of its leftmost leaf.
        let mut n = from;
        let mut probe = None;
        for _ in 0..MAX_DEPTH {
            match self.node(src, n)? {
                Node::Leaf(keys) => {
                    probe = keys.first().cloned();
                    break;
                }
                Node::Inner(children) => n = children[0].number,
            }
        }
        let mut moved = self
            .cache
            .remove(&from)
            .ok_or_else(|| damaged("a moved node was not read"))?;
        moved.dirty = true;
        self.cache.insert(to, moved);
        if self.root == from {
            self.root = to;
            return Ok(());
        }
        let key = probe.ok_or_else(|| damaged("an empty node below the root"))?;
        let mut n = self.root;
        for _ in 0..MAX_DEPTH {
            let cached = self.cached(src, n)?;
            let Node::Inner(children) = &mut cached.node else {
                break;
            };
            let i = child_for(children, (key.0, &key.1));
            if children[i].number == from {
                children[i].number = to;
                cached.dirty = true;
                return Ok(());
            }
            n = children[i].number;
        }
        Err(damaged("a moved node has no parent"))
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
