//! Nodes of the pending entries' tree (see [`Pels`](super::Pels)): leaves
//! of pending entries in key order, interior nodes of children (a lower
//! bound of the child's keys and its chunk number).
//!
//! ```text
//! leaf:  'L' | count: u32 | (group: u32, id, consumer: u32, delivery time: u64, deliveries: u64)*
//! inner: 'I' | count: u32 | (group: u32, id, number: u32)*
//! ```
//! little-endian, an id as two u64. A node carries its own tag, so one
//! moved to another chunk number is read without knowing its depth.
//! Decoding refuses a count past the bytes left, an empty interior node
//! and keys out of order, so damaged bytes are an error, never a panic.

use super::super::id::StreamId;
use super::super::node::{len32, put_id, put_u32, put_u64, Reader};

/// An entry delivered to a consumer and not yet acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    /// The number of the consumer that holds it (its `Consumer::number`).
    pub consumer: u32,
    /// When it was last delivered (Unix ms).
    pub delivery_time: u64,
    /// How many times it was delivered.
    pub delivery_count: u64,
}

/// A pending entry's place in the tree: its group's number, then its
/// identifier (the entries of one group are consecutive, in id order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// The group's number ([`Group::number`](super::super::Group)).
    pub group: u32,
    /// The entry's identifier.
    pub id: StreamId,
}

impl Key {
    /// The key of entry `id` of group `group`.
    pub fn new(group: u32, id: StreamId) -> Key {
        Key { group, id }
    }
}

/// Leaf entries past which a leaf is split (40 bytes each).
pub const LEAF_MAX: usize = 64;
/// Children past which an interior node is split (24 bytes each).
pub const INNER_MAX: usize = 128;

const LEAF: u8 = b'L';
const INNER: u8 = b'I';
/// Stored bytes of a leaf entry and of a child.
const LEAF_ENTRY: usize = 40;
const CHILD: usize = 24;

/// One child of an interior node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Child {
    /// Every key under the child is at least this (the first child's is
    /// never compared); every key under the previous child is below it.
    pub key: Key,
    /// The child's chunk number.
    pub number: u32,
}

/// A node, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Pending entries in key order.
    Leaf(Vec<(Key, Pending)>),
    /// Children in key order (at least one).
    Inner(Vec<Child>),
}

fn put_key(w: &mut Vec<u8>, key: Key) {
    put_u32(w, key.group);
    put_id(w, key.id);
}

fn key(r: &mut Reader<'_>) -> Option<Key> {
    Some(Key::new(r.u32()?, r.id()?))
}

impl Node {
    /// Entries of a leaf, children of an interior node.
    pub fn len(&self) -> usize {
        match self {
            Node::Leaf(e) => e.len(),
            Node::Inner(c) => c.len(),
        }
    }

    /// Whether the node holds too much and must be split.
    pub fn overfull(&self) -> bool {
        match self {
            Node::Leaf(e) => e.len() > LEAF_MAX,
            Node::Inner(c) => c.len() > INNER_MAX,
        }
    }

    /// The node's entries or children from `at` on, taken from it.
    pub fn split_off(&mut self, at: usize) -> Node {
        match self {
            Node::Leaf(e) => Node::Leaf(e.split_off(at)),
            Node::Inner(c) => Node::Inner(c.split_off(at)),
        }
    }

    /// The node's first key (a lower bound of the keys under it).
    pub fn first_key(&self) -> Option<Key> {
        match self {
            Node::Leaf(e) => e.first().map(|e| e.0),
            Node::Inner(c) => c.first().map(|c| c.key),
        }
    }

    /// The stored form.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(5 + self.len() * LEAF_ENTRY);
        match self {
            Node::Leaf(entries) => {
                w.push(LEAF);
                put_u32(&mut w, len32(entries.len()));
                for (k, p) in entries {
                    put_key(&mut w, *k);
                    put_u32(&mut w, p.consumer);
                    put_u64(&mut w, p.delivery_time);
                    put_u64(&mut w, p.delivery_count);
                }
            }
            Node::Inner(children) => {
                w.push(INNER);
                put_u32(&mut w, len32(children.len()));
                for c in children {
                    put_key(&mut w, c.key);
                    put_u32(&mut w, c.number);
                }
            }
        }
        w
    }

    /// The node stored as `bytes`; `None` when they are damaged.
    pub fn decode(bytes: &[u8]) -> Option<Node> {
        let mut r = Reader(bytes);
        let tag = r.u8()?;
        let count = usize::try_from(r.u32()?).ok()?;
        let each = if tag == LEAF { LEAF_ENTRY } else { CHILD };
        if count.checked_mul(each)? != r.0.len() {
            return None;
        }
        let node = match tag {
            LEAF => {
                let mut entries = Vec::with_capacity(count);
                for _ in 0..count {
                    let k = key(&mut r)?;
                    let p = Pending {
                        consumer: r.u32()?,
                        delivery_time: r.u64()?,
                        delivery_count: r.u64()?,
                    };
                    entries.push((k, p));
                }
                let rising = entries.windows(2).all(|w| w[0].0 < w[1].0);
                rising.then_some(Node::Leaf(entries))?
            }
            INNER if count > 0 => {
                let mut children = Vec::with_capacity(count);
                for _ in 0..count {
                    let key = key(&mut r)?;
                    children.push(Child {
                        key,
                        number: r.u32()?,
                    });
                }
                let rising = children[1..].windows(2).all(|w| w[0].key < w[1].key);
                rising.then_some(Node::Inner(children))?
            }
            _ => return None,
        };
        Some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(n: u64) -> Pending {
        Pending {
            consumer: n as u32,
            delivery_time: 1000 + n,
            delivery_count: n,
        }
    }

    #[test]
    fn nodes_round_trip_and_damage_is_refused() {
        let leaf = Node::Leaf(
            (1..=3)
                .map(|n| (Key::new(2, StreamId::new(n, 1)), pending(n)))
                .collect(),
        );
        let inner = Node::Inner(vec![
            Child {
                key: Key::new(0, StreamId::MIN),
                number: 7,
            },
            Child {
                key: Key::new(1, StreamId::new(5, 0)),
                number: 9,
            },
        ]);
        for node in [leaf, inner, Node::Leaf(Vec::new())] {
            let bytes = node.encode();
            assert_eq!(Node::decode(&bytes), Some(node.clone()));
            for cut in 0..bytes.len() {
                assert!(Node::decode(&bytes[..cut]).is_none(), "cut at {cut}");
            }
        }
        assert!(Node::decode(&Node::Inner(Vec::new()).encode()).is_none());
        let mut huge = Node::Leaf(Vec::new()).encode();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Node::decode(&huge).is_none());
        let backwards = Node::Leaf(vec![
            (Key::new(0, StreamId::new(2, 0)), pending(1)),
            (Key::new(0, StreamId::new(1, 0)), pending(1)),
        ]);
        assert!(Node::decode(&backwards.encode()).is_none());
    }
}
