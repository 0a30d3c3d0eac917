//! Nodes of a sorted set's order tree (see [`tree`](super::tree)): leaves
//! of (score, member) keys in order, interior nodes of children (a lower
//! bound of the child's keys, its chunk number, the keys under it).
//!
//! ```text
//! leaf:  'L' | packed(member, score: f64 LE, member, score, ...)
//! inner: 'I' | packed(score LE ++ member, number: u32 BE, count: u64 LE, ...)
//! ```
//! (`packed` is [`crate::collection`]'s encoding). A node carries its own
//! tag, so a chunk moved to another number is read without knowing its
//! depth.

use std::cmp::Ordering;

use crate::collection;

/// A member and its score, ordered by score then member bytes (Redis's
/// order; scores are never NaN).
pub type Key = (f64, Vec<u8>);

/// Redis's order of (score, member).
pub fn compare(a: (f64, &[u8]), b: (f64, &[u8])) -> Ordering {
    a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1))
}

/// Target packed bytes of a node: one past it is split in two.
pub const TARGET_NODE: usize = 2048;

const LEAF: u8 = b'L';
const INNER: u8 = b'I';

/// One child of an interior node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Child {
    /// Every key under the child is at least this (the first child's is
    /// never compared); every key under the previous child is below it.
    pub key: Key,
    /// The child's chunk number.
    pub number: u32,
    /// Keys under the child.
    pub count: u64,
}

/// A node, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// Keys in order.
    Leaf(Vec<Key>),
    /// Children in key order.
    Inner(Vec<Child>),
}

impl Node {
    /// Keys under the node.
    pub fn count(&self) -> u64 {
        match self {
            Node::Leaf(keys) => keys.len() as u64,
            Node::Inner(children) => children.iter().map(|c| c.count).sum(),
        }
    }

    /// Entries (keys or children).
    pub fn len(&self) -> usize {
        match self {
            Node::Leaf(keys) => keys.len(),
            Node::Inner(children) => children.len(),
        }
    }

    /// Packed bytes, near enough for the split rule.
    pub fn bytes(&self) -> usize {
        match self {
            Node::Leaf(keys) => keys.iter().map(|k| k.1.len() + 11).sum(),
            Node::Inner(children) => children.iter().map(|c| c.key.1.len() + 25).sum(),
        }
    }

    /// The first entry's key (an interior node's: a lower bound).
    pub fn first_key(&self) -> Option<&Key> {
        match self {
            Node::Leaf(keys) => keys.first(),
            Node::Inner(children) => children.first().map(|c| &c.key),
        }
    }

    /// Moves the upper half of the entries into a new node.
    pub fn split_off(&mut self) -> Node {
        match self {
            Node::Leaf(keys) => Node::Leaf(keys.split_off(keys.len() / 2)),
            Node::Inner(children) => Node::Inner(children.split_off(children.len() / 2)),
        }
    }

    /// The chunk value.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes() + 8);
        match self {
            Node::Leaf(keys) => {
                let scores: Vec<[u8; 8]> =
                    keys.iter().map(|k| collection::score_bytes(k.0)).collect();
                out.push(LEAF);
                let flat = keys
                    .iter()
                    .zip(&scores)
                    .flat_map(|(k, s)| [k.1.as_slice(), &s[..]]);
                out.extend(collection::encode(flat));
            }
            Node::Inner(children) => {
                let parts: Vec<[Vec<u8>; 3]> = children
                    .iter()
                    .map(|c| {
                        let mut key = collection::score_bytes(c.key.0).to_vec();
                        key.extend_from_slice(&c.key.1);
                        let number = c.number.to_be_bytes().to_vec();
                        [key, number, c.count.to_le_bytes().to_vec()]
                    })
                    .collect();
                out.push(INNER);
                out.extend(collection::encode(
                    parts.iter().flatten().map(Vec::as_slice),
                ));
            }
        }
        out
    }

    /// `None` if `bytes` is not a node.
    pub fn decode(bytes: &[u8]) -> Option<Node> {
        let (&tag, rest) = bytes.split_first()?;
        let elements = collection::decode(rest)?;
        match tag {
            LEAF if elements.len() % 2 == 0 => elements
                .chunks_exact(2)
                .map(|p| Some((collection::score_of(p[1])?, p[0].to_vec())))
                .collect::<Option<Vec<Key>>>()
                .map(Node::Leaf),
            INNER if elements.len() % 3 == 0 => elements
                .chunks_exact(3)
                .map(|p| {
                    let score = collection::score_of(p[0].get(..8)?)?;
                    Some(Child {
                        key: (score, p[0][8..].to_vec()),
                        number: u32::from_be_bytes(p[1].try_into().ok()?),
                        count: u64::from_le_bytes(p[2].try_into().ok()?),
                    })
                })
                .collect::<Option<Vec<Child>>>()
                .map(Node::Inner),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_round_trip_and_split() {
        let mut leaf = Node::Leaf(vec![(-1.5, b"a".to_vec()), (2.0, Vec::new())]);
        assert_eq!(Node::decode(&leaf.encode()), Some(leaf.clone()));
        let right = leaf.split_off();
        assert_eq!((leaf.count(), right.count()), (1, 1));
        let inner = Node::Inner(vec![
            Child {
                key: (f64::NEG_INFINITY, b"x".to_vec()),
                number: 7,
                count: 1 << 40,
            },
            Child {
                key: (3.0, Vec::new()),
                number: u32::MAX,
                count: 2,
            },
        ]);
        assert_eq!(Node::decode(&inner.encode()), Some(inner.clone()));
        assert_eq!(inner.count(), (1 << 40) + 2);
        assert_eq!(Node::decode(b"I\x01"), None);
        assert_eq!(Node::decode(b""), None);
        let bytes = leaf.encode();
        assert_eq!(Node::decode(&bytes[..bytes.len() - 1]), None);
    }
}
