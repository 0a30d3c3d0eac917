//! Reads of the order tree by rank: a key's rank, the rank where a
//! monotone predicate turns false, and the keys of a span of ranks (a
//! cursor over the path, since leaves keep no sibling pointers: a moved
//! node would have to fix them).

use super::{child_for, damaged, Tree, MAX_DEPTH};
use crate::large::order::{compare, Child, Key, Node};
use crate::shard::large_read::ChunkSource;
use crate::KvError;

impl Tree {
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
}
