//! [`Pels`]: the pending entries of every consumer group of a stream, one
//! B+-tree keyed by (group number, entry id) whose nodes (`node.rs`) are
//! chunk records of a large stream, so acknowledging, delivering or
//! claiming entries rewrites the leaves they are in (and, rarely, the
//! nodes above them), not the pending list.
//!
//! Where the nodes live: a large stream's chunks are one [`Ring`]; its
//! entry nodes hold the first positions (see `body.rs`), the tree's nodes
//! the `count` positions right after them. Nodes made or freed while a
//! command runs are placed back into that range when the stream is
//! written (`place.rs`): a node outside it moves into a hole, its parent's
//! pointer fixed, so the ring stays dense and a move costs a path, not the
//! tree. A packed stream (one record) keeps its pending entries in that
//! record: its tree is built in hand when it is read, every node new.
//!
//! A change reads one path; a node past its bound is split (the root
//! too, adding a level; a split where the new key went last leaves the
//! left node full, as deliveries append); an emptied node is freed, a
//! leaf under a quarter full is merged with a sibling when both fit in
//! one, and a root with one child gives way to it. Interior nodes are not
//! merged (a simplification: a thinned tree may keep its depth).
//! `walk.rs` reads in key order.

mod node;
mod place;
mod walk;

use std::collections::{HashMap, HashSet};

use strata_kv::chunk::{Ring, RING};
use strata_kv::ChunkSource;

use node::{Child, Node, LEAF_MAX};
pub use node::{Key, Pending};

use super::id::StreamId;
use crate::reply::{RespError, StreamError};

/// Deepest tree walked before the chunks are deemed damaged (a cycle).
const MAX_DEPTH: usize = 32;

fn damaged() -> RespError {
    StreamError::Damaged.into()
}

/// A path from the root: (interior node, child index) per level.
type Path = Vec<(u32, usize)>;

struct Cached {
    node: Node,
    dirty: bool,
}

/// The pending entries of a stream's groups, as one command sees them.
pub struct Pels<'s> {
    /// Where stored nodes are read from (`None`: every node in hand).
    source: Option<&'s dyn ChunkSource>,
    /// The chunks holding the tree as read.
    stored: Ring,
    /// The root's chunk number (`None`: nothing pending anywhere).
    root: Option<u32>,
    /// Live nodes, stored and new.
    count: u32,
    /// Nodes read or made, by number.
    cache: HashMap<u32, Cached>,
    /// Stored numbers whose node was freed or moved.
    gone: HashSet<u32>,
    /// The number of the next new node: numbers from [`RING`] up are
    /// never chunks, so a new node cannot be mistaken for a stored one.
    next_new: u32,
}

impl std::fmt::Debug for Pels<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pels")
            .field("stored", &self.stored)
            .field("root", &self.root)
            .field("count", &self.count)
            .finish()
    }
}

/// The child of `children` that would hold `key`.
fn child_for(children: &[Child], key: Key) -> usize {
    children
        .get(1..)
        .map_or(0, |rest| rest.partition_point(|c| c.key <= key))
}

impl<'s> Pels<'s> {
    /// No pending entries, nothing stored.
    pub fn in_hand() -> Pels<'s> {
        Pels {
            source: None,
            stored: Ring::default(),
            root: None,
            count: 0,
            cache: HashMap::new(),
            gone: HashSet::new(),
            next_new: RING,
        }
    }

    /// The tree stored in the chunks `stored` of `source`, its root at
    /// `root`; `None` when those do not agree (a damaged head).
    pub fn stored(
        source: &'s dyn ChunkSource,
        stored: Ring,
        root: Option<u32>,
    ) -> Option<Pels<'s>> {
        let sane = match root {
            None => stored.count == 0,
            Some(r) => stored.holds(r),
        };
        sane.then(|| Pels {
            source: Some(source),
            stored,
            root,
            count: stored.count,
            ..Pels::in_hand()
        })
    }

    /// The root's chunk number (`None`: nothing pending).
    pub fn root(&self) -> Option<u32> {
        self.root
    }

    /// Live nodes.
    pub fn count(&self) -> u32 {
        self.count
    }

    fn cached(&mut self, n: u32) -> Result<&mut Cached, RespError> {
        use std::collections::hash_map::Entry as Slot;
        match self.cache.entry(n) {
            Slot::Occupied(c) => Ok(c.into_mut()),
            Slot::Vacant(slot) => {
                if !self.stored.holds(n) || self.gone.contains(&n) {
                    return Err(damaged());
                }
                let source = self.source.ok_or_else(damaged)?;
                let bytes = source.chunk(n)?.ok_or_else(damaged)?;
                let node = Node::decode(&bytes).ok_or_else(damaged)?;
                Ok(slot.insert(Cached { node, dirty: false }))
            }
        }
    }

    fn node(&mut self, n: u32) -> Result<&Node, RespError> {
        Ok(&self.cached(n)?.node)
    }

    /// Node `n`, to change (it will be written).
    fn node_mut(&mut self, n: u32) -> Result<&mut Node, RespError> {
        let c = self.cached(n)?;
        c.dirty = true;
        Ok(&mut c.node)
    }

    fn children_mut(&mut self, n: u32) -> Result<&mut Vec<Child>, RespError> {
        match self.node_mut(n)? {
            Node::Inner(children) => Ok(children),
            Node::Leaf(_) => Err(damaged()),
        }
    }

    fn entries_mut(&mut self, n: u32) -> Result<&mut Vec<(Key, Pending)>, RespError> {
        match self.node_mut(n)? {
            Node::Leaf(entries) => Ok(entries),
            Node::Inner(_) => Err(damaged()),
        }
    }

    /// A new node (dirty), numbered above every chunk until placed.
    fn alloc(&mut self, node: Node) -> u32 {
        let n = self.next_new;
        self.next_new += 1;
        self.cache.insert(n, Cached { node, dirty: true });
        self.count = self.count.saturating_add(1);
        n
    }

    fn free(&mut self, n: u32) {
        self.cache.remove(&n);
        if self.stored.holds(n) {
            self.gone.insert(n);
        }
        self.count = self.count.saturating_sub(1);
    }

    /// The path of (node, child index) from the root to the leaf that
    /// would hold `key`, and that leaf; `None` for an empty tree.
    fn descend(&mut self, key: Key) -> Result<Option<(Path, u32)>, RespError> {
        let Some(mut n) = self.root else {
            return Ok(None);
        };
        let mut path = Vec::new();
        for _ in 0..MAX_DEPTH {
            match self.node(n)? {
                Node::Leaf(_) => return Ok(Some((path, n))),
                Node::Inner(children) => {
                    let i = child_for(children, key);
                    let next = children.get(i).ok_or_else(damaged)?.number;
                    path.push((n, i));
                    n = next;
                }
            }
        }
        Err(damaged())
    }

    /// The entry at `key`, if pending.
    pub fn get(&mut self, key: Key) -> Result<Option<Pending>, RespError> {
        let Some((_, leaf)) = self.descend(key)? else {
            return Ok(None);
        };
        let Node::Leaf(entries) = self.node(leaf)? else {
            return Err(damaged());
        };
        let at = entries.binary_search_by(|e| e.0.cmp(&key));
        Ok(at.ok().map(|i| entries[i].1))
    }

    /// Sets the entry at `key`; the one it replaced.
    pub fn insert(&mut self, key: Key, value: Pending) -> Result<Option<Pending>, RespError> {
        let Some((path, leaf)) = self.descend(key)? else {
            let n = self.alloc(Node::Leaf(vec![(key, value)]));
            self.root = Some(n);
            return Ok(None);
        };
        let entries = self.entries_mut(leaf)?;
        match entries.binary_search_by(|e| e.0.cmp(&key)) {
            Ok(i) => Ok(Some(std::mem::replace(&mut entries[i].1, value))),
            Err(i) => {
                entries.insert(i, (key, value));
                self.split(path, leaf, i)?;
                Ok(None)
            }
        }
    }

    /// Splits node `n` (reached by `path`, `at` the place just filled)
    /// while it is overfull, and its parents as they fill.
    fn split(&mut self, mut path: Path, mut n: u32, mut at: usize) -> Result<(), RespError> {
        loop {
            let node = self.node_mut(n)?;
            if !node.overfull() {
                return Ok(());
            }
            let len = node.len();
            let cut = if at + 1 == len { len - 1 } else { len / 2 };
            let right = node.split_off(cut);
            let left_key = node.first_key();
            let key = right.first_key().ok_or_else(damaged)?;
            let r = self.alloc(right);
            match path.pop() {
                Some((parent, i)) => {
                    let child = Child { key, number: r };
                    self.children_mut(parent)?.insert(i + 1, child);
                    (n, at) = (parent, i + 1);
                }
                None => {
                    let left = Child {
                        key: left_key.unwrap_or(key),
                        number: n,
                    };
                    let root = self.alloc(Node::Inner(vec![left, Child { key, number: r }]));
                    self.root = Some(root);
                    return Ok(());
                }
            }
        }
    }

    /// Removes the entry at `key`; the one removed.
    pub fn remove(&mut self, key: Key) -> Result<Option<Pending>, RespError> {
        let Some((path, leaf)) = self.descend(key)? else {
            return Ok(None);
        };
        let Node::Leaf(entries) = self.node(leaf)? else {
            return Err(damaged());
        };
        let Ok(i) = entries.binary_search_by(|e| e.0.cmp(&key)) else {
            return Ok(None);
        };
        let entries = self.entries_mut(leaf)?;
        let (_, removed) = entries.remove(i);
        match entries.len() {
            0 => self.prune(path, leaf)?,
            n if n < LEAF_MAX / 4 => self.merge(&path)?,
            _ => {}
        }
        Ok(Some(removed))
    }

    /// Merges the leaf `path` leads to with a sibling (the next, or else
    /// the previous) when both fit in one leaf: the right one's entries join
    /// the left one and it is freed. Leaves are all at one depth, so a
    /// leaf's siblings are leaves.
    fn merge(&mut self, path: &Path) -> Result<(), RespError> {
        let Some(&(parent, i)) = path.last() else {
            return Ok(());
        };
        let Node::Inner(children) = self.node(parent)? else {
            return Err(damaged());
        };
        let numbers: Vec<u32> = children.iter().map(|c| c.number).collect();
        let pairs = [(i, i + 1), (i.wrapping_sub(1), i)];
        let mut fits = None;
        for (a, b) in pairs {
            let (Some(&left), Some(&right)) = (numbers.get(a), numbers.get(b)) else {
                continue;
            };
            if self.node(left)?.len() + self.node(right)?.len() <= LEAF_MAX {
                fits = Some((b, left, right));
                break;
            }
        }
        let Some((b, left, right)) = fits else {
            return Ok(());
        };
        let moved = std::mem::take(self.entries_mut(right)?);
        self.entries_mut(left)?.extend(moved);
        self.children_mut(parent)?.remove(b);
        self.free(right);
        self.collapse_root()
    }

    /// Removes every entry of group `group`.
    pub fn clear_group(&mut self, group: u32) -> Result<(), RespError> {
        let (from, to) = (
            Key::new(group, StreamId::MIN),
            Key::new(group, StreamId::MAX),
        );
        loop {
            let batch = self.scan(from, Some(to), 256)?;
            if batch.is_empty() {
                return Ok(());
            }
            for (k, _) in batch {
                self.remove(k)?;
            }
        }
    }

    /// Frees the emptied node `n` (reached by `path`) and the parents it
    /// leaves empty; then lets a root of one child give way to it.
    fn prune(&mut self, mut path: Path, mut n: u32) -> Result<(), RespError> {
        loop {
            self.free(n);
            let Some((parent, i)) = path.pop() else {
                self.root = None;
                return Ok(());
            };
            let children = self.children_mut(parent)?;
            if i < children.len() {
                children.remove(i);
            }
            if !children.is_empty() {
                break;
            }
            n = parent;
        }
        self.collapse_root()
    }

    /// Lets a root of one child give way to it, as often as it can.
    fn collapse_root(&mut self) -> Result<(), RespError> {
        while let Some(r) = self.root {
            let only = match self.node(r)? {
                Node::Inner(children) if children.len() == 1 => children[0].number,
                _ => break,
            };
            self.free(r);
            self.root = Some(only);
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "tests.rs"]
pub(super) mod tests;
