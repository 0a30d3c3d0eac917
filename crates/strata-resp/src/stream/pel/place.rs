//! Placing the pending entries' tree into its chunks when a stream is
//! written: every live node must end in the positions right after the
//! entry nodes, `[start, start + count)` around the ring. The entry nodes
//! may have grown into the tree's first chunks (an `XADD` opened a node)
//! or shrunk from them (an emptied last node went), and the tree may have
//! made and freed nodes; each live node outside the range moves into a
//! hole in it (a number no live node holds), its parent's pointer fixed.
//! So a write moves as many nodes as the range shifted plus those made or
//! freed, never the tree.

use strata_kv::chunk::{Ring, RING};

use super::node::{Key, Node};
use super::{damaged, Pels, MAX_DEPTH};
use crate::reply::RespError;

impl Pels<'_> {
    /// Moves every live node into the chunks from `start` on (numbered
    /// around the ring) and returns the changed ones' stored forms by
    /// number; the tree is then stored there.
    pub fn place(&mut self, start: u32) -> Result<Vec<(u32, Vec<u8>)>, RespError> {
        let target = Ring {
            first: start % RING,
            count: self.count,
        };
        let mut movers: Vec<u32> = self
            .stored
            .without(Some(target))
            .filter(|n| !self.gone.contains(n))
            .collect();
        let mut new: Vec<u32> = self.cache.keys().copied().filter(|&n| n >= RING).collect();
        new.sort_unstable();
        movers.extend(new);
        let mut holes: Vec<u32> = target.without(Some(self.stored)).collect();
        let mut freed: Vec<u32> = self
            .gone
            .iter()
            .copied()
            .filter(|&n| target.holds(n))
            .collect();
        freed.sort_unstable();
        holes.extend(freed);
        if holes.len() != movers.len() {
            return Err(damaged());
        }
        for (from, to) in movers.into_iter().zip(holes) {
            self.relocate(from, to)?;
        }
        let mut changed: Vec<(u32, Vec<u8>)> = self
            .cache
            .iter_mut()
            .filter(|(n, c)| c.dirty && target.holds(**n))
            .map(|(n, c)| {
                c.dirty = false;
                (*n, c.node.encode())
            })
            .collect();
        changed.sort_unstable_by_key(|c| c.0);
        self.stored = target;
        self.gone.clear();
        Ok(changed)
    }

    /// A key under node `n`, by which a descent from the root passes
    /// through `n`: a leaf's first, else an interior node's second
    /// child's bound (the first child's is never compared), else its only
    /// child's.
    fn probe(&mut self, mut n: u32) -> Result<Key, RespError> {
        for _ in 0..MAX_DEPTH {
            match self.node(n)? {
                Node::Leaf(entries) => return entries.first().map(|e| e.0).ok_or_else(damaged),
                Node::Inner(children) if children.len() >= 2 => return Ok(children[1].key),
                Node::Inner(children) => n = children.first().ok_or_else(damaged)?.number,
            }
        }
        Err(damaged())
    }

    /// Moves node `from` to number `to`: the pointer to it (its parent's
    /// or the root) is changed and it is written there.
    fn relocate(&mut self, from: u32, to: u32) -> Result<(), RespError> {
        let key = self.probe(from)?;
        if self.root == Some(from) {
            self.root = Some(to);
        } else {
            let Some((path, _)) = self.descend(key)? else {
                return Err(damaged());
            };
            let mut parent = None;
            for (p, i) in path {
                if let Node::Inner(children) = self.node(p)? {
                    if children.get(i).is_some_and(|c| c.number == from) {
                        parent = Some((p, i));
                        break;
                    }
                }
            }
            let (p, i) = parent.ok_or_else(damaged)?;
            let child = self.children_mut(p)?.get_mut(i).ok_or_else(damaged)?;
            child.number = to;
        }
        let mut moved = self.cache.remove(&from).ok_or_else(damaged)?;
        moved.dirty = true;
        self.cache.insert(to, moved);
        if self.stored.holds(from) {
            self.gone.insert(from);
        }
        self.gone.remove(&to);
        Ok(())
    }
}
