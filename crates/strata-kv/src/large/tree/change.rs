//! Changes of the order tree: inserting (splitting nodes upwards),
//! removing (merging a thin leaf, freeing emptied nodes, collapsing the
//! root), and the moves that keep node numbers dense.

use super::{child_for, damaged, Cached, Tree, MAX_DEPTH};
use crate::large::order::{compare, Child, Key, Node, TARGET_NODE};
use crate::shard::large_read::ChunkSource;
use crate::KvError;

impl Tree {
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
        // Merge a thin leaf with a sibling; else free emptied nodes
        // upwards; then a root left with one child gives way to it.
        let mut freed = Vec::new();
        let mut cur = leaf;
        if let Some(&(p, i)) = path.last() {
            if let Some(gone) = self.merge_leaf(src, p, i)? {
                freed.push(gone);
                // The parent kept a child: nothing emptied.
                (path, cur) = (Vec::new(), p);
            }
        }
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

    /// Merges leaf `i` of node `p`, when under a quarter of
    /// [`TARGET_NODE`], with a sibling if both fit in one: the right one's
    /// keys join the left one. Returns the number freed.
    fn merge_leaf<E: ChunkSource>(
        &mut self,
        src: &E,
        p: u32,
        i: usize,
    ) -> Result<Option<u32>, KvError> {
        let children = match self.node(src, p)? {
            Node::Inner(children) => children,
            Node::Leaf(_) => return Err(damaged("a leaf where a node was expected")),
        };
        let j = match (i + 1 < children.len(), i > 0) {
            (true, _) => i + 1,
            (false, true) => i - 1,
            (false, false) => return Ok(None),
        };
        let (l, r) = (i.min(j), i.max(j));
        let (left, right, thin) = (children[l].number, children[r].number, children[i].number);
        if self.node(src, thin)?.bytes() >= TARGET_NODE / 4 {
            return Ok(None);
        }
        let sum = self.node(src, left)?.bytes() + self.node(src, right)?.bytes();
        if sum > TARGET_NODE {
            return Ok(None);
        }
        let Some(Node::Leaf(moved)) = self.cache.remove(&right).map(|c| c.node) else {
            return Err(damaged("a node where a leaf was expected"));
        };
        let cached = self.cached(src, left)?;
        let Node::Leaf(keys) = &mut cached.node else {
            return Err(damaged("a node where a leaf was expected"));
        };
        keys.extend(moved);
        cached.dirty = true;
        let children = self.children_mut(src, p)?;
        children[l].count += children[r].count;
        children.remove(r);
        Ok(Some(right))
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
}
