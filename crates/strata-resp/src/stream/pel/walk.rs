//! Reading the pending entries' tree in key order: the first entry at or
//! after a key, the last at or before one, and runs of entries. A walk
//! moves from leaf to leaf along the path it keeps, reading each node
//! once.

use super::node::{Key, Node, Pending};
use super::{damaged, Path, Pels, MAX_DEPTH};
use crate::reply::RespError;

impl Pels<'_> {
    fn leaf(&mut self, n: u32) -> Result<&Vec<(Key, Pending)>, RespError> {
        match self.node(n)? {
            Node::Leaf(entries) => Ok(entries),
            Node::Inner(_) => Err(damaged()),
        }
    }

    /// From `n` down to a leaf, always taking the first child (`last`:
    /// the last), extending `path`.
    fn edge(&mut self, mut n: u32, path: &mut Path, last: bool) -> Result<u32, RespError> {
        for _ in 0..MAX_DEPTH {
            match self.node(n)? {
                Node::Leaf(_) => return Ok(n),
                Node::Inner(children) => {
                    let i = if last {
                        children.len().saturating_sub(1)
                    } else {
                        0
                    };
                    let next = children.get(i).ok_or_else(damaged)?.number;
                    path.push((n, i));
                    n = next;
                }
            }
        }
        Err(damaged())
    }

    /// The leaf after (`back`: before) the one `path` leads to, `path`
    /// moved to it; `None` past the end.
    fn step(&mut self, path: &mut Path, back: bool) -> Result<Option<u32>, RespError> {
        while let Some((p, i)) = path.pop() {
            let Node::Inner(children) = self.node(p)? else {
                return Err(damaged());
            };
            let j = match back {
                true => i.checked_sub(1),
                false => Some(i + 1).filter(|&j| j < children.len()),
            };
            if let Some(j) = j {
                let next = children.get(j).ok_or_else(damaged)?.number;
                path.push((p, j));
                return self.edge(next, path, back).map(Some);
            }
        }
        Ok(None)
    }

    /// The first entry at or after `key`.
    pub fn first_from(&mut self, key: Key) -> Result<Option<(Key, Pending)>, RespError> {
        Ok(self.scan(key, None, 1)?.pop())
    }

    /// The last entry at or before `key`.
    pub fn last_upto(&mut self, key: Key) -> Result<Option<(Key, Pending)>, RespError> {
        let Some((mut path, mut n)) = self.descend(key)? else {
            return Ok(None);
        };
        for _ in 0..=self.count {
            let entries = self.leaf(n)?;
            let i = entries.partition_point(|e| e.0 <= key);
            if let Some(found) = i.checked_sub(1).and_then(|i| entries.get(i)) {
                return Ok(Some(*found));
            }
            match self.step(&mut path, true)? {
                Some(prev) => n = prev,
                None => return Ok(None),
            }
        }
        Err(damaged())
    }

    /// Entries from `from` on, up to `to` (inclusive; `None`: the end),
    /// at most `limit`, in key order.
    pub fn scan(
        &mut self,
        from: Key,
        to: Option<Key>,
        limit: usize,
    ) -> Result<Vec<(Key, Pending)>, RespError> {
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        let Some((mut path, mut n)) = self.descend(from)? else {
            return Ok(out);
        };
        for _ in 0..=self.count {
            let entries = self.leaf(n)?;
            let start = entries.partition_point(|e| e.0 < from);
            for e in &entries[start..] {
                if to.is_some_and(|to| e.0 > to) {
                    return Ok(out);
                }
                out.push(*e);
                if out.len() == limit {
                    return Ok(out);
                }
            }
            match self.step(&mut path, false)? {
                Some(next) => n = next,
                None => return Ok(out),
            }
        }
        Err(damaged())
    }
}
